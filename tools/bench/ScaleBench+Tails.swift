import DownloadLedger
import Foundation
import LedgerCore
import LedgerStore

/// The shape users make (issue 24): a big list, then a few actions after its snapshot. Each base ledger is copied
/// and given a tail of small events appended to its log as `dledger` commands and the downloader would append
/// them (moves, pauses and resumes, renames, transfer facts), with no snapshot after them: what a reader finds
/// when the writer's tail was too short to snapshot.
extension ScaleBench {
    /// The tail lengths measured on each base ledger.
    static let tails = [1, 300, 5000]

    /// Copies `base` to `name` and appends `count` small events over its `tasks` tasks in `sections` sections.
    static func withTail(
        _ base: Shape, count: Int, tasks: Int, sections: Int, _ run: Run
    ) throws -> Shape {
        let path = run.directory.file(
            "\(URL(fileURLWithPath: base.path).deletingPathExtension().lastPathComponent)-tail-\(count).sqlite"
        )
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: base.path + suffix) {
            try? FileManager.default.removeItem(atPath: path + suffix)
            try FileManager.default.copyItem(atPath: base.path + suffix, toPath: path + suffix)
        }
        let store = try SQLiteEventStore(path: path)
        var head = try store.head()
        var time = Int64(Date().timeIntervalSince1970 * 1000)
        var batch: [NewEvent] = []
        for n in 0..<count {
            // A few hundred tasks, spread over the list, each touched several times.
            let id = TaskID(1 + (n * 7919) % min(tasks, 400) * max(1, tasks / 400))
            let event: Event
            switch n % 10 {
            case 0, 1, 2: event = .tasksMoved(ids: [id], section: n % sections, index: n % 5)
            case 3: event = .tasksPaused(ids: [id])
            case 4: event = .tasksResumed(ids: [id])
            case 5: event = .taskRenamed(id: id, name: "renamed-\(n).iso", fileName: nil)
            case 6: event = .transferStarted(id: id, attempt: 1, offset: 0)
            case 7:
                event = .transferResolved(
                    id: id, size: 1_000_000, serverName: nil, validator: "\"v\(n)\"", acceptsRanges: true,
                    restartedFromZero: nil)
            case 8: event = .transferPaused(id: id, bytes: 250_000)
            default: event = .sortChanged(.manual, descending: false)
            }
            batch.append(
                NewEvent(
                    kind: event.kind, version: Event.payloadVersion, tasks: event.taskIDs,
                    payload: Entry(event).encodedPayload()))
            // One event a commit for the first hundred (as commands commit), then in batches.
            if n < 100 || batch.count == 100 {
                time += 1
                head = try store.append(batch, expectingHead: head, time: time)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { head = try store.append(batch, expectingHead: head, time: time + 1) }
        return Shape(name: "\(base.name) +\(count)", path: path, auditID: base.auditID, section: base.section)
    }
}
