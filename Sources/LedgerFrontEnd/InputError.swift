/// Input a front end was given that it cannot read: a size, a rate, a time, an id out of range or not one at
/// all. The message is one line saying what is wrong and what is accepted; the CLI prints it as a usage error
/// (exit 64), the RPC as its invalid-parameter error.
///
/// ```swift
/// do { _ = try Format.parseSize("12Q") } catch { print(error) }  // not a size: '12Q' (e.g. 500M, …)
/// ```
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The one line shown to the user.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
