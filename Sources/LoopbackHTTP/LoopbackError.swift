import Glibc

/// A system call that failed while setting the server up.
public struct LoopbackError: Error, CustomStringConvertible, Equatable {
    /// The failing call, e.g. `bind`.
    public var call: String
    /// Its `errno`.
    public var code: Int32

    /// The failure of `call` with `errno` `code`.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The failure of `call` with the current `errno`.
    static func last(_ call: String) -> LoopbackError {
        LoopbackError(call: call, code: errno)
    }

    public var description: String {
        "loopback server: \(call) failed: \(String(cString: strerror(code)))"
    }
}
