/// A fixed-size buffer the loop copies body bytes into as it writes them, so the ``HashWorker`` hashes them from
/// memory instead of reading them back from the file. Owns its memory (freed in deinit).
///
/// One owner at a time: the loop fills it, hands it to the worker inside a ``HashChunk``, and the worker gives it
/// back to the pool. That hand-over discipline is what makes the `@unchecked Sendable` sound.
final class HashBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(size: Int) {
        bytes = .allocate(byteCount: size, alignment: 64)
    }

    deinit {
        bytes.deallocate()
    }
}

/// Bytes `offset ..< offset + count` of a partial file, as the loop wrote them, in `buffer`.
struct HashChunk: Sendable {
    let offset: Int64
    let buffer: HashBuffer
    let count: Int

    var end: Int64 { offset + Int64(count) }
}
