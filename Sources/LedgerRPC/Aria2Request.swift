/// A POST body or WebSocket message read once (``Aria2Service/read(_:)``), off the socket thread: each request
/// object read into its call (id, method, parameters), or the error that answers the body unanswered. The server
/// reads it on a worker, learns from ``onlyReads`` where to run it, and hands the same value on to be answered:
/// nothing is parsed or looked up twice.
public struct Aria2Request: Sendable {
    enum Content: Sendable {
        /// The calls of one request object (`batch` false, one call) or of a batch (never empty).
        case calls([Call], batch: Bool)
        /// Answered with this error and `id` null: not JSON, too deep, too many calls, an empty batch, or too
        /// large without the secret.
        case refused(RPCError)
    }

    /// One request object as read: its id, and its method and parameters or the error it is answered with.
    struct Call: Sendable {
        enum Target: Sendable {
            case method(String, params: [RPCValue])
            /// Not an object naming a method, or `params` not an array.
            case invalid(RPCError)
        }

        var id: RPCValue
        var target: Target

        /// The calls it makes: 1, plus the entries of a `system.multicall`.
        var count: Int {
            guard case .method("system.multicall", let params) = target, let calls = params.last?.arrayValue
            else { return 1 }
            return 1 + calls.count
        }

        /// Whether it only reads (``Aria2Service/readMethods``): an invalid call reads nothing either.
        var onlyReads: Bool {
            guard case .method(let method, let params) = target else { return true }
            guard method == "system.multicall" else { return Aria2Service.isRead(method) }
            guard let calls = params.last?.arrayValue else { return true }
            return calls.allSatisfy { call in
                guard case .string(let name)? = call["methodName"] else { return true }
                return Aria2Service.isRead(name)
            }
        }
    }

    let content: Content
    /// Whether every call only reads (``Aria2Service/readMethods``); a refused request reads nothing either.
    public let onlyReads: Bool
    /// How many calls it makes (batch entries and `system.multicall` entries), 0 when refused.
    public let calls: Int

    /// A request refused whole, answered with `error`.
    static func refused(_ error: RPCError) -> Aria2Request {
        Aria2Request(content: .refused(error), onlyReads: true, calls: 0)
    }

    /// The error it is answered with, unanswered, when it was refused; nil for one that is answered call by call.
    public var refusal: RPCError? {
        if case .refused(let error) = content { return error }
        return nil
    }
}
