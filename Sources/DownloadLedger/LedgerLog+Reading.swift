import Foundation

/// The reads every other one is built on, on any store: decoding stored events, folding the log onto a list, and
/// where a fold starts (the latest readable snapshot).
extension LedgerLog {
    /// Decodes stored events.
    static func logged(_ stored: [StoredEvent]) throws -> [LoggedEntry] {
        try stored.map { e in
            do {
                return LoggedEntry(
                    seq: e.seq, time: e.time, entry: try Entry.decode(kind: e.kind, payload: e.payload))
            } catch {
                throw LedgerOpenError.unreadableEvent(seq: e.seq, detail: "\(error)")
            }
        }
    }

    /// The events of `store` after `after` (a seq), at most `limit`, decoded.
    static func events(in store: any EventStore, after: Int64, limit: Int?) throws -> [LoggedEntry] {
        try logged(try store.events(after: after, through: nil, limit: limit))
    }

    /// The list as it was after event `seq` of `store`: the nearest snapshot at or before it, then the log. Its
    /// undo steps read the actions a snapshot holds by reference through `reader`.
    static func list(in store: any EventStore, through seq: Int64, reader: LoggedEventReader?) throws
        -> DownloadList
    {
        var (list, tail) = try startingPointReadingAhead(store, atOrBefore: seq, through: seq, reader: reader)
        try fold(store, into: &list, through: seq, tail: tail)
        return list
    }

    /// ``list(in:through:reader:)`` for words about events that name only `whole` (`dledger log`): every other task
    /// is kept as its figures, and only when an event folded before `seq` names it (the fold reads no other task);
    /// the sections, the to-delete list and (with `keepingUndo`) the undo history are the whole list's.
    static func list(
        in store: any EventStore, through seq: Int64, keepingWhole whole: Set<TaskID>,
        keepingUndo: Bool = true,
        reader: LoggedEventReader?
    ) throws -> DownloadList {
        var (list, tail) = try startingPointReadingAhead(
            store, atOrBefore: seq, through: seq, reader: reader, keepingOnly: DownloadList.noTask,
            keepingWhole: whole, namesAfter: { try store.tasksNamed(after: $0, through: seq) })
        try fold(store, into: &list, through: seq, keepingUndo: keepingUndo, tail: tail)
        return list
    }

    /// The connections of each running transfer among `ids`, as the log last recorded them (see
    /// ``Ledger/loggedConnections(of:)``), read from each task's audit trail as of `list`.
    static func loggedConnections(of ids: [TaskID], in store: any EventStore, list: DownloadList) throws
        -> [TaskID: Int]
    {
        var counts: [TaskID: Int] = [:]
        for id in ids {
            let trail = try auditTrail(id, in: store, head: list.head, counted: list.eventCounts[id])
            for logged in trail.entries.reversed() {
                if case .transferStarted = logged.entry.event { break }
                if case .transferConnections(_, let count, _) = logged.entry.event {
                    counts[id] = count
                    break
                }
            }
        }
        return counts
    }

    /// Folds the events after the list's head (through `through`) into it; with `actions`, its undo history holds
    /// the actions by reference to the log (``DownloadList/apply(_:actionsLoggedIn:keepingUndo:)``); without
    /// `keepingUndo`, it is not kept up (a list only looked at).
    /// - Returns: the replay work done (``Ledger/work(of:payload:liveCount:)`` of each event).
    /// With `tail` (read ahead by ``startingPointReadingAhead(_:atOrBefore:through:reader:keepingOnly:keepingWhole:tail:namesAfter:)``),
    /// its events are folded without reading them again when it starts at the list's head.
    @discardableResult
    static func fold(
        _ store: any EventStore, into list: inout DownloadList, through: Int64?,
        actionsLoggedIn actions: LoggedEventReader? = nil, keepingUndo: Bool = true, tail: TailDecoding? = nil
    ) throws -> Int {
        var work = 0
        try eachEntry(store, after: list.head, through: through, tail: tail) { logged, payloadLength in
            list.apply(logged, actionsLoggedIn: actions, keepingUndo: keepingUndo)
            work += Ledger.work(of: logged.entry.event, payload: payloadLength, liveCount: list.liveCount)
        }
        return work
    }

    /// The latest readable snapshot at or before `seq` (nil: any), else the empty list: where a fold starts.
    /// A snapshot that cannot be read, or that disagrees with its own seq, is skipped: it is only a cache.
    /// Its undo steps read their logged actions back through `reader` when asked; without one (a list only counted
    /// or compared, never handed out) such a step is unreadable if it ever is asked.
    /// With `keepingOnly`, every other task is read as its id and state alone (``DownloadList/init(snapshot:reader:keepingOnly:statesOf:keepingWhole:)``);
    /// with `tail` too, when the snapshot read is the one at `tail.after`, only the tasks `tail.names` (those the
    /// events to be folded onto it name) are kept so; with `namesAfter` instead, the tasks it gives for the seq of
    /// the snapshot read (nil: all of them), asked while that snapshot is read (it is found and its seal checked
    /// once). `keepingWhole`: tasks read whole besides `keepingOnly`.
    static func startingPoint(
        _ store: any EventStore, atOrBefore seq: Int64?, reader: LoggedEventReader?,
        keepingOnly: TaskID? = nil, keepingWhole: Set<TaskID>? = nil,
        tail: (after: Int64, names: Set<TaskID>)? = nil, namesAfter: ((Int64) throws -> Set<TaskID>?)? = nil
    ) throws -> DownloadList {
        var ahead: TailDecoding?
        return try startingPoint(
            store, atOrBefore: seq, reader: reader, keepingOnly: keepingOnly, keepingWhole: keepingWhole,
            tail: tail, namesAfter: namesAfter, readingAhead: nil, into: &ahead)
    }

    /// ``startingPoint(_:atOrBefore:reader:keepingOnly:keepingWhole:tail:namesAfter:)``, with the events after the
    /// snapshot it reads (through `through`, nil: the head) read ahead and decoded on another thread while the
    /// snapshot is decoded (``TailDecoding``), for the ``fold(_:into:through:actionsLoggedIn:keepingUndo:tail:)``
    /// that follows.
    static func startingPointReadingAhead(
        _ store: any EventStore, atOrBefore seq: Int64?, through: Int64?, reader: LoggedEventReader?,
        keepingOnly: TaskID? = nil, keepingWhole: Set<TaskID>? = nil,
        tail: (after: Int64, names: Set<TaskID>)? = nil, namesAfter: ((Int64) throws -> Set<TaskID>?)? = nil
    ) throws -> (list: DownloadList, tail: TailDecoding?) {
        var ahead: TailDecoding?
        let list = try startingPoint(
            store, atOrBefore: seq, reader: reader, keepingOnly: keepingOnly, keepingWhole: keepingWhole,
            tail: tail, namesAfter: namesAfter, readingAhead: .some(through), into: &ahead)
        return (list, ahead)
    }

    private static func startingPoint(
        _ store: any EventStore, atOrBefore seq: Int64?, reader: LoggedEventReader?,
        keepingOnly: TaskID?, keepingWhole: Set<TaskID>?,
        tail: (after: Int64, names: Set<TaskID>)?, namesAfter: ((Int64) throws -> Set<TaskID>?)?,
        readingAhead: Int64??, into ahead: inout TailDecoding?
    ) throws -> DownloadList {
        let cached = try store.withLatestSnapshot(
            reducerVersion: DownloadList.reducerVersion, atOrBefore: seq
        ) {
            seq, bytes -> DownloadList? in
            // Read before the snapshot is decoded, so that both decode at once.
            if case .some(let through) = readingAhead {
                ahead = try TailDecoding.start(store, after: seq, through: through)
            }
            let names = try tail.map { $0.after == seq ? $0.names : nil } ?? namesAfter?(seq)
            guard
                let list = try? DownloadList(
                    snapshot: bytes, reader: reader, keepingOnly: keepingOnly, statesOf: names,
                    keepingWhole: keepingWhole),
                list.head == seq
            else {
                return nil
            }
            return list
        }
        return (cached ?? nil) ?? DownloadList()
    }

    /// For a replay that is only compared (``verify(_:checkFiles:checksums:opening:)``): its undo steps keep their
    /// actions by reference, as a snapshot does, and are never read back (a comparison of steps reads nothing).
    static let comparedOnly = LoggedEventReader { _ in nil }
}
