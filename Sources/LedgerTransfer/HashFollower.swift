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
    /// Worker thread, under the worker's lock.
    func nextWork(maxRead: Int) -> HashWorker.Work? {
        guard result == nil else { return nil }
        if hashedGeneration != generation {
            hashedGeneration = generation
            hashed = 0
            hasher = nil
            failure = nil
        }
        if failure == nil && hashed < published {
            let count = Int(min(published - hashed, Int64(maxRead)))
            return .read(self, generation: generation, from: hashed, count: count)
        }
        return sealed ? .finish(self) : nil
    }
}
