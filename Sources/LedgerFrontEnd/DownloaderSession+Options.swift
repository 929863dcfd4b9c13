import DownloadLedger
import LedgerCore

extension DownloaderSession {
    /// What a user may ask of one run of the downloader (`-j`, `--connections`, `--max-size`, the hooks, `get`'s
    /// tasks), over the ledger's settings. The values are checked by the front end that parsed them.
    public struct Options: Sendable {
        /// The most downloads at once (`-j`); nil follows the ledger.
        public var jobs: Int?
        /// Connections per download (`--connections`, 1 to 64): each is split into that many pieces at once;
        /// nil leaves the engine's default (a slow download is split over up to 8).
        public var connections: Int?
        /// The largest file a download may become (`--max-size`); nil follows the tasks and the ledger.
        public var maxSize: Int64?
        /// When set, only these tasks are downloaded (`dledger get`).
        public var only: Set<TaskID>?
        /// The programs run after outcomes, over the ledger's.
        public var hooks: HookSettings
        /// Whether Ctrl-C, SIGTERM and SIGHUP ask the run for a clean stop (``Interrupt``). A front end that
        /// handles signals itself (`ui`) says no.
        public var handlesSignals: Bool
        /// The downloader's host name (`--host-name`, checked); nil: the machine's.
        public var host: String?
        /// On a shared (PostgreSQL) ledger, the folder this host downloads every task into (`run --dir`); nil:
        /// each task's own.
        public var folder: String?

        public init(
            jobs: Int? = nil, connections: Int? = nil, maxSize: Int64? = nil, only: Set<TaskID>? = nil,
            hooks: HookSettings = HookSettings(), handlesSignals: Bool = true, host: String? = nil,
            folder: String? = nil
        ) {
            self.host = host
            self.folder = folder
            self.jobs = jobs
            self.connections = connections
            self.maxSize = maxSize
            self.only = only
            self.hooks = hooks
            self.handlesSignals = handlesSignals
        }

        /// `base` with the connections asked for.
        public func transferConfig(_ base: TransferConfig = TransferConfig()) -> TransferConfig {
            var config = base
            if let connections {
                config.connectionsPerTask = connections
                config.splitAtOnce = true
            }
            return config
        }
    }
}
