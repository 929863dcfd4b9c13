import CPostgres

extension PostgresConnection {
    /// Runs `sql`, a `COPY … FROM STDIN (FORMAT binary)`, with the rows `produce` makes: it fills a
    /// ``PostgresCopyData`` and hands it to `send` as often as it likes (the server stores each piece while the next
    /// is made), the last time ``PostgresCopyData/finish()``ed. Waits for the server to take them all.
    /// - Throws: what `produce` throws (the COPY is abandoned: nothing of it is kept); `StoreError.server` when the
    ///   server refuses the rows, `.cannotConnect` when the connection is lost.
    func copyIn(_ sql: String, _ produce: (_ send: (inout PostgresCopyData) throws -> Void) throws -> Void)
        throws
    {
        guard let started = PQexec(connection, sql) else {
            throw StoreError.cannotConnect(location.masked, "the connection was lost")
        }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            _ = try check(started)
            throw StoreError.server(location.masked, "", "COPY did not start")
        }
        PQclear(started)
        var refusal: (any Error)?
        do {
            try produce { data in
                let sent = data.bytes.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        PQputCopyData(connection, $0.baseAddress, Int32($0.count))
                    }
                }
                guard sent == 1 else {
                    throw StoreError.cannotConnect(location.masked, "the rows of a COPY could not be sent")
                }
                data.sent()
            }
        } catch {
            refusal = error
        }
        let ended = PQputCopyEnd(connection, refusal == nil ? nil : "abandoned by the client")
        var failure: (any Error)?
        while let result = PQgetResult(connection) {
            do { _ = try check(result) } catch { failure = failure ?? error }
        }
        if let refusal { throw refusal }
        if let failure { throw failure }
        guard ended == 1 else {
            throw StoreError.cannotConnect(location.masked, "the end of a COPY could not be sent")
        }
    }

    /// Runs the query `sql` through a cursor and hands `body` its rows a page (`rows`) at a time, in one
    /// transaction (the one open, else its own, read only in effect: COMMIT after the last page, ROLLBACK when
    /// `body` throws).
    func withCursor(
        _ sql: String, _ parameters: PostgresParameters, rows: Int64, _ body: (PostgresResult) throws -> Void
    ) throws {
        func read() throws {
            try execute("DECLARE dledger_read NO SCROLL CURSOR FOR " + sql, parameters)
            defer { _ = try? executeScript("CLOSE dledger_read") }
            while true {
                let page = try execute("FETCH FORWARD \(rows) FROM dledger_read")
                try body(page)
                if Int64(page.rowCount) < rows { return }
            }
        }
        if PQtransactionStatus(connection) == PQTRANS_IDLE {
            try transaction { try read() }
        } else {
            try read()
        }
    }
}

/// Rows in PostgreSQL's binary COPY format, built field by field.
struct PostgresCopyData {
    private(set) var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity + 32)
        // The signature, no flags, no header extension.
        bytes += Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]
    }

    mutating func startRow(fields: Int16) { bigEndian(UInt16(bitPattern: fields)) }

    /// An `int8` field.
    mutating func add(_ value: Int64) {
        bigEndian(UInt32(8))
        bigEndian(UInt64(bitPattern: value))
    }

    /// A `text` or `bytea` field: its bytes as they are.
    mutating func add(_ value: UnsafeRawBufferPointer) {
        bigEndian(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// Ends the rows with the trailer: nothing may be added after it.
    mutating func finish() { bytes += [0xFF, 0xFF] }

    /// Forgets the bytes sent (the header too), keeping the memory for the next rows.
    mutating func sent() { bytes.removeAll(keepingCapacity: true) }

    private mutating func bigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
