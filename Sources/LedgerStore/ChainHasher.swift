import CCrypto

/// Lays out the canonical bytes of an event after its predecessor's hash and computes the chained SHA-256.
///
/// `hash[n] = SHA-256(hash[n-1] ‖ seq (8 bytes BE) ‖ time (8 BE) ‖ kind ‖ 0x00 ‖ version (4 BE) ‖ tasks ‖ 0x00 ‖
/// payload)`, with `hash[0]` 32 zero bytes and tasks the comma-separated decimal ids ("7,8").
/// Owns one OpenSSL digest context and one buffer, both reused for every event.
final class ChainHasher {
    static let digestLength = 32
    static let zeroHash = [UInt8](repeating: 0, count: digestLength)

    private let context: OpaquePointer
    private let sha256: OpaquePointer
    /// The previous hash followed by the canonical bytes of the last event laid out.
    private(set) var buffer: [UInt8] = []
    /// Where the kind, tasks text and payload sit inside `buffer`, to bind them without copies.
    private(set) var kindRange = 0..<0
    private(set) var tasksRange = 0..<0
    private(set) var payloadRange = 0..<0

    init() {
        guard let context = EVP_MD_CTX_new(), let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            preconditionFailure("OpenSSL cannot provide SHA-256")
        }
        self.context = context
        self.sha256 = sha256
        buffer.reserveCapacity(4096)
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_MD_free(sha256)
    }

    /// Lays out `previous ‖ canonical(event)` with the tasks given as ids.
    func layout(
        previous: UnsafeRawBufferPointer, seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int,
        tasks: [Int64], payload: UnsafeRawBufferPointer
    ) {
        start(previous: previous, seq: seq, time: time, kind: kind, version: version)
        let tasksStart = buffer.count
        for (index, task) in tasks.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            Self.appendDecimal(task, to: &buffer)
        }
        finish(tasksStart: tasksStart, payload: payload)
    }

    /// Lays out `previous ‖ canonical(event)` with the tasks given as their stored text.
    func layout(
        previous: UnsafeRawBufferPointer, seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int,
        tasksText: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer
    ) {
        start(previous: previous, seq: seq, time: time, kind: kind, version: version)
        let tasksStart = buffer.count
        buffer.append(contentsOf: tasksText)
        finish(tasksStart: tasksStart, payload: payload)
    }

    /// SHA-256 of the buffer laid out last, written into `digest` (32 bytes).
    func digest(into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= Self.digestLength)
        let ok = buffer.withUnsafeBytes { bytes in
            EVP_DigestInit_ex2(context, sha256, nil) == 1
                && EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1
                && EVP_DigestFinal_ex(context, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), nil)
                    == 1
        }
        precondition(ok, "OpenSSL SHA-256 failed")
    }

    /// SHA-256 of the buffer laid out last.
    func digest() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.digestLength)
        out.withUnsafeMutableBytes { digest(into: $0) }
        return out
    }

    private func start(
        previous: UnsafeRawBufferPointer, seq: Int64, time: Int64, kind: UnsafeRawBufferPointer, version: Int
    ) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: previous)
        appendBigEndian(UInt64(bitPattern: seq), bytes: 8)
        appendBigEndian(UInt64(bitPattern: time), bytes: 8)
        let kindStart = buffer.count
        buffer.append(contentsOf: kind)
        kindRange = kindStart..<buffer.count
        buffer.append(0)
        appendBigEndian(UInt64(UInt32(truncatingIfNeeded: version)), bytes: 4)
    }

    private func finish(tasksStart: Int, payload: UnsafeRawBufferPointer) {
        tasksRange = tasksStart..<buffer.count
        buffer.append(0)
        let payloadStart = buffer.count
        buffer.append(contentsOf: payload)
        payloadRange = payloadStart..<buffer.count
    }

    private func appendBigEndian(_ value: UInt64, bytes: Int) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// Appends the decimal digits of `value` (with a leading '-' when negative).
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }

    /// The comma-separated text of `tasks`, as stored in the `tasks` column.
    static func tasksText(_ tasks: [Int64]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, task) in tasks.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendDecimal(task, to: &out)
        }
        return out
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
