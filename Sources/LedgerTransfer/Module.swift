// LedgerTransfer module: see ARCHITECTURE.md.
