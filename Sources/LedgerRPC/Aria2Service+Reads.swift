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
    /// refused when it is not JSON or makes more than ``maxCalls`` calls; else parsed, ready for
    /// ``reply(to:)-(Aria2Request)``.
    public func read(_ body: [UInt8]) -> Aria2Request {
        if let secret, body.count > Self.maxOpenBody, !Self.contains(body, Array("token:".utf8) + secret) {
            return Aria2Request(content: .refused(.unauthorized), onlyReads: true, calls: 0)
        }
        if body.withUnsafeBytes({ RPCValue.nests($0, deeperThan: RPCValue.maxDepth) }) {
            return Aria2Request(content: .refused(.tooDeep), onlyReads: true, calls: 0)
        }
        guard let document = RPCValue.parse(body) else {
            return Aria2Request(content: .refused(.parse), onlyReads: true, calls: 0)
        }
        let calls = Self.calls(in: document)
        guard calls <= Self.maxCalls else {
            return Aria2Request(content: .refused(.tooManyCalls(calls)), onlyReads: true, calls: 0)
        }
        return Aria2Request(content: .document(document), onlyReads: Self.onlyReads(document), calls: calls)
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

    /// The calls a document makes: one per request object, plus the entries of each `system.multicall`.
    private static func calls(in document: RPCValue) -> Int {
        func count(_ request: RPCValue) -> Int {
            guard case .string("system.multicall")? = request["method"],
                case .array(let params)? = request["params"], let calls = params.last?.arrayValue
            else { return 1 }
            return 1 + calls.count
        }
        if case .array(let requests) = document { return requests.reduce(0) { $0 + count($1) } }
        return count(document)
    }

    private static func onlyReads(_ request: RPCValue) -> Bool {
        switch request {
        case .array(let requests):
            return requests.allSatisfy(onlyReads)
        default:
            guard case .string(let method)? = request["method"] else { return true }
            if method == "system.multicall" {
                guard case .array(let params)? = request["params"], let calls = params.last?.arrayValue else {
                    return true
                }
                return calls.allSatisfy { call in
                    guard case .string(let name)? = call["methodName"] else { return true }
                    return isRead(name)
                }
            }
            return isRead(method)
        }
    }
}
