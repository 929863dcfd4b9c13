/// An error answered to a call: JSON-RPC 2.0's codes for malformed requests, aria2's code 1 for the rest.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// A request that is not JSON.
    public static let parse = RPCError(code: -32700, message: "Parse error.")
    /// JSON that is not a JSON-RPC request.
    public static let invalidRequest = RPCError(code: -32600, message: "Invalid Request.")
    /// JSON nested deeper than ``RPCValue/maxDepth``: refused before it is decoded.
    public static let tooDeep = RPCError(
        code: -32600, message: "Invalid Request: JSON nested deeper than \(RPCValue.maxDepth) levels.")

    /// A request making more than ``Aria2Service/maxCalls`` calls.
    public static func tooManyCalls(_ count: Int) -> RPCError {
        RPCError(
            code: -32600,
            message: "Invalid Request: \(count) calls in one request (at most \(Aria2Service.maxCalls)).")
    }

    /// A missing or wrong `token:` secret (aria2's code and words).
    public static let unauthorized = RPCError(code: 1, message: "Unauthorized")

    /// A method nobody serves.
    public static func noSuchMethod(_ name: String) -> RPCError {
        RPCError(code: -32601, message: "No such method: \(name)")
    }

    /// Parameters of the wrong count, type or range.
    public static func invalidParams(_ message: String) -> RPCError {
        RPCError(code: -32602, message: message)
    }

    /// Anything else aria2 answers with its generic code 1.
    public static func failed(_ message: String) -> RPCError {
        RPCError(code: 1, message: message)
    }

    /// The error object of a reply.
    var value: RPCValue {
        .object([("code", .int(Int64(code))), ("message", .string(message))])
    }
}
