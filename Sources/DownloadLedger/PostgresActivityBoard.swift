import Foundation
import LedgerStore
import LedgerTransfer
import Synchronization

/// The activity board of a ledger in PostgreSQL, shared by every host: one row per host name in the ledger's
/// unlogged `activity` table (migration 0005), the ``ActivityRecord`` text its downloader last published.
///
/// A downloader publishes with one upsert of its host's row on a connection of its own
/// (``PostgresActivityWriter``), naming the session that holds its run lock. Readers merge the rows of every
/// host whose downloader is alive — whose named session holds that host's run lock now (`pg_locks`): after a
/// `kill -9` the server ended the session and the row left behind no longer counts — on a connection they already
/// have (a ``Ledger``'s store, or one store for a one-shot command). A row that does not decode, or whose record
/// names another process than the row, is ignored.
///
/// ```swift
/// let live = ledger.activityBoard.read() ?? []    // every host's running transfers
/// ```
public final class PostgresActivityBoard: ActivityBoard {
    /// Where the reads run.
    private enum Source {
        /// On the ledger's store connection, under its lock.
        case ledger(Ledger)
        /// On a read-only store of its own, opened by the first read (a command without a ``Ledger``).
        case own(PostgresLocation)
    }

    private struct State {
        /// The store of an ``Source/own(_:)`` board, once opened.
        var store: PostgresEventStore?
        /// What publishes: nil for a board made to read.
        var writer: PostgresActivityWriter?
    }

    private let source: Source
    private let state: Mutex<State>
    /// The server's process of the session that holds this downloader's run lock now, for a publishing board.
    private let lockSession: (@Sendable () -> Int32?)?

    /// A board that reads on `ledger`'s store connection.
    public init(ledger: Ledger) {
        source = .ledger(ledger)
        state = Mutex(State())
        lockSession = nil
    }

    /// A board that reads on a read-only store of its own, connected by the first read.
    public init(location: PostgresLocation) {
        source = .own(location)
        state = Mutex(State())
        lockSession = nil
    }

    /// The board `ledger`'s downloader of host `host` publishes on; `lockSession` says which session holds its run
    /// lock now (``PostgresRunLock/sessionPid``).
    /// - Throws: `StoreError.badLocation` when the ledger's URI is not one.
    init(ledger: Ledger, publishingAs host: String, lockSession: @escaping @Sendable () -> Int32?) throws {
        source = .ledger(ledger)
        state = Mutex(State(writer: PostgresActivityWriter(try PostgresLocation(ledger.path), host: host)))
        self.lockSession = lockSession
    }

    /// Replaces this host's row.
    /// - Throws: `StoreError.readOnly` for a board made to read; `StoreError` when the row cannot be written
    ///   (the server is out of reach, or the run lock's session is lost): the publisher tries again.
    public func publish(_ activity: [TransferActivity]) throws {
        guard let lockSession else { throw StoreError.readOnly }
        let record = ActivityRecord(
            pid: getpid(), writtenMs: ActivityRecord.nowMs(), activity: activity)
        try state.withLock { state in
            guard let writer = state.writer else { throw StoreError.readOnly }
            guard let backend = lockSession() else {
                throw StoreError.cannotConnect(writer.location.masked, "the run lock's session is not held")
            }
            try writer.publish(
                record.encoded(), pid: record.pid, lockBackend: backend)
        }
    }

    /// The running transfers of every host whose downloader is alive, merged; nil when none publishes, the
    /// ledger has no board (made by an older build, not opened by a writer since), or it cannot be read now.
    public func read() -> [TransferActivity]? {
        let rows: [PostgresActivityRow]?
        switch source {
        case .ledger(let ledger):
            rows = ledger.activityRows()
        case .own(let location):
            rows = state.withLock { state in
                if state.store == nil {
                    state.store = try? PostgresEventStore(location: location, readOnly: true, existing: true)
                }
                return try? state.store?.liveActivityRows()
            }
        }
        return rows.flatMap(Self.merged)
    }

    /// Deletes this host's row (the downloader exits cleanly).
    public func withdraw() {
        state.withLock { $0.writer?.withdraw(pid: getpid()) }
    }

    /// The activity of `rows` that decode, in host order; a task two hosts publish (one stalled past its lease)
    /// is the newer row's, by the server's clock. A row of running transfers older than
    /// ``ActivityRecord/maxAgeMs`` by the server's clock counts as a live host with no figures to believe (its
    /// writer stopped publishing). Nil when no row decodes.
    static func merged(_ rows: [PostgresActivityRow]) -> [TransferActivity]? {
        var order: [TaskID] = []
        var newest: [TaskID: (activity: TransferActivity, writtenMs: Int64)] = [:]
        var believed = false
        for row in rows {
            guard let record = ActivityRecord.decode(row.record), record.pid == row.pid else { continue }
            believed = true
            let stale = ActivityRecord.isStale(
                writtenMs: row.writtenMs, activity: record.activity, nowMs: row.writtenMs + row.ageMs)
            for a in record.activity where !stale {
                if let seen = newest[a.id] {
                    guard row.writtenMs > seen.writtenMs else { continue }
                } else {
                    order.append(a.id)
                }
                newest[a.id] = (a, row.writtenMs)
            }
        }
        return believed ? order.compactMap { newest[$0]?.activity } : nil
    }
}

extension Ledger {
    /// The live-activity rows of a PostgreSQL ledger's board whose writer is alive, read on this ledger's store
    /// connection; nil for another store, a ledger without a board, or a failed read.
    func activityRows() -> [PostgresActivityRow]? {
        core.withLock { state in
            (state.store as? PostgresEventStore).flatMap { try? $0.liveActivityRows() }
        }
    }
}
