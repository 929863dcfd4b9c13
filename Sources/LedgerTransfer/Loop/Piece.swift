/// One range of a segmented transfer, fetched by one connection: bytes `start..<end`, received up to ``position``.
/// Confined to the loop thread.
///
/// The connection's body bytes are gathered in `buffer` (``Segments/chunkSize``) and written at ``written`` when it
/// is full, as a sequential transfer gathers its own; the piece map is updated after each write.
final class Piece {
    let start: Int64
    /// The exclusive end; moved down when another connection takes over the rest (``Segments/nextRange(now:freed:)``).
    var end: Int64
    /// Bytes before this offset are in the file (and in the piece map).
    var written: Int64
    /// Bytes gathered in `buffer`, not yet written: they follow ``written``.
    var staged = 0
    /// Where the bytes are gathered, while the piece has a connection.
    var buffer: UnsafeMutableRawBufferPointer?
    /// When the connection was started (monotonic seconds), for its speed.
    let startedAt: Double
    /// When its last byte arrived (the start until one did).
    var lastByteAt: Double
    /// The connection fetching the piece (the piece owns it while it runs); nil once it ended. The attempt holds the
    /// piece too: the loop breaks the cycle when it takes the request off the multi handle.
    var attempt: Attempt?
    /// Which source serves it (an index into ``Segments/sources``).
    let source: Int

    init(start: Int64, end: Int64, startedAt: Double, source: Int) {
        self.start = start
        self.end = end
        self.written = start
        self.startedAt = startedAt
        self.lastByteAt = startedAt
        self.source = source
    }

    /// The offset of the next byte to receive.
    var position: Int64 { written + Int64(staged) }

    /// Bytes still to receive.
    var remaining: Int64 { max(end - position, 0) }

    /// Bytes received since the connection started.
    var received: Int64 { position - start }

    /// Average speed of the connection so far (bytes per second); its first 50 ms count as 50 ms.
    func speed(at now: Double) -> Double {
        Double(received) / max(now - startedAt, 0.05)
    }

    /// Seconds a connection may go without a byte before it counts as stalled (a new one: without its first).
    static let stallTime = 1.0

    /// Whether its connection has stalled: no byte for ``stallTime``.
    func isStalled(at now: Double) -> Bool {
        remaining > 0 && now - lastByteAt > Self.stallTime
    }

    /// Seconds the rest would take at the connection's speed so far (a stalled one: very long).
    func eta(at now: Double) -> Double {
        Double(remaining) / max(speed(at: now), 1)
    }
}
