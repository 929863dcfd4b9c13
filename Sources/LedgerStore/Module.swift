// LedgerStore module: see ARCHITECTURE.md.
