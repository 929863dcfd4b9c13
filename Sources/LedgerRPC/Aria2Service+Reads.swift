import Foundation

extension Aria2Service {
    /// The methods answered from the list as last committed (``DownloadLedger/Ledger/latestList``) and the
    /// transfers' activity: they change nothing and never wait for a write, so a server may run them beside
    /// each other and beside a write that waits on its commit.
    public static let readMethods: Set<String> = [
        "aria2.tellStatus", "aria2.getUris", "aria2.getFiles", "aria2.getPeers", "aria2.getServers",
        "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped", "aria2.getGlobalStat",
        "aria2.getVersion", "aria2.getSessionInfo", "aria2.getOption", "aria2.getGlobalOption",
        "system.listMethods", "system.listNotifications", "dledger.sections",
    ]

    /// The most calls one request may make, counting a batch's entries and `system.multicall`'s. A front end
    /// sends a few at a time (AriaNg batches one per task it shows); a request of more is refused whole, so
    /// that one request cannot hold a worker for long.
    public static let maxCalls = 1000
    /// The largest body read when the server has a secret and the body does not carry it: what the open calls
    /// (`system.listMethods`, `system.listNotifications`) need, and no more, is parsed before the token is seen.
    public static let maxOpenBody = 64 << 10

    /// Whether `method` is one of ``readMethods``.
    public static func isRead(_ method: String) -> Bool { readMethods.contains(method) }

    /// Reads a POST body or a WebSocket message once: refused unparsed when it is larger than ``maxOpenBody``
    /// and the server has a secret it does not carry, or when it nests deeper than ``RPCValue/maxDepth``;
    /// refused when it is not JSON, is an empty batch or makes more than ``maxCalls`` calls; else each request
    /// object read into its call, ready for ``reply(to:)-(Aria2Request)``.
    public func read(_ body: [UInt8]) -> Aria2Request {
        if let secret, body.count > Self.maxOpenBody, !Self.contains(body, Array("token:".utf8) + secret) {
            return .refused(.unauthorized)
        }
        if body.withUnsafeBytes({ RPCValue.nests($0, deeperThan: RPCValue.maxDepth) }) {
            return .refused(.tooDeep)
        }
        guard let document = RPCValue.decode(Data(body)) else { return .refused(.parse) }
        var batch = false
        var objects = [document]
        if case .array(let items) = document {
            guard !items.isEmpty else { return .refused(.invalidRequest) }
            (batch, objects) = (true, items)
        }
        let calls = objects.map(Self.call)
        let count = calls.reduce(0) { $0 + $1.count }
        guard count <= Self.maxCalls else { return .refused(.tooManyCalls(count)) }
        return Aria2Request(
            content: .calls(calls, batch: batch), onlyReads: calls.allSatisfy(\.onlyReads), calls: count)
    }

    /// One request object read into its call: `{"id", "method", "params"}`, `params` absent, null or an array.
    static func call(_ request: RPCValue) -> Aria2Request.Call {
        let id = request["id"] ?? .null
        guard case .object = request, case .string(let method)? = request["method"] else {
            return .init(id: id, target: .invalid(.invalidRequest))
        }
        switch request["params"] {
        case nil, .null?: return .init(id: id, target: .method(method, params: []))
        case .array(let items)?: return .init(id: id, target: .method(method, params: items))
        default: return .init(id: id, target: .invalid(.invalidParams("params must be an array")))
        }
    }

    /// Whether `needle` occurs in `body` (a plain byte search: it only decides how much of an unauthorised body
    /// is read; the token itself is checked call by call, in constant time).
    static func contains(_ body: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, body.count >= needle.count else { return needle.isEmpty }
        return body.withUnsafeBytes { b in
            needle.withUnsafeBytes { n in
                var at = 0
                let last = b.count - n.count
                while at <= last {
                    guard let hit = memchr(b.baseAddress! + at, Int32(first), last - at + 1) else {
                        return false
                    }
                    at = b.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    if memcmp(b.baseAddress! + at, n.baseAddress!, n.count) == 0 { return true }
                    at += 1
                }
                return false
            }
        }
    }
}
