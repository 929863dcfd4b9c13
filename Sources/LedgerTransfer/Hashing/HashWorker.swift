import CWriteback
import Foundation
import Glibc

/// Computes the SHA-256 of every partial file on a thread of its own, so hashing runs beside receiving.
///
/// The loop copies the bytes it writes into ``HashChunk``s of ``chunkSize`` taken from a small pool and hands each
/// full one over: the worker hashes them from memory. When the pool is empty (the worker is behind) the loop
/// only publishes the new size, and the worker reads those bytes back with `pread` (they are still in the page
/// cache), so memory stays bounded (``maxBuffers`` chunks) whatever the speed; a resumed file's earlier bytes are
/// read the same way, from its first byte, while the rest arrives. A rewrite bumps the file's generation (and
/// drops its chunks) before the loop truncates it; bytes hashed are kept only if the generation did not change
/// meanwhile, so the hash never mixes old and new bytes. Chunks of two files are hashed side by side when there
/// are two (``SHA256Hasher/update(_:_:_:_:)``, less CPU per byte than one at a time): see ``nextWork()``.
final class HashWorker: @unchecked Sendable {
    // @unchecked: state guarded by `condition` (an NSCondition: the worker waits on it), raw buffers, a C hasher.
    /// One step of work, decided under the lock and done outside it.
    enum Work {
        case one(Piece)
        /// Two pieces of two files, hashed side by side (``SHA256Hasher/update(_:_:_:_:)``).
        case two(Piece, Piece)
        case finish(HashFollower)
    }

    /// The next bytes of one file: a chunk the loop copied, or bytes to read back from the file.
    enum Piece {
        case chunk(ChunkWork)
        case read(ReadWork)

        var follower: HashFollower {
            switch self {
            case .chunk(let work): work.follower
            case .read(let work): work.follower
            }
        }

        /// The generation of the file the bytes were copied or are read under.
        var generation: Int {
            switch self {
            case .chunk(let work): work.generation
            case .read(let work): work.generation
            }
        }

        /// Bytes the piece holds (a chunk) or asks for (a read).
        var count: Int {
            switch self {
            case .chunk(let work): work.chunk.count - work.skip
            case .read(let work): work.count
            }
        }

        /// The piece asking for at most `limit` bytes: a read is shortened, a chunk stays whole.
        func capped(at limit: Int) -> Piece {
            guard case .read(let work) = self, work.count > limit else { return self }
            return .read(
                .init(follower: work.follower, generation: work.generation, from: work.from, count: limit))
        }
    }

    /// Hash `chunk` from its byte `skip` on (the bytes before were read from the file).
    struct ChunkWork {
        let follower: HashFollower
        let generation: Int
        let chunk: HashChunk
        let skip: Int

        var bytes: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: chunk.buffer.bytes[skip..<chunk.count])
        }
    }

    /// Read `count` bytes of the file from `from` on, and hash them.
    struct ReadWork {
        let follower: HashFollower
        let generation: Int
        let from: Int64
        let count: Int
    }

    static let readSize = 1 << 20
    /// The least a read paired with a shorter piece is cut to (what one pread then brings at least, when there is).
    static let minCappedRead = 64 << 10
    /// How many new bytes the loop lets pass before it publishes them: curl delivers 16 KiB per callback, and
    /// taking the lock (and waking this thread) for each costs futexes and short preads.
    static let publishStep: Int64 = 256 << 10
    /// Bytes per chunk: one chunk is handed over per ``publishStep``.
    static let chunkSize = Int(publishStep)
    /// Chunks in existence at most by default (6 MiB): 8 transfers' partly filled ones and a queue behind a busy
    /// worker.
    static let defaultMaxBuffers = 24
    let maxBuffers: Int
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var followers: [HashFollower] = []
    /// Buffers ready for the loop; guarded by `condition`.
    private var spareBuffers: [HashBuffer] = []
    /// Buffers handed out and not yet given back; guarded by `condition`.
    private var lentBuffers = 0
    /// Guarded by `condition`.
    private var stopping = false
    /// Where the round-robin over `followers` resumes; worker thread only.
    private var cursor = 0
    /// Until when a lone chunk waits for a partner (see ``nextWork()``); guarded by `condition`.
    private var pairDeadline: ContinuousClock.Instant?
    /// Guarded by `condition`.
    private var pairsTaken = 0
    /// Guarded by `condition`.
    private var partnersMissed = 0
    private let stopped = DispatchSemaphore(value: 0)

    init(maxBuffers: Int = HashWorker.defaultMaxBuffers) {
        self.maxBuffers = maxBuffers
        let thread = Thread { [self] in
            _ = cwriteback_name_thread("dledger-hash")
            _ = cwriteback_background_thread()  // its wake-ups do not preempt the loop
            run()
            stopped.signal()
        }
        thread.start()
    }

    /// Starts following a file of `size` bytes through `fd` (a descriptor the follower then owns).
    func follow(fd: Int32, size: Int64) -> HashFollower {
        let follower = HashFollower(fd: fd, size: size)
        locked {
            followers.append(follower)
            condition.signal()
        }
        return follower
    }

    /// The loop appended: the file now holds `size` bytes, and `chunk` (if any) holds a copy of some of them.
    func publish(_ follower: HashFollower, size: Int64, chunk: HashChunk? = nil) {
        locked {
            follower.published = size
            if let chunk {
                if follower.result == nil {
                    follower.chunks.append(chunk)
                } else {
                    recycle(chunk)
                }
            }
        }
        // After unlocking, so the woken thread does not block on the lock at once. No wakeup is lost: the worker
        // checks for work under the lock and releases it only by waiting.
        condition.signal()
    }

    /// A buffer of ``chunkSize`` bytes for the loop to copy into, or nil when ``maxBuffers`` are out (the
    /// worker is behind: the bytes are then read back from the file).
    func takeBuffer() -> HashBuffer? {
        locked {
            if let spare = spareBuffers.popLast() {
                lentBuffers += 1
                return spare
            }
            guard lentBuffers < maxBuffers else { return nil }
            lentBuffers += 1
            return HashBuffer(size: Self.chunkSize)
        }
    }

    /// Takes back a buffer from ``takeBuffer()`` that the loop did not hand over.
    func giveBack(_ buffer: HashBuffer) {
        locked { recycle(HashChunk(offset: 0, buffer: buffer, count: 0)) }
    }

    /// Under the lock.
    private func recycle(_ chunk: HashChunk) {
        lentBuffers -= 1
        spareBuffers.append(chunk.buffer)
    }

    /// The loop is about to cut the file to `size` bytes: the hash starts over.
    func rewrite(_ follower: HashFollower, size: Int64) {
        locked {
            follower.generation += 1
            follower.published = size
            follower.dropChunks(recycle)
            condition.signal()
        }
    }

    /// Seals the file at `size` bytes (its final size) and waits until it is hashed. Not on the loop thread.
    func digest(of follower: HashFollower, size: Int64) -> Result<String, TransferError> {
        let running = locked {
            follower.published = size
            follower.sealed = true
            condition.signal()
            return !stopping
        }
        guard running else { return .failure(.fileSystem("the engine is shut down")) }
        follower.done.wait()
        return locked { follower.result ?? .failure(.fileSystem("hash not computed")) }
    }

    /// Stops following a file (ended, or its digest taken).
    func forget(_ follower: HashFollower) {
        locked {
            followers.removeAll { $0 === follower }
            follower.dropChunks(recycle)
        }
    }

    /// Ends the thread and waits for it; every digest must have been taken before.
    func shutdown() {
        locked {
            stopping = true
            condition.signal()
        }
        stopped.wait()
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    private func run() {
        // One buffer per side of a pair: two files read back are hashed side by side like two chunks.
        let buffers = (
            UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16),
            UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        )
        defer {
            buffers.0.deallocate()
            buffers.1.deallocate()
        }
        while let work = nextWork() {
            switch work {
            case .one(let piece):
                if let bytes = bytes(of: piece, buffer: buffers.0) { feed(piece, bytes) }
                release(piece)
            case .two(let first, let second):
                let bytesA = bytes(of: first, buffer: buffers.0)
                let bytesB = bytes(of: second, buffer: buffers.1)
                if let bytesA, let bytesB {
                    feed((first, bytesA), (second, bytesB))
                } else {
                    if let bytesA { feed(first, bytesA) }
                    if let bytesB { feed(second, bytesB) }
                }
                release(first)
                release(second)
            case .finish(let follower):
                finish(follower)
            }
        }
    }

    /// Waits for the next step, taking the followers in turn; nil once stopping. Two pieces of two files are
    /// taken together when there are (chunks, bytes to read back, or one of each); a lone chunk waits up to
    /// ``pairWait`` for one of another file while other files are still receiving, nobody waits for its hash yet
    /// and the worker is not behind (hashing two at once costs half the CPU per byte; see
    /// ``partnerWait(for:)``). A lone read does not wait: it means the worker is behind.
    private func nextWork() -> Work? {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            var held: (piece: Piece, index: Int)?
            for step in 0..<followers.count {
                let index = (cursor + step) % followers.count
                guard let work = followers[index].nextWork(maxRead: Self.readSize, recycle: recycle) else {
                    continue
                }
                guard case .one(let piece) = work else {
                    if let first = held { putBack(first.piece) }
                    return taken(work, at: index)
                }
                guard let first = held else {
                    held = (piece, index)
                    continue
                }
                // A read asks no more than its partner holds, so that the pair hashes side by side all it reads;
                // never less than ``minCappedRead`` (a partner of a few bytes would make a read of a few bytes).
                let common = max(min(first.piece.count, piece.count), Self.minCappedRead)
                pairsTaken += 1
                return taken(.two(first.piece.capped(at: common), piece.capped(at: common)), at: index)
            }
            guard let first = held else {
                condition.wait()
                continue
            }
            guard case .chunk(let chunk) = first.piece, let left = partnerWait(for: chunk) else {
                return taken(.one(first.piece), at: first.index)
            }
            putBack(first.piece)
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        return nil
    }

    /// Returns a piece taken but not hashed to its file: a chunk goes back to the front of its queue (a read is
    /// worked out again from the file's state). Under the lock.
    private func putBack(_ piece: Piece) {
        if case .chunk(let work) = piece { work.follower.chunks.insert(work.chunk, at: 0) }
    }

    /// How long a lone chunk may wait for one of another file.
    static let pairWait: Duration = .milliseconds(2)
    /// Chunks queued in all from which the worker counts as behind: a lone chunk waits for a partner only below.
    static let pairQueueLimit = 8

    /// Where the bytes queued for `follower` end: its last chunk's end, or `chunk`'s when none is queued behind it.
    private static func end(of follower: HashFollower, after chunk: HashChunk) -> Int64 {
        follower.chunks.last?.end ?? chunk.end
    }

    /// How much longer the lone chunk waits for a partner, or nil when it is hashed alone now. Under the lock.
    ///
    /// It does not wait when its digest is awaited (the file is sealed), when no other file is receiving, or when
    /// the worker is behind: ``pairQueueLimit`` chunks queued in all, or bytes of its file published past its
    /// chunks (to read back). Files often arrive in bursts of a whole chunk run each, so a file's own queued chunks
    /// do not count as behind: they wait together for another file's burst. A fast file beside a stalled one fills
    /// the queue and is then hashed at the worker's own speed; below the limit a wait only takes time the worker
    /// would spend idle. Its partner is any chunk of another file published meanwhile (each publish wakes the
    /// worker). Timed on the monotonic clock, so a change of the wall clock neither stretches nor skips the wait.
    private func partnerWait(for work: ChunkWork) -> Duration? {
        let follower = work.follower
        guard !follower.sealed, follower.published <= Self.end(of: follower, after: work.chunk),
            followers.reduce(0, { $0 + $1.chunks.count }) < Self.pairQueueLimit,
            followers.contains(where: { $0 !== follower && !$0.sealed && $0.result == nil })
        else { return nil }
        let now = ContinuousClock.now
        guard let deadline = pairDeadline else {
            pairDeadline = now + Self.pairWait
            return Self.pairWait
        }
        guard now < deadline else {
            partnersMissed += 1
            return nil
        }
        return now.duration(to: deadline)
    }

    /// Two chunks hashed side by side, and waits for a partner that ended without one, so far (for tests).
    var pairing: (pairs: Int, missed: Int) { locked { (pairsTaken, partnersMissed) } }

    /// Returns `work`, found at `followers[index]`: the round-robin goes on after it. Under the lock.
    private func taken(_ work: Work, at index: Int) -> Work {
        cursor = index + 1
        pairDeadline = nil
        return work
    }

    /// The bytes of `piece`: its chunk's, or those read from the file into `buffer`; nil when the read failed
    /// (the failure is then recorded on the file).
    private func bytes(of piece: Piece, buffer: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer? {
        let work: ReadWork
        switch piece {
        case .chunk(let chunk): return chunk.bytes
        case .read(let read): work = read
        }
        var got = pread(work.follower.fd, buffer.baseAddress, work.count, off_t(work.from))
        while got < 0 && errno == EINTR {
            got = pread(work.follower.fd, buffer.baseAddress, work.count, off_t(work.from))
        }
        guard got > 0 else {
            let failure: TransferError =
                got < 0
                ? PartialFile.error("cannot read a partial file")
                : .fileSystem("a partial file shrank while it was hashed")
            _ = hasher(of: work.follower, generation: work.generation, failure: failure)
            return nil
        }
        return UnsafeRawBufferPointer(rebasing: buffer[..<got])
    }

    /// Gives a hashed piece's chunk back to the pool.
    private func release(_ piece: Piece) {
        if case .chunk(let work) = piece { locked { recycle(work.chunk) } }
    }

    /// Adds `bytes` (the next of the piece's file) to its hash, unless the file was rewritten meanwhile.
    private func feed(_ piece: Piece, _ bytes: UnsafeRawBufferPointer) {
        guard let hasher = hasher(of: piece.follower, generation: piece.generation, failure: nil) else {
            return
        }
        hasher.update(bytes)
        count(bytes.count, of: piece.follower, generation: piece.generation)
    }

    /// Adds the bytes of two pieces of two files to their hashes, side by side.
    private func feed(
        _ first: (piece: Piece, bytes: UnsafeRawBufferPointer),
        _ second: (piece: Piece, bytes: UnsafeRawBufferPointer)
    ) {
        let hasherA = hasher(of: first.piece.follower, generation: first.piece.generation, failure: nil)
        let hasherB = hasher(of: second.piece.follower, generation: second.piece.generation, failure: nil)
        if let hasherA, let hasherB {
            SHA256Hasher.update(hasherA, first.bytes, hasherB, second.bytes)
        } else {
            hasherA?.update(first.bytes)
            hasherB?.update(second.bytes)
        }
        if hasherA != nil {
            count(first.bytes.count, of: first.piece.follower, generation: first.piece.generation)
        }
        if hasherB != nil {
            count(second.bytes.count, of: second.piece.follower, generation: second.piece.generation)
        }
    }

    /// The running hash of `follower` to add bytes read or copied under `generation` to; nil when the file was
    /// rewritten meanwhile, or when `failure` (the read failed) or a hasher that cannot start is recorded instead.
    private func hasher(of follower: HashFollower, generation: Int, failure: TransferError?) -> SHA256Hasher?
    {
        var hasher = follower.hasher
        if failure == nil && hasher == nil {
            hasher = try? SHA256Hasher()
        }
        let current = locked { () -> Bool in
            guard follower.generation == generation else { return false }
            if let failure {
                follower.failure = failure
            } else if hasher == nil {
                follower.failure = .fileSystem("cannot start SHA-256")
            }
            return follower.failure == nil
        }
        guard current, let hasher else { return nil }
        follower.hasher = hasher
        return hasher
    }

    /// Counts `bytes` more of `follower` hashed.
    private func count(_ bytes: Int, of follower: HashFollower, generation: Int) {
        locked {
            // A rewrite meanwhile already reset the count for the new content: these bytes are void.
            if follower.generation == generation { follower.hashed += Int64(bytes) }
        }
    }

    private func finish(_ follower: HashFollower) {
        let result: Result<String, TransferError>
        if let failure = locked({ follower.failure }) {
            result = .failure(failure)
        } else if let hasher = follower.hasher ?? (try? SHA256Hasher()) {
            result = .success(hasher.finish())
        } else {
            result = .failure(.fileSystem("cannot start SHA-256"))
        }
        follower.hasher = nil
        locked { follower.result = result }
        follower.done.signal()
    }
}
