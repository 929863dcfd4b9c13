import Dispatch
import LedgerCore
import LedgerStore
import Synchronization

/// The events after a snapshot, decoded on another thread while the snapshot itself is read and decoded (issue 24
/// §1: a read command on a big list with thousands of small events after its snapshot spent a third of its time
/// decoding them after the snapshot, one core idle). The rows are copied out of the store on the caller's thread,
/// in one read; only the decoding moves. A fold then applies them in order (``LedgerLog/eachEntry(_:after:through:tail:_:)``)
/// and reads whatever came after them from the store as before.
///
/// The fold takes the events as they come: the other thread publishes how many it has decoded (`ready`, after
/// it wrote them) every ``batch`` events, and the fold waits only when it has caught up with that, instead of for
/// the whole tail (a fold of 5,000 moves after a snapshot of 100,000 tasks had waited 2 ms of its 30 for the last
/// of them).
///
/// The other thread only reads `rows` and `bytes` and writes `decoded[i]` before it publishes a count past `i`;
/// the caller reads `decoded[i]` only once it read such a count. That discipline is what makes the
/// `@unchecked Sendable` sound.
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
    /// One slot a row, written by the other thread: those below `ready` hold their entry.
    private var decoded: UnsafeMutablePointer<Result<Entry, LedgerOpenError>>?
    /// How many rows are decoded, published after their slots are written.
    private let ready = Atomic<Int>(0)
    /// Signalled each time `ready` moves.
    private let moved = DispatchSemaphore(value: 0)

    /// Events decoded between two counts published.
    static let batch = 128

    /// Reads the events after `after` through `through` (nil: the head; at most ``maximumEvents``) and starts
    /// decoding them; nil when they are fewer than ``minimumEvents``.
    static func start(_ store: any EventStore, after: Int64, through: Int64?) throws -> TailDecoding? {
        // Seqs have no gaps: the bound says how many there are (the callers' `through` is a head they read; the
        // head is asked only when they give none). A bound past the head only reads fewer rows.
        guard try (through ?? store.head()) - after >= minimumEvents else { return nil }
        let tail = TailDecoding(after: after)
        try tail.read(store, through: through)
        guard !tail.rows.isEmpty else { return nil }
        tail.decoded = .allocate(capacity: tail.rows.count)
        // A serial queue of its own runs on a thread of its own even while every thread of the global queues waits
        // (as the caller may, in `forEach`, on a thread of the global queue).
        DispatchQueue(label: "DownloadLedger.tail-decoding").async { [tail] in
            tail.decode()
        }
        return tail
    }

    private init(after: Int64) {
        self.after = after
        self.last = after
    }

    deinit {
        // The other thread holds this object until it has decoded every row: all slots are written.
        decoded?.deinitialize(count: rows.count)
        decoded?.deallocate()
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
        guard let decoded else { return }
        bytes.withUnsafeBytes { all in
            for (i, row) in rows.enumerated() {
                do {
                    let entry = try Entry.decode(
                        kind: UnsafeRawBufferPointer(rebasing: all[row.kind]),
                        payload: UnsafeRawBufferPointer(rebasing: all[row.payload]))
                    (decoded + i).initialize(to: .success(entry))
                } catch {
                    (decoded + i).initialize(to: .failure(.unreadableEvent(seq: row.seq, detail: "\(error)")))
                }
                if (i + 1) % Self.batch == 0 || i + 1 == rows.count {
                    ready.store(i + 1, ordering: .releasing)
                    moved.signal()
                }
            }
        }
    }

    /// Each event read ahead, in seq order, with its payload's length, as soon as it is decoded. A row that did
    /// not decode throws, as a fold that read it would have.
    /// `through`: none after this seq (nil: all).
    func forEach(through: Int64?, _ body: (LoggedEntry, _ payloadLength: Int) throws -> Void) throws {
        guard let decoded else { return }
        var available = 0
        for (i, row) in rows.enumerated() {
            if let through, row.seq > through { return }
            while i >= available {
                available = ready.load(ordering: .acquiring)
                // Every count published is signalled after it: a wait ends once the count moved past this row,
                // or at a signal left from an earlier count (then the count is read again).
                if i >= available { moved.wait() }
            }
            try body(
                LoggedEntry(seq: row.seq, time: row.time, entry: try decoded[i].get()), row.payload.count)
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
