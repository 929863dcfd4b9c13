import DownloadLedger
import LedgerTransfer

/// Encoded results of the reads front ends poll, by method and parameters, each with what it was computed
/// from: the list's head and, for the reads that show progress, the transfers' activity.
///
/// AriaNg and its like ask the same `tellWaiting(0, 1000)` several times a second per open page; while the list
/// and the transfers stand still, the answer is the same bytes, so it is encoded once. An entry serves only a
/// call whose inputs are unchanged, so an answer is never older than an uncached one would be.
struct ReplyCache {
    struct Entry {
        var head: Int64
        var activity: [TransferActivity]?
        /// The wall-clock second it was computed in, when a transfer waits to retry: its message counts the
        /// seconds down (`retrying in 4 s`), so the answer changes every second while nothing else does.
        var second: Int64?
        var bytes: [UInt8]
    }

    var entries: [String: Entry] = [:]
    /// The bytes the entries hold.
    var bytes = 0
    /// Distinct calls kept at most (parameters vary little in practice; a client varying them on purpose only
    /// empties the cache more often).
    static let limit = 64
    /// Bytes kept at most: a long list's replies are large, and a client varying parameters on purpose must not
    /// fill 64 entries with them.
    static let byteLimit = 8 << 20

    /// Keeps `entry` for `key`, emptying the cache first when it would hold too many entries or bytes.
    mutating func keep(_ entry: Entry, for key: String) {
        if let old = entries.removeValue(forKey: key) { bytes -= old.bytes.count }
        guard entry.bytes.count <= Self.byteLimit else { return }
        if entries.count >= Self.limit || bytes + entry.bytes.count > Self.byteLimit {
            entries = [:]
            bytes = 0
        }
        entries[key] = entry
        bytes += entry.bytes.count
    }
}

extension Aria2Service {
    /// Reads decided by the list alone.
    static let cachedByHead: Set<String> = ["aria2.tellWaiting", "aria2.tellStopped"]
    /// Reads decided by the list and the transfers' activity.
    static let cachedByActivity: Set<String> = [
        "aria2.tellActive", "aria2.getGlobalStat", "aria2.tellStatus",
    ]

    /// The encoded result of an allowed call of a cached read: kept when neither the list nor (for those that
    /// show it) the activity changed since, else computed and kept. Nil for every other call, and for a call that
    /// fails (the caller then answers it as usual).
    func cachedResult(_ method: String, _ raw: [RPCValue]) -> [UInt8]? {
        let byActivity = Self.cachedByActivity.contains(method)
        guard byActivity || Self.cachedByHead.contains(method), let handler = Self.methods[method],
            let params = authorized(method, raw)
        else { return nil }
        // Read before the result is computed: the result is at least as new as what the entry is filed under,
        // so a later call with the same inputs may take it, and one with newer inputs computes afresh.
        let head = ledger.latestList.head
        let activity = byActivity ? activity() : nil
        let second =
            activity?.contains { $0.retry != nil } == true ? Int64(RetryWait.wallClock().rounded(.down)) : nil
        let key = method + "\u{0}" + String(decoding: RPCValue.array(params).bytes(), as: UTF8.self)
        if let entry = replies.withLock({ $0.entries[key] }), entry.head == head, entry.activity == activity,
            entry.second == second
        {
            return entry.bytes
        }
        guard case .success(let result) = run(handler, params) else { return nil }
        let bytes = result.bytes()
        let entry = ReplyCache.Entry(head: head, activity: activity, second: second, bytes: bytes)
        replies.withLock { $0.keep(entry, for: key) }
        return bytes
    }
}
