import DownloadLedger
import Foundation
import Synchronization

/// aria2's JSON-RPC methods over a ledger: a request in, a reply out, no sockets.
///
/// Every call that changes the list runs the same `Command` as the CLI (one event, validated, nothing appended
/// when refused); every read answers from the projection and the transfers' activity.
///
/// ```swift
/// let service = Aria2Service(ledger: ledger, secret: "s3cret", activity: { scheduler.currentActivity() })
/// let reply = service.reply(to: Array(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#.utf8))
/// ```
public final class Aria2Service: Sendable {
    /// The aria2 release whose RPC this one follows (clients compare it to decide what to call).
    public static let aria2Version = "1.36.0"
    /// DownloadLedger's own version, reported beside it.
    public static let version = "0.1.0"
    /// What the events of RPC calls carry as their origin (`dledger log` and `audit` show it).
    public static let origin = "rpc"

    public let ledger: Ledger
    let activity: @Sendable () -> [TransferActivity]
    let secret: [UInt8]?
    /// Whether calls must carry the secret.
    public var hasSecret: Bool { secret != nil }
    /// A new random id per process, as aria2's `getSessionInfo` gives.
    public let sessionID: String
    let onShutdown: @Sendable (_ force: Bool) -> Void
    /// Folders a download may go to besides the ledger's (``confined(_:)``): the server's `--dir` and `--allow-dir`.
    let downloadRoots: [String]
    let settings: Mutex<Settings>
    /// Encoded results of reads, kept while the list and the activity they came from stay the same
    /// (`Aria2Service+Cache.swift`).
    let replies = Mutex(ReplyCache())

    /// What `changeGlobalOption` sets that the ledger does not keep.
    struct Settings {
        /// The directory of downloads added without `dir` (nil: the ledger's).
        var dir: String?
    }

    /// A reply: its bytes, and whether it is a single error (aria2 answers those with HTTP 400).
    public struct Reply: Sendable {
        public var bytes: [UInt8]
        public var isError: Bool
    }

    /// - Parameters:
    ///   - secret: the `--rpc-secret`; when set, every call but `system.listMethods` and
    ///     `system.listNotifications` must carry `"token:<secret>"` as its first parameter.
    ///   - activity: the running transfers' progress (the scheduler's), read on each call.
    ///   - onShutdown: called by `aria2.shutdown` (false) and `aria2.forceShutdown` (true).
    ///   - dir: the directory of downloads added without `dir` (aria2c's `--dir`; nil: the ledger's), until
    ///     `changeGlobalOption` sets another.
    ///   - allowedDirectories: folders besides the ledger's and `dir` that a `dir` given over RPC may be inside.
    public init(
        ledger: Ledger, secret: String? = nil,
        activity: @escaping @Sendable () -> [TransferActivity] = { [] },
        onShutdown: @escaping @Sendable (_ force: Bool) -> Void = { _ in },
        dir: String? = nil, allowedDirectories: [String] = []
    ) {
        downloadRoots = (dir.map { [$0] } ?? []) + allowedDirectories
        self.ledger = ledger
        self.secret = secret.map { Array($0.utf8) }
        self.activity = activity
        self.onShutdown = onShutdown
        var id = SystemRandomNumberGenerator()
        sessionID =
            (0..<5).map { _ in
                let hex = String(id.next() as UInt64, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined().prefix(40).description
        settings = Mutex(Settings(dir: dir))
        // Reads answer from `latestList`, which never waits for a commit: asked once now, the ledger keeps it
        // from the start (a first ask during a slow write would have to wait for it).
        _ = ledger.latestList
    }

    /// Answers a POST body or a WebSocket message: one request or a batch (an array of requests).
    public func reply(to body: [UInt8]) -> Reply {
        reply(to: read(body))
    }

    /// Answers a request ``read(_:)`` read.
    public func reply(to request: Aria2Request) -> Reply {
        switch request.content {
        case .refused(let error):
            return Reply(bytes: Self.envelope(id: .null, error: error), isError: true)
        case .calls(let calls, batch: false):
            return answer(calls[0])
        case .calls(let calls, batch: true):
            var out: [UInt8] = [UInt8(ascii: "[")]
            for (i, call) in calls.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out += answer(call).bytes
            }
            out.append(UInt8(ascii: "]"))
            return Reply(bytes: out, isError: false)
        }
    }

    /// Answers an HTTP GET: `?method=…&id=…&params=<base64 of the JSON array>`.
    public func reply(method: String?, id: String?, base64Params: String?) -> Reply {
        let idValue: RPCValue = id.map(RPCValue.string) ?? .null
        guard let method else {
            return Reply(bytes: Self.envelope(id: idValue, error: .invalidRequest), isError: true)
        }
        var params: [RPCValue] = []
        if let encoded = base64Params, !encoded.isEmpty {
            // Query strings turn an unescaped '+' into a space; base64 has no spaces.
            let text = encoded.replacingOccurrences(of: " ", with: "+")
            guard let data = Data(base64Encoded: Self.padded(text)), let parsed = RPCValue.parse(data),
                let array = parsed.arrayValue
            else {
                return Reply(bytes: Self.envelope(id: idValue, error: .parse), isError: true)
            }
            params = array
        }
        return respond(id: idValue, method: method, params: params)
    }

    private static func padded(_ s: String) -> String {
        let extra = s.utf8.count % 4
        return extra == 0 ? s : s + String(repeating: "=", count: 4 - extra)
    }

    /// One request object, as ``read(_:)`` read it.
    private func answer(_ call: Aria2Request.Call) -> Reply {
        switch call.target {
        case .invalid(let error): return Reply(bytes: Self.envelope(id: call.id, error: error), isError: true)
        case .method(let method, let params): return respond(id: call.id, method: method, params: params)
        }
    }

    private func respond(id: RPCValue, method: String, params: [RPCValue]) -> Reply {
        if let result = cachedResult(method, params) {
            return Reply(bytes: Self.envelope(id: id, encodedResult: result), isError: false)
        }
        switch call(method, params) {
        case .success(let result):
            return Reply(bytes: Self.envelope(id: id, result: result), isError: false)
        case .failure(let error):
            return Reply(bytes: Self.envelope(id: id, error: error), isError: true)
        }
    }

    /// Runs one call: the secret checked, the method found, its parameters read.
    public func call(_ method: String, _ raw: [RPCValue]) -> Result<RPCValue, RPCError> {
        guard let handler = Self.methods[method] else {
            if method == "system.multicall" { return multicall(raw) }
            return .failure(.noSuchMethod(method))
        }
        guard let params = authorized(method, raw) else { return .failure(.unauthorized) }
        return run(handler, params)
    }

    /// The parameters of a call its token allows, without the token; nil when the secret is wrong or missing.
    func authorized(_ method: String, _ raw: [RPCValue]) -> [RPCValue]? {
        var params = raw
        if case .string(let first)? = params.first, first.hasPrefix("token:") {
            params.removeFirst()
            guard let secret else { return params }
            return Self.same(Array(first.utf8.dropFirst(6)), secret) ? params : nil
        } else if secret != nil && !Self.open.contains(method) {
            return nil
        }
        return params
    }

    func run(_ handler: Handler, _ params: [RPCValue]) -> Result<RPCValue, RPCError> {
        do {
            return .success(try handler(self, RPCParams(params)))
        } catch let e as RPCError {
            return .failure(e)
        } catch {
            return .failure(.failed("\(error)"))
        }
    }

    /// `system.multicall([{methodName, params}, …])`: each result wrapped in an array, each error as an object.
    private func multicall(_ raw: [RPCValue]) -> Result<RPCValue, RPCError> {
        guard raw.count == 1, case .array(let calls) = raw[0] else {
            return .failure(.invalidParams("system.multicall takes one array of calls"))
        }
        var results: [RPCValue] = []
        for c in calls {
            guard case .string(let name)? = c["methodName"], name != "system.multicall" else {
                results.append(
                    RPCError.invalidParams("a call needs a methodName (not system.multicall)").value)
                continue
            }
            let params: [RPCValue]
            switch c["params"] {
            case nil, .null?: params = []
            case .array(let items)?: params = items
            default:
                results.append(RPCError.invalidParams("params must be an array").value)
                continue
            }
            switch call(name, params) {
            case .success(let v): results.append(.array([v]))
            case .failure(let e): results.append(e.value)
            }
        }
        return .success(.array(results))
    }

    /// Compares secrets in time that depends only on their lengths.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }

    static func envelope(id: RPCValue, result: RPCValue) -> [UInt8] {
        RPCValue.object([("id", id), ("jsonrpc", .string("2.0")), ("result", result)]).bytes()
    }

    /// The reply to `id` whose result is already encoded: the same bytes as ``envelope(id:result:)``.
    static func envelope(id: RPCValue, encodedResult: [UInt8]) -> [UInt8] {
        var out = Array(#"{"id":"#.utf8)
        out.reserveCapacity(encodedResult.count + 48)
        out += id.bytes()
        out += Array(#","jsonrpc":"2.0","result":"#.utf8)
        out += encodedResult
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func envelope(id: RPCValue, error: RPCError) -> [UInt8] {
        RPCValue.object([("id", id), ("jsonrpc", .string("2.0")), ("error", error.value)]).bytes()
    }
}
