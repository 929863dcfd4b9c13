import Foundation
import LoopbackHTTP
import Testing

/// A server names its file after the ledger's own (`ledger.sqlite-journal`, `-wal`, `.lock`, `.new-<pid>-<n>`),
/// and the download folder is the ledger's: the download gets another name. SQLite would take a file named
/// `ledger.sqlite-journal` for the ledger's rollback journal, and the next writable open would remove one named
/// like a creation's leftover temporary: the user's download lost.
@Suite struct LedgerNameTests {
    static let hostile = [
        "ledger.sqlite-journal", "ledger.sqlite-wal", "ledger.sqlite", "ledger.sqlite.lock",
        "ledger.sqlite.new-999999-1", "ledger.sqlite2",
    ]

    @Test func aDownloadIsNeverNamedLikeTheLedgersOwnFiles() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        for (n, name) in Self.hostile.enumerated() {
            server.serve(
                "/\(n)",
                Resource(
                    size: Int64(1000 + n), seed: UInt64(n),
                    contentDisposition: "attachment; filename=\"\(name)\""))
        }
        let ledger = box.downloads + "/ledger.sqlite"
        let urls = Self.hostile.indices.map { server.url("/\($0)") }
        let got = try await box.run(["--ledger", ledger, "get"] + urls)
        #expect(got.status == 0, "\(got.err)")
        // Another writable open: it would remove a leftover temporary of a creation.
        let limit = try await box.run("--ledger", ledger, "limit", "4")
        #expect(limit.status == 0, "\(limit.err)")
        let list = try await box.run("--ledger", ledger, "ls", "--json").json as? [String: Any]
        let tasks = ((list?["sections"] as? [[String: Any]])?.first?["tasks"] as? [[String: Any]]) ?? []
        #expect(tasks.count == Self.hostile.count)
        for (n, task) in tasks.enumerated() {
            let name = try #require((task["file"] as? String)?.split(separator: "/").last.map(String.init))
            let expected = Body.generatedBytes(seed: UInt64(n), in: 0..<Int64(1000 + n))
            #expect(box.contents(name) == expected, "\(Self.hostile[n]) placed as \(name)")
            if Self.hostile[n] == "ledger.sqlite2" {
                #expect(name == "ledger.sqlite2")
            } else {
                let ledgers =
                    name == "ledger.sqlite" || name.hasPrefix("ledger.sqlite-")
                    || name.hasPrefix("ledger.sqlite.")
                #expect(!ledgers, "\(Self.hostile[n]) placed as \(name)")
            }
        }
        let verify = try await box.run("--ledger", ledger, "verify")
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        // A rename to one of those names is refused, and appends nothing.
        let before = try await box.run("--ledger", ledger, "log", "--json").jsonLines.count
        let renamed = try await box.run("--ledger", ledger, "rename", "1", "ledger.sqlite-journal")
        #expect(renamed.status == 1, "\(renamed.err)")
        #expect(renamed.err.contains("the ledger's own files"), "\(renamed.err)")
        #expect(try await box.run("--ledger", ledger, "log", "--json").jsonLines.count == before)
        #expect(!FileManager.default.fileExists(atPath: box.downloads + "/ledger.sqlite-journal"))
    }

    /// In another folder than the ledger's, those names are names like any other.
    @Test func elsewhereTheNamesAreFree() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve(
            "/j",
            Resource(size: 500, seed: 9, contentDisposition: "attachment; filename=\"ledger.sqlite-journal\"")
        )
        #expect(try await box.run("get", server.url("/j")).status == 0)
        #expect(box.contents("ledger.sqlite-journal") == Body.generatedBytes(seed: 9, in: 0..<500))
    }
}
