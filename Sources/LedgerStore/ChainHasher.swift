import CSHA256

/// The rolling state of the hash chain: the last hash, and the canonical bytes of the events chained since
/// `clear()`, kept side by side so a batch of rows can be bound to SQLite without copies.
///
/// `hash[n] = SHA-256(hash[n-1] ‖ seq (8 bytes BE) ‖ time (8 BE) ‖ kind ‖ 0x00 ‖ version (4 BE) ‖ tasks ‖ 0x00 ‖
/// payload)`, with `hash[0]` 32 zero bytes and tasks the comma-separated decimal ids ("7,8").
/// Owns one SHA-256 context (CSHA256) and one growing buffer, reused for every event so chaining allocates nothing.
final class ChainHasher {
    static let digestLength = 32
    static let zeroHash = [UInt8](repeating: 0, count: digestLength)

    /// The SHA-256 state (CSHA256: no OpenSSL, whose first digest fetch costs every command about 1 ms).
    private let context: UnsafeMutablePointer<dl_sha256_ctx>
    /// For each event chained since `clear()`: `hash[n-1] ‖ canonical(n) ‖ hash[n]`.
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    private let hashStorage: UnsafeMutableRawBufferPointer
    /// Where the parts of each event chained since `clear()` sit in the buffer.
    private(set) var entries: [Entry] = []

    /// Offsets of one event's parts inside the buffer; read them with `bytes(_:)`.
    struct Entry {
        var kind: Range<Int>
        var tasks: Range<Int>
        var payload: Range<Int>
        var hash: Range<Int>
    }

    init() {
        context = UnsafeMutablePointer<dl_sha256_ctx>.allocate(capacity: 1)
        context.initialize(to: dl_sha256_ctx())
        capacity = 1024
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        hashStorage = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.digestLength, alignment: 16)
        hashStorage.initializeMemory(as: UInt8.self, repeating: 0)
        entries.reserveCapacity(64)
    }

    deinit {
        context.deallocate()
        buffer.deallocate()
        hashStorage.deallocate()
    }

    /// The hash of the last event chained (or the one the chain restarted from).
    var hash: UnsafeRawBufferPointer { UnsafeRawBufferPointer(hashStorage) }

    /// Bytes of an entry's part; valid until the next `chain` or `clear` call.
    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffer + range.lowerBound, count: range.count)
    }

    /// Forgets the events chained so far (not the chain's hash) and reuses their memory.
    func clear() {
        count = 0
        entries.removeAll(keepingCapacity: true)
    }

    /// Gives back a buffer grown past 4 MiB by a big event (it is kept for the store's lifetime otherwise).
    func shrinkIfLarge() {
        guard capacity > 4 << 20 else { return }
        clear()
        buffer.deallocate()
        capacity = 1024
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// Continues the chain after an event whose hash is `hash` (32 bytes), or from the start when nil.
    func restart(from hash: UnsafeRawBufferPointer?) {
        if let hash, hash.count == Self.digestLength {
            hashStorage.copyMemory(from: hash)
        } else {
            hashStorage.initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    /// Chains an event whose tasks are given as ids; `hash` becomes its hash and `entries` gets its parts.
    func chain(
        seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int, tasks: [Int64],
        payload: UnsafeRawBufferPointer
    ) {
        let (layoutStart, kindRange) = start(
            seq: seq, time: time, kind: kind, version: version, reserving: tasks.count * 21 + payload.count)
        let tasksStart = count
        for (index, task) in tasks.enumerated() {
            if index > 0 { put(UInt8(ascii: ",")) }
            putDecimal(task)
        }
        finish(layoutStart: layoutStart, kind: kindRange, tasksStart: tasksStart, payload: payload)
    }

    /// Chains an event whose tasks are given as their stored text; `hash` becomes its hash.
    func chain(
        seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int,
        tasksText: UnsafeRawBufferPointer,
        payload: UnsafeRawBufferPointer
    ) {
        let (layoutStart, kindRange) = start(
            seq: seq, time: time, kind: kind, version: version, reserving: tasksText.count + payload.count)
        let tasksStart = count
        put(tasksText)
        finish(layoutStart: layoutStart, kind: kindRange, tasksStart: tasksStart, payload: payload)
    }

    /// Continues the chain with a stored event's parts hashed where they lie: nothing is copied or kept (`verify`
    /// walks a log whose one event may be a 100 MB add), and `entries` is left alone. `hash` becomes its hash.
    func chainInPlace(
        seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int,
        tasksText: UnsafeRawBufferPointer,
        payload: UnsafeRawBufferPointer
    ) {
        var numbers = (UInt64(bitPattern: seq).bigEndian, UInt64(bitPattern: time).bigEndian)
        var versionBytes = UInt32(truncatingIfNeeded: version).bigEndian
        var zero: UInt8 = 0
        let context = context
        func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            dl_sha256_update(context, base, bytes.count)
        }
        dl_sha256_init(context)
        update(UnsafeRawBufferPointer(hashStorage))
        withUnsafeBytes(of: &numbers, update)
        update(kind)
        dl_sha256_update(context, &zero, 1)
        withUnsafeBytes(of: &versionBytes, update)
        update(tasksText)
        dl_sha256_update(context, &zero, 1)
        update(payload)
        dl_sha256_final(context, hashStorage.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }

    /// Lays out `hash ‖ seq ‖ time ‖ kind ‖ 0 ‖ version` and reserves room for the rest of the event.
    private func start(
        seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int, reserving extra: Int
    )
        -> (layoutStart: Int, kind: Range<Int>)
    {
        let length = Self.digestLength * 2 + 8 + 8 + kind.count + 1 + 4 + 1
        reserve(length + extra)
        let layoutStart = count
        put(UnsafeRawBufferPointer(hashStorage))
        putBigEndian(UInt64(bitPattern: seq))
        putBigEndian(UInt64(bitPattern: time))
        let kindStart = count
        put(kind)
        let kindRange = kindStart..<count
        put(0)
        putBigEndian(UInt32(truncatingIfNeeded: version))
        return (layoutStart, kindRange)
    }

    /// Lays out `0 ‖ payload`, hashes the layout from `layoutStart`, then appends the new hash.
    private func finish(layoutStart: Int, kind: Range<Int>, tasksStart: Int, payload: UnsafeRawBufferPointer)
    {
        let tasksRange = tasksStart..<count
        put(0)
        let payloadStart = count
        put(payload)
        let payloadRange = payloadStart..<count
        dl_sha256_init(context)
        dl_sha256_update(context, buffer + layoutStart, count - layoutStart)
        dl_sha256_final(context, hashStorage.baseAddress!.assumingMemoryBound(to: UInt8.self))
        let hashStart = count
        put(UnsafeRawBufferPointer(hashStorage))
        entries.append(Entry(kind: kind, tasks: tasksRange, payload: payloadRange, hash: hashStart..<count))
    }

    private func reserve(_ needed: Int) {
        guard needed > capacity - count else { return }
        var newCapacity = capacity * 2
        while newCapacity - count < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: buffer, byteCount: count)
        buffer.deallocate()
        buffer = grown
        capacity = newCapacity
    }

    private func put(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        (buffer + count).copyMemory(from: base, byteCount: bytes.count)
        count += bytes.count
    }

    private func put(_ byte: UInt8) {
        buffer.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    private func putBigEndian<T: FixedWidthInteger>(_ value: T) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    /// Writes the decimal digits of `value` (with a leading '-' when negative), at most 20 bytes.
    private func putDecimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var position = count + digits
        count = position
        repeat {
            position -= 1
            buffer.storeBytes(
                of: UInt8(ascii: "0") + UInt8(magnitude % 10), toByteOffset: position, as: UInt8.self)
            magnitude /= 10
        } while magnitude > 0
    }

    /// The comma-separated text of `tasks`, as stored in the `tasks` column.
    static func tasksText(_ tasks: [Int64]) -> [UInt8] {
        Array(tasks.map { String($0) }.joined(separator: ",").utf8)
    }

    /// Whether the `tasks` column lists `id`, read in place (no array of an add's 100,000 ids); nil when it is not
    /// comma-separated integers, exactly where ``parseTasks(_:)`` gives nil.
    static func tasks(_ text: UnsafeRawBufferPointer, list id: Int64) -> Bool? {
        if text.isEmpty { return false }
        var found = false
        var i = 0
        while true {
            // One part: a sign, then at least one digit, within Int64 (what `Int64(String)` takes).
            var negative = false
            if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                negative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            let digits = i
            var magnitude: UInt64 = 0
            while i < text.count, text[i] != UInt8(ascii: ",") {
                let digit = text[i] &- UInt8(ascii: "0")
                guard digit <= 9 else { return nil }
                let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(UInt64(digit))
                guard !o1, !o2 else { return nil }
                magnitude = sum
                i += 1
            }
            guard i > digits, magnitude <= (negative ? Int64.min.magnitude : UInt64(Int64.max)) else {
                return nil
            }
            if magnitude == id.magnitude, id == 0 || negative == (id < 0) { found = true }
            guard i < text.count else { return found }
            i += 1
        }
    }

    /// Parses the `tasks` column back into ids; nil when it is not comma-separated integers.
    static func parseTasks(_ text: UnsafeRawBufferPointer) -> [Int64]? {
        if text.isEmpty { return [] }
        var tasks: [Int64] = []
        for part in text.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard let id = Int64(String(decoding: part, as: UTF8.self)) else { return nil }
            tasks.append(id)
        }
        return tasks
    }
}
