/// An event to append: its kind, payload format version, the tasks it touches and its encoded payload.
///
/// The store never looks inside `payload`: LedgerCore encodes it (compact UTF-8 JSON), the store keeps the bytes.
public struct NewEvent: Sendable, Equatable {
    /// The event's name, e.g. `tasksAdded`.
    public var kind: String
    /// The format version of this kind's payload (expected to fit in 32 bits).
    public var version: Int
    /// Ids of the tasks the event touches, for the audit trail (`events(touching:)`).
    public var tasks: [Int64]
    /// The encoded event.
    public var payload: [UInt8]

    public init(kind: String, version: Int, tasks: [Int64], payload: [UInt8]) {
        self.kind = kind
        self.version = version
        self.tasks = tasks
        self.payload = payload
    }
}
