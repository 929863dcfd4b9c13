// DownloadLedger module: see ARCHITECTURE.md.
