/// The event store in PostgreSQL: one named ledger, one schema (`dledger_NAME`) in a database many hosts share.
///
/// ```swift
/// let store = try PostgresEventStore(uri: "postgresql://me@db.lan/downloads?ledger=lab")
/// let head = try store.append([event], expectingHead: try store.head(), time: now)
/// if try store.changeToken() != seen { /* another host committed: read after your last seq */ }
/// ```
///
/// Seqs are gapless and commit in order under any number of writers: each append locks the schema's counter row
/// and moves it in its own transaction (docs/postgres.md). The rows and the hash chain are those of
/// ``SQLiteEventStore``, so `verify` and `backup` work across both. One instance is one connection: use it from one
/// thread at a time.
public final class PostgresEventStore: EventStore {
    /// Where the ledger is (its URI prints with the password masked).
    public let location: PostgresLocation
    /// Whether the store was opened with `readOnly: true`: it then never creates, migrates or writes anything.
    public let isReadOnly: Bool
    let connection: PostgresConnection
    let hasher = ChainHasher()
    /// Whether this instance has seen the ledger's schema at the version this build writes.
    var isMigrated = false
    /// Whether this instance has seen the ledger's schema (at any version): dledger never drops one, so it is not
    /// looked for again.
    private var isKnownToExist = false
    /// Whether this instance has seen the ledger's live-activity board (migration 0005): until then each read
    /// looks for it first (a ledger an older build made has none until a writer of this build opens it).
    var hasActivityBoard = false
    /// The head as this instance last saw it (the counter row): an append after it needs no read first.
    var knownHead: (seq: Int64, time: Int64, hash: [UInt8])?
    /// Notifications received on the ledger's channel: the change token.
    private var notifications: Int64 = 0
    /// The durability ``setDurability(_:)`` last asked for: a new session after a reconnect gets it again.
    var durability = CommitDurability.full
    /// Audit links of the append in progress, reused.
    var linkTasks: [Int64] = []
    var linkSeqs: [Int64] = []

    /// Connects to the ledger `uri` names (`postgresql://…?ledger=NAME`, default `main`).
    /// - Throws: `StoreError.badLocation` for a URI libpq does not accept; see ``init(location:readOnly:existing:)``.
    public convenience init(uri: String, readOnly: Bool = false, existing: Bool = false) throws {
        try self.init(location: PostgresLocation(uri), readOnly: readOnly, existing: existing)
    }

    /// Connects to the ledger at `location`. The database must exist; the ledger's schema is created by the first
    /// write (an append or a snapshot), an older one is migrated when opened to write.
    /// - Parameter existing: the ledger must be there: a missing one is `.cannotOpen` (nothing is created).
    /// - Throws: `StoreError.cannotConnect` (unreachable, login refused), `.cannotOpen` (no such ledger with
    ///   `existing`), `.newerSchema`, `.server`.
    public init(location: PostgresLocation, readOnly: Bool = false, existing: Bool = false) throws {
        self.location = location
        self.isReadOnly = readOnly
        connection = try PostgresConnection(location)
        let hasSchema = try setUpSession()
        // A server that restarted leaves a new session to set up; what it missed meanwhile is read again.
        connection.afterReconnect = { [unowned self] in
            try setUpSession()
            if durability != .full { try setDurability(durability) }
            knownHead = nil
            notifications += 1
        }
        let found = hasSchema ? try versionAndHead() : 0
        if found > Self.latestVersion {
            throw StoreError.newerSchema(found: found, supported: Self.latestVersion)
        }
        if found == 0 && existing {
            throw StoreError.cannotOpen(location.masked, Self.noLedger(location))
        }
        isKnownToExist = found > 0
        if found == Self.latestVersion {
            isMigrated = true
        } else if found > 0 && !readOnly {
            try migrate()
        }
    }

    /// The session's settings: the ledger's schema first in the `search_path`, read-only when asked, and LISTEN on
    /// its channel (from the start: a commit on any connection after this one opened changes the token). One round
    /// trip, which also says whether the ledger's `schema_migrations` table is there (resolved through the
    /// `search_path` just set: the ledger's schema only).
    @discardableResult
    private func setUpSession() throws -> Bool {
        let schema = PostgresConnection.identifier(location.schema)
        let readOnly = isReadOnly ? "SET default_transaction_read_only = on; " : ""
        let result = try connection.executeScript(
            """
            SET search_path TO \(schema); \(readOnly)LISTEN \(PostgresConnection.identifier(location.channel));
            SELECT to_regclass('schema_migrations') IS NOT NULL
            """)
        return result.rowCount == 1 && result.string(0, 0) == "t"
    }

    /// The ledger's schema version and its counter row (remembered as ``knownHead``), read together: what opening
    /// an existing ledger needs, in one round trip.
    private func versionAndHead() throws -> Int {
        let row: PostgresResult
        do {
            row = try connection.execute(
                "SELECT (SELECT coalesce(max(version), 0)::int8 FROM schema_migrations), seq, time, hash FROM head"
            )
        } catch StoreError.server(_, "42P01", _) {
            // No counter row: a schema this build does not know (``schemaVersion()`` says which).
            return try schemaVersion()
        }
        guard row.rowCount == 1 else {
            throw StoreError.corrupt(location.masked, "the counter row is missing")
        }
        knownHead = (row.int64(0, 1), row.int64(0, 2), Array(row.bytes(0, 3)))
        return Int(row.int64(0, 0))
    }

    /// Why the server is out of reach and when the next try to reconnect is due; nil while connected.
    public var outage: StoreOutage? { connection.outage }

    /// The words for a ledger that is not in the database.
    static func noLedger(_ location: PostgresLocation) -> String {
        "the database has no ledger named '\(location.ledger)' (schema \(location.schema))"
    }

    /// The highest schema version this build knows.
    static var latestVersion: Int { Migration.embeddedPostgres.last?.version ?? 0 }

    /// Whether the ledger exists in the database (its schema has been created by a first write).
    public func exists() throws -> Bool {
        if isMigrated || isKnownToExist { return true }
        return try schemaVersion() > 0
    }

    /// The version recorded in the ledger's `schema_migrations`, 0 when the ledger does not exist.
    func schemaVersion() throws -> Int {
        var name = PostgresParameters()
        name.add(text: location.schema + ".schema_migrations")
        let table = try connection.execute("SELECT to_regclass($1) IS NOT NULL", name)
        guard table.rowCount == 1, table.bool(0, 0) else { return 0 }
        let version = try connection.execute("SELECT coalesce(max(version), 0)::int8 FROM schema_migrations")
        let found = Int(version.int64(0, 0))
        if found > 0 { isKnownToExist = true }
        return found
    }

    /// Creates the ledger's schema, or brings it to this build's version: every missing migration and its row in
    /// `schema_migrations` in one transaction, under an advisory lock that serialises two hosts creating it.
    func migrate() throws {
        guard !isMigrated else { return }
        guard !isReadOnly else { throw StoreError.readOnly }
        try connection.transaction {
            var key = PostgresParameters()
            key.add(text: location.schema)
            try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", key)
            try connection.executeScript(
                "CREATE SCHEMA IF NOT EXISTS \(PostgresConnection.identifier(location.schema))")
            let found = try schemaVersion()
            if found > Self.latestVersion {
                throw StoreError.newerSchema(found: found, supported: Self.latestVersion)
            }
            for migration in Migration.embeddedPostgres where migration.version > found {
                try connection.executeScript(migration.sql)
                var record = PostgresParameters()
                record.add(Int64(migration.version))
                record.add(text: migration.name)
                try connection.execute(
                    """
                    INSERT INTO schema_migrations(version, name, applied_at)
                    VALUES ($1::int8::int4, $2, (extract(epoch FROM clock_timestamp()) * 1000)::int8)
                    """, record)
            }
        }
        isMigrated = true
    }

    public func head() throws -> Int64 { try readHead().seq }

    /// Reads the counter row (and remembers it); 0 and the zero hash when the ledger does not exist.
    @discardableResult
    func readHead() throws -> (seq: Int64, time: Int64, hash: [UInt8]) {
        guard try exists() else { return (0, 0, ChainHasher.zeroHash) }
        let row = try connection.execute("SELECT seq, time, hash FROM head")
        guard row.rowCount == 1 else {
            throw StoreError.corrupt(location.masked, "the counter row is missing")
        }
        let head = (row.int64(0, 0), row.int64(0, 1), Array(row.bytes(0, 2)))
        knownHead = head
        return head
    }

    /// Counts the notifications that arrived on the ledger's channel, reading the socket without blocking: every
    /// append NOTIFYs in its transaction, so the token changes once another connection (or this one) committed.
    /// A reconnect changes it too (what was committed while the connection was lost sent no notification here).
    /// - Throws: `StoreError.cannotConnect` while the server is out of reach.
    public func changeToken() throws -> Int64 {
        notifications += Int64(try connection.notificationsArrived())
        return notifications
    }

    /// The connection's socket: readable when a notification (or anything else) arrived, for `poll`.
    public var notificationSocket: Int32 { connection.socket }

    /// A listener on a connection of its own (``PostgresChangeListener``): woken by the NOTIFY of every append.
    public func changeListener() -> (@Sendable () throws -> any ChangeListener)? {
        { [location] in try PostgresChangeListener(location) }
    }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64) throws -> Int64 {
        try append(events, expectingHead: expectingHead, time: time, vault: .none)
    }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64, vault: VaultChange) throws
        -> Int64
    {
        guard !isReadOnly else { throw StoreError.readOnly }
        if events.isEmpty && vault.isEmpty {
            let head = try head()
            guard head == expectingHead else { throw StoreError.conflict(head: head) }
            return head
        }
        try migrate()
        defer { hasher.shrinkIfLarge() }
        if vault.isEmpty && events.count >= Self.copyThreshold {
            return try appendByCopy(events, expectingHead: expectingHead, time: time)
        }
        // The head this instance knows is usually the one to append after (its own last append); when the server
        // says otherwise, the counter row is read once and the append tried again.
        for attempt in 0..<2 {
            // A known head behind the caller's (another writer appended after this instance's last append, and
            // the caller has read it) is stale: the counter row is read instead of refusing the append forever.
            let known = attempt == 0 ? knownHead.flatMap { $0.seq == expectingHead ? $0 : nil } : nil
            let head = try known ?? readHead()
            guard head.seq == expectingHead else { throw StoreError.conflict(head: head.seq) }
            let commitTime = max(time, head.time)
            let parameters = chain(events, after: head, time: commitTime, vault: vault)
            let result = try connection.execute(Self.appendSQL, parameters)
            let answer = result.int64(0, 0)
            if answer >= 0 {
                if !events.isEmpty { knownHead = (answer, commitTime, Array(hasher.hash)) }
                return answer
            }
            knownHead = nil
            let current = -1 - answer
            guard current == expectingHead else { throw StoreError.conflict(head: current) }
        }
        throw StoreError.corrupt(location.masked, "the counter row does not match the head event")
    }

    static let appendSQL = """
        SELECT append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
        """

    /// Chains `events` after `head` and lays out the parameters of `append_events`.
    private func chain(
        _ events: [NewEvent], after head: (seq: Int64, time: Int64, hash: [UInt8]), time: Int64,
        vault: VaultChange
    ) -> PostgresParameters {
        hashChain(events, after: head, time: time)
        let entries = hasher.entries
        var parameters = PostgresParameters()
        parameters.add(head.seq)
        parameters.add(bytes: head.hash)
        parameters.add(time)
        parameters.add(bytes: events.isEmpty ? head.hash : Array(hasher.hash))
        parameters.add(arrayOf: PostgresParameters.OID.text, count: entries.count) {
            hasher.bytes(entries[$0].kind)
        }
        parameters.add(int64Array: events.map { Int64($0.version) })
        parameters.add(arrayOf: PostgresParameters.OID.text, count: entries.count) {
            hasher.bytes(entries[$0].tasks)
        }
        parameters.add(arrayOf: PostgresParameters.OID.bytea, count: entries.count) {
            hasher.bytes(entries[$0].payload)
        }
        parameters.add(arrayOf: PostgresParameters.OID.bytea, count: entries.count) {
            hasher.bytes(entries[$0].hash)
        }
        parameters.add(int64Array: linkTasks)
        parameters.add(int64Array: linkSeqs)
        parameters.add(int64Array: vault.removed)
        parameters.add(int64Array: vault.added.map(\.task))
        let keys = vault.added.flatMap(\.bytes)
        keys.withUnsafeBytes { all in
            parameters.add(arrayOf: PostgresParameters.OID.bytea, count: vault.added.count) { index in
                UnsafeRawBufferPointer(rebasing: all[index * VaultKey.length..<(index + 1) * VaultKey.length])
            }
        }
        parameters.add(text: location.channel)
        return parameters
    }

    /// Chains `events` after `head` at `time`: the hasher's entries hold their rows and hashes, `linkTasks` and
    /// `linkSeqs` their audit links (one per distinct task of an event).
    func hashChain(_ events: [NewEvent], after head: (seq: Int64, time: Int64, hash: [UInt8]), time: Int64) {
        head.hash.withUnsafeBytes { hasher.restart(from: $0) }
        hasher.clear()
        linkTasks.removeAll(keepingCapacity: true)
        linkSeqs.removeAll(keepingCapacity: true)
        var seq = head.seq
        for event in events {
            seq += 1
            chainOne(event, seq: seq, time: time)
        }
    }

    /// Chains one event as `seq` at `time` (its row and hash in the hasher's last entry) and notes its audit links
    /// (one per distinct task).
    func chainOne(_ event: NewEvent, seq: Int64, time: Int64) {
        var kind = event.kind
        kind.withUTF8 { kindBytes in
            event.payload.withUnsafeBytes { payload in
                hasher.chain(
                    seq: seq, time: time, kind: UnsafeRawBufferPointer(kindBytes), version: event.version,
                    tasks: event.tasks, payload: payload)
            }
        }
        let distinct = event.tasks.count > 1 ? Array(Set(event.tasks)) : event.tasks
        for task in distinct {
            linkTasks.append(task)
            linkSeqs.append(seq)
        }
    }
}
