import Dispatch
import Glibc

/// What the loop and the ``HashWorker`` share about one partial file: how far the loop has written, how far the
/// worker has hashed, and the digest once the file is sealed.
///
/// Every `var` is guarded by the worker's lock (``HashWorker`` is the only type that touches them); `hasher` is
/// used by the worker's thread only. That discipline is what makes the `@unchecked Sendable` sound.
final class HashFollower: @unchecked Sendable {
    /// A read descriptor of the partial file, owned (closed in deinit).
    let fd: Int32
    /// Bumped by every rewrite (truncation) of the file; bytes read under an older generation are discarded.
    var generation = 0
    /// Bytes of the file that the loop has published (it publishes every ``HashWorker/publishStep`` bytes).
    var published: Int64
    /// Set once the loop will write no more: the digest is wanted at `published` bytes.
    var sealed = false
    /// The generation `hashed` counts bytes of.
    var hashedGeneration = -1
    /// Bytes of the file fed to `hasher` so far.
    var hashed: Int64 = 0
    /// Copies of bytes the loop wrote, in file order, not yet hashed (see ``HashChunk``).
    var chunks: [HashChunk] = []
    /// Set when a read failed; cleared by a rewrite.
    var failure: TransferError?
    /// The digest (or the failure) of the sealed file; set once.
    var result: Result<String, TransferError>?
    /// The running hash; worker thread only.
    var hasher: SHA256Hasher?
    /// Signalled once, when `result` is set.
    let done = DispatchSemaphore(value: 0)

    init(fd: Int32, size: Int64) {
        self.fd = fd
        self.published = size
    }

    deinit {
        close(fd)
    }

    /// What the worker should do next for this file, if anything; starts the hash over after a rewrite.
    /// The next bytes come from a chunk when one holds them, else from the file (up to the next chunk).
    /// `recycle` takes the chunks that are no longer needed. Worker thread, under the worker's lock.
    func nextWork(maxRead: Int, recycle: (HashChunk) -> Void) -> HashWorker.Work? {
        guard result == nil else { return nil }
        if hashedGeneration != generation {
            hashedGeneration = generation
            hashed = 0
            hasher = nil
            failure = nil
        }
        while let first = chunks.first, first.end <= hashed || failure != nil {
            recycle(chunks.removeFirst())
        }
        if failure == nil, let first = chunks.first, first.offset <= hashed {
            chunks.removeFirst()
            let work = HashWorker.ChunkWork(
                follower: self, generation: generation, chunk: first, skip: Int(hashed - first.offset))
            return .one(.chunk(work))
        }
        if failure == nil && hashed < published {
            var count = min(published - hashed, Int64(maxRead))
            if let next = chunks.first { count = min(count, next.offset - hashed) }
            return .one(.read(.init(follower: self, generation: generation, from: hashed, count: Int(count))))
        }
        return sealed ? .finish(self) : nil
    }

    /// Gives every chunk to `recycle` (the bytes are void: a rewrite, or the file is forgotten).
    /// Under the worker's lock.
    func dropChunks(_ recycle: (HashChunk) -> Void) {
        for chunk in chunks { recycle(chunk) }
        chunks.removeAll()
    }
}
