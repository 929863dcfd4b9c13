import DownloadLedger
import LedgerUI

/// The events that move tasks in a sorted or filtered view (a rename in the name sort, a size resolved in the size
/// sort, a task finished again in the completion-time sort, a restore from the to-delete list; an add, a delete and
/// a move between sections in a filtered manual list), each by the other process, timed as the screen follows it:
/// refresh, log, model, lines.
extension UIBench.Case {
    func reorderRound() throws -> [String: Double] {
        var out: [String: Double] = [:]
        let id = task
        // A second section for the moves (the list is in the manual order here).
        if writer.list.sections.count < 2 { try writer.execute(.insertSection(title: "Later", at: nil)) }
        let original = "file-\(id).iso"
        (out["rename"], out["rename.model"]) = try timed(
            sort: .name,
            [
                { try self.writer.execute(.rename(id, name: "zz-renamed-\(id).iso")) },
                { try self.writer.execute(.rename(id, name: original)) },
            ])
        let size = writer.list.tasks[id]?.size ?? 1_000_000
        let resolve = { (s: Int64) in
            _ = try self.writer.record(
                .transferResolved(
                    id: id, size: s, serverName: nil, validator: "\"etag-\(id)\"", acceptsRanges: true,
                    restartedFromZero: nil))
        }
        (out["resolved"], out["resolved.model"]) = try timed(
            sort: .size, [{ try resolve(size * 40) }, { try resolve(size) }])
        (out["finishedAgain"], out["finishedAgain.model"]) = try timed(
            sort: .finished,
            [
                { try self.writer.execute(.redownload(.tasks([id]))) },
                {
                    _ = try self.writer.record(
                        .transferCompleted(
                            id: id, bytes: size, sha256: String(repeating: "ab", count: 32),
                            fileName: original))
                },
            ])
        (out["restore"], out["restore.model"]) = try timed(
            sort: .added, only: 1,
            [
                { try self.writer.execute(.delete(.tasks([id]), mode: .record)) },
                { try self.writer.execute(.restore([id], to: nil)) },
            ])
        (out["manualFiltered"], out["manualFiltered.model"]) = try timed(
            sort: .manual, filter: .unfinished,
            [
                {
                    let added = self.writer.list.nextID
                    try self.writer.execute(
                        .add(
                            urls: ["https://example.com/ui-bench-filtered-\(added).bin"], placement: .end,
                            name: nil, sha256: nil, directory: nil))
                },
                { try self.writer.execute(.delete(.tasks([self.writer.list.nextID - 1]), mode: .record)) },
            ])
        (out["move"], out["move.model"]) = try timed(
            sort: .manual, filter: .finished,
            [
                { try self.writer.execute(.move([id], to: Location(section: 1, index: 0))) },
                { try self.writer.execute(.move([id], to: Location(section: 0, index: Int(id - 1)))) },
            ])
        setFilter(.all)
        return out
    }

    /// The median of what following each of `steps` costs (each appends an event, and the screen follows it), five
    /// times over, in a view sorted by `sort` and filtered by `filter`; with `only`, that step's alone. `model` is
    /// the screen model's part (counts, rows, lines), the rest the ledger's (refresh, fold, log).
    private func timed(
        sort: SortMode, filter: TaskFilter = .all, only: Int? = nil, _ steps: [() throws -> Void]
    ) throws -> (all: Double, model: Double) {
        if writer.list.sortMode != sort { try writer.execute(.sort(sort, descending: false)) }
        _ = try follow()
        setFilter(filter)
        var times: [Double] = []
        var models: [Double] = []
        for _ in 0..<5 {
            for (n, step) in steps.enumerated() {
                try step()
                let t = try follow()
                if only == nil || only == n {
                    times.append(t.all)
                    models.append(t.model)
                }
            }
        }
        return (StoreBench.median(times), StoreBench.median(models))
    }

    func setFilter(_ filter: TaskFilter) {
        for _ in 0..<5 where model.filter != filter { _ = model.handle(.char("f")) }
    }
}
