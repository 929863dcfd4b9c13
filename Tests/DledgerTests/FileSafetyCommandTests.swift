import Foundation
import LoopbackHTTP
import Testing

/// `dledger` never leaves or deletes what is not its own: concurrent renames, and finished files the user replaced.
@Suite(.serialized) struct FileSafetyCommandTests {
    /// A sandbox whose task #1 (`f.bin`, 30 kB) was downloaded by `get`.
    func finished() async throws -> (DledgerSandbox, LoopbackServer) {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/f.bin", Resource(size: 30_000, seed: 4))
        let r = try await box.run("get", server.url("/f.bin"))
        try #require(r.status == 0, "\(r.err)")
        return (box, server)
    }

    /// The names in the download directory, hidden ones aside.
    func visible(_ box: DledgerSandbox) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: box.downloads).filter { !$0.hasPrefix(".") }
            .sorted()
    }

    /// Several `dledger rename` processes on one finished task at once: whatever the interleaving, one name is
    /// left on disk, it is the one the list shows, and the file has no second link. (Processes start a few ms
    /// apart, so they overlap only sometimes; FileSafetyTests races eight connections in one process reliably.)
    @Test func concurrentRenamesLeaveExactlyOneName() async throws {
        let (box, _) = try await finished()
        for round in 0..<3 {
            let running = try (0..<8).map { n in try box.start("rename", "1", "r\(round)-\(n).bin") }
            for process in running { _ = await process.wait() }
            let names = try visible(box)
            let shown = try await box.task(1)?["file"] as? String
            #expect(names.count == 1, "round \(round): \(names)")
            #expect(shown.map { ($0 as NSString).lastPathComponent } == names.first)
            var info = stat()
            #expect(lstat(box.downloads + "/" + (names.first ?? ""), &info) == 0)
            #expect(info.st_nlink == 1, "round \(round): \(info.st_nlink) links")
        }
        let log = try await box.run("verify", "--checksums")
        #expect(log.status == 0, "\(log.out)")
    }

    /// The user replaced the finished file: `redownload` keeps it, says so in one line, and the log keeps it.
    @Test func aReplacedFileIsKeptAndSaidSo() async throws {
        let (box, _) = try await finished()
        let path = box.downloads + "/f.bin"
        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("mine".utf8)))
        let r = try await box.run("redownload", "1")
        #expect(r.status == 0, "\(r.err)")
        let said = r.out.split(separator: "\n")
        #expect(said.count == 1)
        #expect(
            said.first?.hasSuffix(
                "kept the file of #1 ('f.bin'): not the file downloaded (replaced or changed since)") == true,
            "\(r.out)")
        #expect(box.contents("f.bin") == Array("mine".utf8))
        let log = try await box.run("log", "--json").jsonLines.last
        let payload = log?["payload"] as? [String: Any]
        #expect(payload?["kept"] as? [Int] == [1])
        let audit = try await box.run("audit", "1")
        #expect(audit.out.contains("kept the file of #1"))
    }
}
