import Dispatch
import LedgerCore
import LedgerStore

/// The events after a snapshot, decoded on another thread while the snapshot itself is read and decoded (issue 24
/// §1: a read command on a big list with thousands of small events after its snapshot spent a third of its time
/// decoding them after the snapshot, one core idle). The rows are copied out of the store on the caller's thread,
/// in one read; only the decoding moves. A fold then applies them in order (``LedgerLog/eachEntry(_:after:through:tail:_:)``)
/// and reads whatever came after them from the store as before.
///
/// The other thread only reads `rows` and `bytes` and writes `decoded` before it signals; the caller reads
/// `decoded` after the wait. That discipline is what makes the `@unchecked Sendable` sound.
final class TailDecoding: @unchecked Sendable {
    /// Tails shorter than this are decoded in line, as they are read: handing them over costs more than it saves.
    static let minimumEvents: Int64 = 1000
    /// At most this many events, and this many bytes of payloads, are read ahead; the fold reads the rest.
    static let maximumEvents = 50_000
    static let maximumBytes = 16 << 20

    /// The seq the tail starts after (the snapshot's).
    let after: Int64
    /// The seq of the last event read ahead.
    private(set) var last: Int64

    private struct Row {
        let seq: Int64
        let time: Int64
        let kind: Range<Int>
        let payload: Range<Int>
    }

    private var rows: [Row] = []
    private var bytes: [UInt8] = []
    private var decoded: [Result<Entry, LedgerOpenError>] = []
    private let done = DispatchSemaphore(value: 0)
    private var waited = false

    /// Reads the events after `after` through `through` (nil: the head; at most ``maximumEvents``) and starts
    /// decoding them; nil when they are fewer than ``minimumEvents``.
    static func start(_ store: any EventStore, after: Int64, through: Int64?) throws -> TailDecoding? {
        // Seqs have no gaps: the bound says how many there are (the callers' `through` is a head they read; the
        // head is asked only when they give none). A bound past the head only reads fewer rows.
        guard try (through ?? store.head()) - after >= minimumEvents else { return nil }
        let tail = TailDecoding(after: after)
        try tail.read(store, through: through)
        guard !tail.rows.isEmpty else { return nil }
        // A serial queue of its own runs on a thread of its own even while every thread of the global queues waits
        // (as the caller may, in `forEach`, on a thread of the global queue).
        DispatchQueue(label: "DownloadLedger.tail-decoding").async { [tail] in
            tail.decode()
            tail.done.signal()
        }
        return tail
    }

    private init(after: Int64) {
        self.after = after
        self.last = after
    }

    /// Copies the rows out of the store, stopping at the limits: the scan's `body` throws to stop it.
    private func read(_ store: any EventStore, through: Int64?) throws {
        struct Enough: Error {}
        do {
            try store.scan(after: after, through: through) { view in
                guard rows.count < Self.maximumEvents, bytes.count < Self.maximumBytes else { throw Enough() }
                let kindStart = bytes.count
                bytes.append(contentsOf: view.kind)
                let payloadStart = bytes.count
                bytes.append(contentsOf: view.payload)
                rows.append(
                    Row(
                        seq: view.seq, time: view.time, kind: kindStart..<payloadStart,
                        payload: payloadStart..<bytes.count))
                last = view.seq
            }
        } catch is Enough {}
    }

    private func decode() {
        decoded.reserveCapacity(rows.count)
        bytes.withUnsafeBytes { all in
            for row in rows {
                do {
                    let entry = try Entry.decode(
                        kind: UnsafeRawBufferPointer(rebasing: all[row.kind]),
                        payload: UnsafeRawBufferPointer(rebasing: all[row.payload]))
                    decoded.append(.success(entry))
                } catch {
                    decoded.append(.failure(.unreadableEvent(seq: row.seq, detail: "\(error)")))
                }
            }
        }
    }

    /// Each event read ahead, in seq order, with its payload's length; waits for the decoding. A row that did not
    /// decode throws, as a fold that read it would have.
    /// `through`: none after this seq (nil: all).
    func forEach(through: Int64?, _ body: (LoggedEntry, _ payloadLength: Int) throws -> Void) throws {
        if !waited {
            done.wait()
            waited = true
        }
        for (row, entry) in zip(rows, decoded) {
            if let through, row.seq > through { return }
            try body(LoggedEntry(seq: row.seq, time: row.time, entry: try entry.get()), row.payload.count)
        }
    }
}

extension LedgerLog {
    /// Each event after `after` through `through` (nil: the head), in seq order, with its payload's length: those
    /// `tail` read ahead when it starts at `after`, then the rest from the store. An event that does not decode
    /// throws ``LedgerOpenError/unreadableEvent(seq:detail:)`` once the ones before it were handed over.
    static func eachEntry(
        _ store: any EventStore, after: Int64, through: Int64?, tail: TailDecoding?,
        _ body: (LoggedEntry, _ payloadLength: Int) throws -> Void
    ) throws {
        var from = after
        if let tail, tail.after == after {
            try tail.forEach(through: through, body)
            from = min(tail.last, through ?? tail.last)
        }
        try store.scan(after: from, through: through) { view in
            let entry: Entry
            do {
                entry = try Entry.decode(kind: view.kind, payload: view.payload)
            } catch {
                throw LedgerOpenError.unreadableEvent(seq: view.seq, detail: "\(error)")
            }
            try body(LoggedEntry(seq: view.seq, time: view.time, entry: entry), view.payload.count)
        }
    }
}
