import Foundation
import Testing

@testable import LedgerTransfer

/// The hash worker against the bytes actually in the files, whether it hashes the loop's copies or reads the file
/// back (pool exhausted, resumed prefix, rewrite).
@Suite struct HashWorkerTests {
    /// Deterministic bytes: `count` of them from `seed`.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
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
}
