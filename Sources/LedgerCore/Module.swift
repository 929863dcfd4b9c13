// LedgerCore module: see ARCHITECTURE.md.
