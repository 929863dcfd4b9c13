import LedgerCore
import LedgerStore

/// On a ledger shared by several hosts, a file is on the disk of the host that downloaded it. Commands that touch
/// a file (purge, erase, delete the files, redownload, rename a finished file) are refused on any other host,
/// naming the one that has it: they run there (docs/postgres.md, "Several hosts: claims and leases").
extension Ledger {
    /// This process's host name on a shared ledger: whose files its commands may touch, and the name its
    /// downloader claims tasks with. Default: the machine's (``Scheduler/defaultHostName()``).
    public var hostName: String {
        get { core.withLock { $0.hostName } ?? Scheduler.defaultHostName() }
        set { core.withLock { $0.hostName = newValue } }
    }
}

extension Ledger.State {
    /// Refuses `event` when, on a shared ledger, it would touch the file or partial data of a task that another
    /// host has (``DownloadTask/host``).
    /// - Throws: `LedgerError.fileSystem` naming the task and the host.
    func refuseFilesElsewhere(_ event: Event, in list: DownloadList) throws {
        guard PostgresLocation.isPostgres(path) else { return }
        let touched: [TaskID]
        switch event {
        case .trashPurged(let ids, _):
            touched = ids.filter { id in list.trash.first { $0.id == id }?.mode != .record }
        case .tasksErased(let ids, let modes, _):
            touched = ids.enumerated().filter { n, _ in (modes.count == 1 ? modes[0] : modes[n]) != .record }
                .map(\.element)
        case .tasksRedownloaded(let ids, _), .filesDeleted(let ids, _):
            touched = ids
        case .taskRenamed(let id, _, let fileName?, _) where !fileName.isEmpty:
            touched = [id]
        default:
            return
        }
        let here = hostName ?? Scheduler.defaultHostName()
        for id in touched {
            guard let t = list.tasks[id], let host = t.host, host != here, t.fileName != nil || t.bytes > 0
            else { continue }
            throw LedgerError.fileSystem(
                "task #\(id)'s file is on host \(host), not on this one (\(here)): run the command on \(host)"
            )
        }
    }
}
