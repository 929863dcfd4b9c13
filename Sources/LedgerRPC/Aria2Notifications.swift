import DownloadLedger

/// aria2's WebSocket notifications, derived from the ledger's events (so a change made by another `dledger`
/// process is notified as one made over RPC).
public enum Aria2Notifications {
    /// The notifications one logged event gives, in order: `(method, gid)`.
    public static func of(_ entry: LoggedEntry) -> [(method: String, gid: String)] {
        func each(_ method: String, _ ids: [TaskID]) -> [(method: String, gid: String)] {
            ids.map { ("aria2." + method, GID.of($0)) }
        }
        switch entry.entry.event {
        case .transferStarted(let id, _, _): return each("onDownloadStart", [id])
        case .tasksPaused(let ids), .tasksStopped(let ids): return each("onDownloadPause", ids)
        case .transferCompleted(let id, _, _, _, _, _, _): return each("onDownloadComplete", [id])
        case .transferFailed(let id, _, _): return each("onDownloadError", [id])
        case .tasksDeleted(let ids, _): return each("onDownloadStop", ids)
        default: return []
        }
    }

    /// The JSON-RPC notification message (no id).
    public static func message(method: String, gid: String) -> [UInt8] {
        RPCValue.object([
            ("jsonrpc", .string("2.0")), ("method", .string(method)),
            ("params", .array([.object([("gid", .string(gid))])])),
        ]).bytes()
    }

    /// Follows the ledger (its changes, from any process) and hands each notification's message to `send`,
    /// starting after the events already in the list. Ends when the task is cancelled.
    public static func follow(_ ledger: Ledger, send: @Sendable ([UInt8]) -> Void) async {
        var seen = ledger.list.head
        for await list in ledger.changes() {
            guard list.head > seen else { continue }
            guard let entries = try? ledger.log(after: seen) else { continue }
            for e in entries {
                for n in of(e) { send(message(method: n.method, gid: n.gid)) }
                seen = max(seen, e.seq)
            }
        }
    }
}
