import Foundation
import Testing

@testable import LedgerTransfer

/// The hash worker against the bytes actually in the files, whether it hashes the loop's copies or reads the file
/// back (pool exhausted, resumed prefix, rewrite).
@Suite struct HashWorkerTests {
    /// Deterministic bytes: `count` of them from `seed` (xorshift64, eight bytes per step).
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { out in
            var offset = 0
            while offset < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let word = state
                let take = min(8, count - offset)
                withUnsafeBytes(of: word) {
                    out.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take)
                }
                offset += take
            }
        }
        return bytes
    }

    static func sha256(ofFile path: String) throws -> String {
        let data = try #require(FileManager.default.contents(atPath: path))
        // OpenSSL's, so the worker's own engine is checked against another implementation.
        let hasher = try SHA256Hasher(native: false)
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    @Test(arguments: [1, 2, HashWorker.defaultMaxBuffers])
    func digestMatchesTheFileWithCopiesFileReadsResumeAndRewrite(maxBuffers: Int) throws {
        let directory = NSTemporaryDirectory() + "hashworker-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let worker = HashWorker(maxBuffers: maxBuffers)
        defer { worker.shutdown() }
        let requests = (1...3).map {
            TransferRequest(id: Int64($0), url: "http://x/\($0)", directory: directory)
        }
        // Job 2 resumes a partial file of 100 000 bytes.
        try FileManager.default.createDirectory(
            atPath: requests[1].partialDirectory, withIntermediateDirectories: true)
        let prefix = Self.bytes(100_000, seed: 99)
        #expect(FileManager.default.createFile(atPath: requests[1].partialPath, contents: Data(prefix)))
        let jobs = try requests.map { try Job(request: $0, hashes: worker) }
        var expected: [[UInt8]] = [[], prefix, []]
        // Interleaved appends of odd sizes, as several transfers deliver; job 3 is rewritten half-way.
        for round in 0..<90 {
            for (n, job) in jobs.enumerated() {
                let piece = Self.bytes(7_001 + 3_000 * n, seed: UInt64(round * 10 + n))
                try piece.withUnsafeBytes { try job.append($0) }
                expected[n] += piece
                #expect(job.size == Int64(expected[n].count))
                if n == 2 && round == 45 {
                    try job.discardPartial()
                    expected[n] = []
                }
            }
        }
        for (n, (job, request)) in zip(jobs, requests).enumerated() {
            try job.flush()
            // Every byte taken is in the file, in order, whether it was gathered first or written at once.
            #expect(FileManager.default.contents(atPath: request.partialPath) == Data(expected[n]))
            let digest = try worker.digest(of: job.follower, size: job.file.size).get()
            worker.forget(job.follower)
            #expect(digest == (try Self.sha256(ofFile: request.partialPath)), "job \(request.id)")
        }
    }

    /// `count` whole hash chunks of deterministic bytes, made before they are appended (making them takes
    /// longer than appending, and a slow producer would leave the worker nothing to pair).
    static func chunks(_ count: Int, seed: UInt64) -> [[UInt8]] {
        (0..<count).map { Self.bytes(HashWorker.chunkSize, seed: seed &+ UInt64($0)) }
    }

    /// Seals each job's file and checks that the worker's digest is its file's (as OpenSSL hashes it).
    static func expectDigestsOfTheirFiles(_ jobs: [Job], _ requests: [TransferRequest], _ worker: HashWorker)
        throws
    {
        for (job, request) in zip(jobs, requests) {
            try job.flush()
            let digest = try worker.digest(of: job.follower, size: job.file.size).get()
            worker.forget(job.follower)
            #expect(digest == (try Self.sha256(ofFile: request.partialPath)), "job \(request.id)")
        }
    }

    /// Two transfers' partial files in `directory`, followed by `worker`.
    static func twoJobs(_ worker: HashWorker, in directory: String) throws -> ([TransferRequest], [Job]) {
        let requests = (1...2).map {
            TransferRequest(id: Int64($0), url: "http://x/\($0)", directory: directory)
        }
        return (requests, try requests.map { try Job(request: $0, hashes: worker) })
    }

    /// Two files receiving side by side are hashed two chunks at a time, and each digest is its own file's.
    @Test func twoFilesReceivingAreHashedInPairs() throws {
        let directory = NSTemporaryDirectory() + "hashworker-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let worker = HashWorker()
        defer { worker.shutdown() }
        let (requests, jobs) = try Self.twoJobs(worker, in: directory)
        let content = [Self.chunks(100, seed: 1), Self.chunks(100, seed: 1_000)]
        for round in 0..<100 {
            for (n, job) in jobs.enumerated() { try content[n][round].withUnsafeBytes { try job.append($0) } }
        }
        try Self.expectDigestsOfTheirFiles(jobs, requests, worker)
        #expect(worker.pairing.pairs > 0)
    }

    /// Bytes read back from the files (resumed prefixes, and every append once the pool is empty: here it has no
    /// buffer at all) are hashed two files at a time as chunks are, so a worker that fell behind does not fall
    /// further behind by hashing at half its speed; each digest is still its own file's.
    @Test func twoFilesReadBackAreHashedInPairs() throws {
        let directory = NSTemporaryDirectory() + "hashworker-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let worker = HashWorker(maxBuffers: 0)
        defer { worker.shutdown() }
        let requests = (1...2).map {
            TransferRequest(id: Int64($0), url: "http://x/\($0)", directory: directory)
        }
        try FileManager.default.createDirectory(
            atPath: requests[0].partialDirectory, withIntermediateDirectories: true)
        // Prefixes of different lengths, so a read is cut to its partner's length and the rest hashed after.
        for (n, request) in requests.enumerated() {
            let prefix = Self.bytes((4 << 20) + 1_000 * n, seed: 40 + UInt64(n))
            #expect(FileManager.default.createFile(atPath: request.partialPath, contents: Data(prefix)))
        }
        let jobs = try requests.map { try Job(request: $0, hashes: worker) }
        for round in 0..<40 {
            for (n, job) in jobs.enumerated() {
                try Self.bytes(70_001 + 3_000 * n, seed: UInt64(round * 10 + n)).withUnsafeBytes {
                    try job.append($0)
                }
            }
        }
        try Self.expectDigestsOfTheirFiles(jobs, requests, worker)
        #expect(worker.pairing.pairs >= 1, "\(worker.pairing)")
    }

    /// A file receiving beside one that sends nothing is hashed at the worker's speed: a lone chunk waits for a
    /// partner only while fewer than ``HashWorker/pairQueueLimit`` chunks are queued, not before every chunk
    /// (which would hold its hash to one chunk per ``HashWorker/pairWait``: about 40 missed waits here).
    @Test func aFileBesideAnIdleOneIsNotHeldBack() throws {
        let directory = NSTemporaryDirectory() + "hashworker-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A pool for every chunk, so each one reaches the worker as a chunk (none is read back from the file).
        let worker = HashWorker(maxBuffers: 128)
        defer { worker.shutdown() }
        let busy = TransferRequest(id: 1, url: "http://x/1", directory: directory)
        let idle = TransferRequest(id: 2, url: "http://x/2", directory: directory)
        let busyJob = try Job(request: busy, hashes: worker)
        let idleJob = try Job(request: idle, hashes: worker)
        for chunk in Self.chunks(100, seed: 5) { try chunk.withUnsafeBytes { try busyJob.append($0) } }
        // Not sealed yet: nobody waits for the digest, so only the rule keeps the worker from waiting per chunk.
        usleep(100_000)
        let pairing = worker.pairing
        try busyJob.flush()
        let digest = try worker.digest(of: busyJob.follower, size: busyJob.file.size).get()
        worker.forget(busyJob.follower)
        worker.forget(idleJob.follower)
        #expect(digest == (try Self.sha256(ofFile: busy.partialPath)))
        #expect(pairing.pairs == 0)
        #expect(pairing.missed < 20, "\(pairing)")
    }

    /// After a wait that found no partner, the next lone chunk waits again: two files whose chunks arrive a moment
    /// apart are hashed two at a time, however long one of them was alone before.
    @Test func loneChunksPairAgainAfterAMissedWait() throws {
        let directory = NSTemporaryDirectory() + "hashworker-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let worker = HashWorker()
        defer { worker.shutdown() }
        let (requests, jobs) = try Self.twoJobs(worker, in: directory)
        let content = [Self.chunks(6, seed: 7), Self.chunks(6, seed: 70)]
        // File 1 alone first: its chunk waits for a partner that does not come.
        try content[0][0].withUnsafeBytes { try jobs[0].append($0) }
        usleep(20_000)
        #expect(worker.pairing.missed >= 1)
        // Then the two files' chunks arrive a fraction of the wait apart, five times.
        for round in 1..<6 {
            try content[0][round].withUnsafeBytes { try jobs[0].append($0) }
            usleep(300)
            try content[1][round - 1].withUnsafeBytes { try jobs[1].append($0) }
            usleep(10_000)
        }
        try content[1][5].withUnsafeBytes { try jobs[1].append($0) }
        try Self.expectDigestsOfTheirFiles(jobs, requests, worker)
        #expect(worker.pairing.pairs >= 1, "\(worker.pairing)")
    }
}
