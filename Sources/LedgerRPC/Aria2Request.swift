/// A POST body or WebSocket message read once (``Aria2Service/read(_:)``), off the socket thread: the parsed
/// document, or the error that answers it unparsed or unanswered. The server reads it on a worker, learns from
/// ``onlyReads`` where to run it, and hands the same value on to be answered: nothing is parsed twice.
public struct Aria2Request: Sendable {
    enum Content: Sendable {
        case document(RPCValue)
        /// Answered with this error and `id` null: not JSON, too deep, too many calls, or too large without
        /// the secret.
        case refused(RPCError)
    }

    let content: Content
    /// Whether every call only reads (``Aria2Service/readMethods``); a refused request reads nothing either.
    public let onlyReads: Bool
    /// How many calls it makes (batch entries and `system.multicall` entries), 0 when refused.
    public let calls: Int

    /// The error it is answered with, unanswered, when it was refused; nil for one that is answered call by call.
    public var refusal: RPCError? {
        if case .refused(let error) = content { return error }
        return nil
    }
}
