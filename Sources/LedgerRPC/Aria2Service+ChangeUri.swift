import DownloadLedger
import LedgerCore

extension Aria2Service {
    /// `changeUri(gid, fileIndex, delUris, addUris[, position])`: a task's URIs are its own URL and its mirrors,
    /// so this changes the mirrors, as one `taskOptionsChanged` event (undoable, validated as `add --mirror` is).
    /// Each URI of `delUris` removes one occurrence; `addUris` go in at `position` of the whole list (after the
    /// task's own URL, which names the task and cannot be removed or moved), or at the end. Returns
    /// `[deleted, added]`, as aria2 does. A refusal appends nothing.
    func changeUri(_ p: RPCParams) throws -> RPCValue {
        let (task, trashed) = try task(try p.string(0))
        let index = try p.int(1, in: 0...Int64(Int32.max))
        guard index == 1 else {
            throw RPCError.failed("fileIndex \(index) is out of range: the download has 1 file")
        }
        guard let deletions = try p.strings(2) else {
            throw RPCError.invalidParams("The parameter at 2 is missing.")
        }
        guard let additions = try p.strings(3) else {
            throw RPCError.invalidParams("The parameter at 3 is missing.")
        }
        let position = try p.optionalInt(4, in: 0...Int64(Int32.max))
        if trashed { throw RPCError.failed("GID#\(GID.of(task.id)) is in the to-delete list") }

        var mirrors = task.options.mirrors
        var deleted = 0
        for uri in deletions {
            if uri == task.url {
                throw RPCError.failed(
                    "the download's own URI cannot be removed (it names the task); only its mirrors can")
            }
            guard let at = mirrors.firstIndex(of: uri) else { continue }
            mirrors.remove(at: at)
            deleted += 1
        }
        // Position 0 would go before the task's own URL, which stays first: the mirrors start at 1.
        let at = position.map { min(max(Int($0) - 1, 0), mirrors.count) } ?? mirrors.count
        mirrors.insert(contentsOf: additions, at: at)
        var options = task.options
        options.mirrors = mirrors
        if options != task.options { _ = try execute(.setOptions(task.id, options)) }
        return .array([.int(Int64(deleted)), .int(Int64(additions.count))])
    }
}
