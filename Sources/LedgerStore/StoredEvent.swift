/// An event as the log holds it: its place in the log, its commit time and its link in the hash chain.
public struct StoredEvent: Sendable, Equatable {
    /// Position in the log: 1, 2, 3… without gaps.
    public var seq: Int64
    /// Commit time in milliseconds since the Unix epoch; never decreases along the log.
    public var time: Int64
    public var kind: String
    public var version: Int
    public var tasks: [Int64]
    public var payload: [UInt8]
    /// SHA-256 of the previous event's hash followed by this event's canonical bytes (see docs/store.md).
    public var hash: [UInt8]

    public init(
        seq: Int64, time: Int64, kind: String, version: Int, tasks: [Int64], payload: [UInt8], hash: [UInt8]
    ) {
        self.seq = seq
        self.time = time
        self.kind = kind
        self.version = version
        self.tasks = tasks
        self.payload = payload
        self.hash = hash
    }
}

/// A borrowed view of one event for streaming replay.
///
/// The buffers point into the store's memory and are valid only inside the `scan` callback: copy what you keep.
public struct RawEventView {
    public let seq: Int64
    public let time: Int64
    /// The kind's UTF-8 bytes.
    public let kind: UnsafeRawBufferPointer
    /// The payload bytes.
    public let payload: UnsafeRawBufferPointer

    public init(seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        self.seq = seq
        self.time = time
        self.kind = kind
        self.payload = payload
    }
}
