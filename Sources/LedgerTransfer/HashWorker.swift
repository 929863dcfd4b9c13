import Foundation
import Glibc

/// Computes the SHA-256 of every partial file on a thread of its own, so hashing runs beside receiving.
///
/// The worker follows each file with `pread` up to the size the loop published (the bytes are still in the page
/// cache): it holds no copies, only one read buffer, so memory stays bounded whatever the speed. A rewrite bumps
/// the file's generation before the loop truncates it; a read is kept only if the generation did not change
/// meanwhile, so the hash never mixes old and new bytes. A resumed file is hashed from its first byte while the
/// rest arrives.
final class HashWorker: @unchecked Sendable {
    /// One step of work, decided under the lock and done outside it.
    enum Work {
        case read(HashFollower, generation: Int, from: Int64, count: Int)
        case finish(HashFollower)
    }

    static let readSize = 1 << 20
    /// How many new bytes the loop lets pass before it publishes them: curl delivers 16 KiB per callback, and
    /// taking the lock (and waking this thread) for each costs futexes and short preads.
    static let publishStep: Int64 = 256 << 10
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var followers: [HashFollower] = []
    /// Guarded by `condition`.
    private var stopping = false
    /// Where the round-robin over `followers` resumes; worker thread only.
    private var cursor = 0
    private let stopped = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            run()
            stopped.signal()
        }
        thread.name = "LedgerTransfer hash"
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

    /// The loop appended: the file now holds `size` bytes.
    func publish(_ follower: HashFollower, size: Int64) {
        locked { follower.published = size }
        // After unlocking, so the woken thread does not block on the lock at once. No wakeup is lost: the worker
        // checks for work under the lock and releases it only by waiting.
        condition.signal()
    }

    /// The loop is about to cut the file to `size` bytes: the hash starts over.
    func rewrite(_ follower: HashFollower, size: Int64) {
        locked {
            follower.generation += 1
            follower.published = size
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
        locked { followers.removeAll { $0 === follower } }
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
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        while let work = nextWork() {
            switch work {
            case .read(let follower, let generation, let from, let count):
                read(follower, generation: generation, from: from, count: count, into: buffer)
            case .finish(let follower):
                finish(follower)
            }
        }
    }

    /// Waits for the next step, taking the followers in turn; nil once stopping.
    private func nextWork() -> Work? {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            for step in 0..<followers.count {
                let index = (cursor + step) % followers.count
                if let work = followers[index].nextWork(maxRead: Self.readSize) {
                    cursor = index + 1
                    return work
                }
            }
            condition.wait()
        }
        return nil
    }

    private func read(
        _ follower: HashFollower, generation: Int, from: Int64, count: Int,
        into buffer: UnsafeMutableRawBufferPointer
    ) {
        var got = pread(follower.fd, buffer.baseAddress, count, off_t(from))
        while got < 0 && errno == EINTR {
            got = pread(follower.fd, buffer.baseAddress, count, off_t(from))
        }
        let failure: TransferError? =
            got < 0
            ? PartialFile.error("cannot read a partial file")
            : got == 0 ? .fileSystem("a partial file shrank while it was hashed") : nil
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
        guard current, let hasher else { return }
        follower.hasher = hasher
        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
        locked { follower.hashed += Int64(got) }
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
