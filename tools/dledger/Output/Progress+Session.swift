import LedgerFrontEnd

/// The CLI's progress lines are what a ``DownloaderSession`` shows while it runs.
extension Progress: ProgressDisplay {}
