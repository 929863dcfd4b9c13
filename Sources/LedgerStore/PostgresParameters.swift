import CPostgres

/// The bound parameters of one statement, in PostgreSQL's binary format, laid out in one buffer: integers
/// big-endian, `bytea` and `text` as their bytes, arrays in the binary array format. Values never enter the SQL.
struct PostgresParameters {
    /// Type OIDs of the values used here.
    enum OID {
        static let bytea: Oid = 17
        static let int8: Oid = 20
        static let int4: Oid = 23
        static let text: Oid = 25
        static let byteaArray: Oid = 1001
        static let textArray: Oid = 1009
        static let int8Array: Oid = 1016
    }

    /// Starts with one unused byte: every value, an empty one too, then has a non-null address (null is NULL).
    private(set) var buffer: [UInt8] = [0]
    /// Each value's place in `buffer`, nil for NULL.
    private(set) var spans: [(offset: Int, count: Int)?] = []
    private(set) var types: [Oid] = []

    init() {}

    init(_ values: Int64...) {
        for value in values { add(value) }
    }

    var count: Int { types.count }

    mutating func add(_ value: Int64) {
        start(OID.int8)
        putBigEndian(UInt64(bitPattern: value))
        finish()
    }

    mutating func add(bytes: UnsafeRawBufferPointer, type: Oid = OID.bytea) {
        start(type)
        buffer.append(contentsOf: bytes)
        finish()
    }

    mutating func add(bytes: [UInt8], type: Oid = OID.bytea) {
        bytes.withUnsafeBytes { add(bytes: $0, type: type) }
    }

    mutating func add(text: String) {
        start(OID.text)
        buffer.append(contentsOf: text.utf8)
        finish()
    }

    mutating func addNull(type: Oid) {
        types.append(type)
        spans.append(nil)
    }

    /// An `int8[]` of `values`.
    mutating func add(int64Array values: [Int64]) {
        start(OID.int8Array)
        arrayHeader(element: OID.int8, count: values.count)
        for value in values {
            putBigEndian(UInt32(8))
            putBigEndian(UInt64(bitPattern: value))
        }
        finish()
    }

    /// A `bytea[]` or `text[]` (`type`: `OID.bytea` or `OID.text`) of `count` elements, `element(i)` each.
    mutating func add(
        arrayOf element: Oid, count: Int, _ value: (Int) -> UnsafeRawBufferPointer
    ) {
        start(element == OID.text ? OID.textArray : OID.byteaArray)
        arrayHeader(element: element, count: count)
        for index in 0..<count {
            let bytes = value(index)
            putBigEndian(UInt32(bytes.count))
            buffer.append(contentsOf: bytes)
        }
        finish()
    }

    /// ndim, has-nulls, element type, then the one dimension's length and lower bound (none when empty).
    private mutating func arrayHeader(element: Oid, count: Int) {
        putBigEndian(UInt32(count == 0 ? 0 : 1))
        putBigEndian(UInt32(0))
        putBigEndian(UInt32(element))
        guard count > 0 else { return }
        putBigEndian(UInt32(count))
        putBigEndian(UInt32(1))
    }

    private var valueStart = 0

    private mutating func start(_ type: Oid) {
        types.append(type)
        valueStart = buffer.count
    }

    private mutating func finish() {
        spans.append((valueStart, buffer.count - valueStart))
    }

    private mutating func putBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    /// Calls `body` with the arrays `PQexecParams` takes: types, values, lengths and formats (all binary).
    func withLibpqArrays<T>(
        _ body: (
            _ types: UnsafePointer<Oid>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?,
            _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?
        ) throws -> T
    ) rethrows -> T {
        try buffer.withUnsafeBufferPointer { all in
            let base = UnsafeRawPointer(all.baseAddress)
            let values: [UnsafePointer<CChar>?] = spans.map { span in
                guard let span else { return nil }
                return (base.map { $0 + span.offset })?.assumingMemoryBound(to: CChar.self)
            }
            let lengths = spans.map { Int32($0?.count ?? 0) }
            let formats = [Int32](repeating: 1, count: spans.count)
            return try types.withUnsafeBufferPointer { types in
                try values.withUnsafeBufferPointer { values in
                    try lengths.withUnsafeBufferPointer { lengths in
                        try formats.withUnsafeBufferPointer { formats in
                            try body(
                                types.baseAddress, values.baseAddress, lengths.baseAddress,
                                formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
