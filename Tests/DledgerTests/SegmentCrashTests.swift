import DownloadLedger
import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// `kill -9` of a `dledger run` fetching one file over 16 connections, twice: every byte that reached the partial
/// file is kept, and the next run asks each missing piece with its own Range.
@Suite struct SegmentCrashTests {
    /// Starts `dledger run --connections 16`, waits until the piece map of task 1 shows `ranges` written ranges
    /// and `bytes` written, kills the run with SIGKILL, and returns the map as the dead process left it.
    func killSplitRun(_ box: DledgerSandbox, ranges: Int, bytes: Int64) async throws -> PartialPieces? {
        let runner = try box.start("run", "--connections", "16")
        let path = box.partialPath(1)
        let grown = await eventually(20) {
            guard let map = PartialPieces.read(path: path) else { return false }
            return map.written.count >= ranges && map.written.reduce(0) { $0 + Int64($1.count) } >= bytes
        }
        #expect(grown, "the piece map never showed \(ranges) ranges and \(bytes) bytes")
        kill(runner.process.processIdentifier, SIGKILL)
        let dead = await runner.wait()
        #expect(dead.status == SIGKILL, "the run ended before the kill: \(dead.err)")
        return PartialPieces.read(path: path)
    }

    @Test func killedTwiceDuringASixteenConnectionDownloadThenEveryPieceResumesWithItsOwnRange() async throws
    {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 16_000_000
        let resource = Resource(
            size: size, seed: 61, etag: "\"k1\"", faults: Faults(throttleBytesPerSecond: 400_000))
        server.serve("/k.bin", resource)
        #expect(try await box.run("add", server.url("/k.bin")).status == 0)

        let first = try #require(try await killSplitRun(box, ranges: 8, bytes: 3_000_000))
        let asked = server.requests("/k.bin").count
        let second = try #require(try await killSplitRun(box, ranges: 8, bytes: 7_000_000))
        let askedAgain = server.requests("/k.bin").count
        // Every byte the first run wrote is still written.
        for range in first.written {
            #expect(
                second.written.contains { $0.contains(range.lowerBound) && $0.upperBound >= range.upperBound }
            )
        }

        let run = try await box.run("run", "--until-idle", "--connections", "16")
        #expect(run.status == 0, "\(run.err)")
        let identical = box.contents("k.bin") == resource.body.allBytes
        #expect(identical, "k.bin differs from the served body")
        let requests = server.requests("/k.bin")
        for (map, from, to) in [(first, asked, askedAgain), (second, askedAgain, requests.count)] {
            let starts = requests[from..<to].compactMap { request -> Int64? in
                guard let range = request.range, range.hasPrefix("bytes="), range.hasSuffix("-") == false
                else {
                    return nil
                }
                return Int64(range.dropFirst(6).prefix { $0 != "-" })
            }
            #expect(starts.count == to - from, "a resumed request without a bounded Range")
            for hole in map.missing {
                #expect(starts.contains(hole.lowerBound), "hole \(hole) not asked with its own Range")
            }
            #expect(requests[from..<to].allSatisfy { $0.ifRange == "\"k1\"" })
        }
        let log = try await box.run("log")
        #expect(log.out.contains("split into"), "\(log.out)")
        #expect(log.out.contains(" connections; 127.0.0.1:"), "\(log.out)")
        #expect(try await box.task(1)?["state"] as? String == "finished")
    }
}
