@_exported import LedgerCore
@_exported import LedgerStore
@_exported import LedgerTransfer
