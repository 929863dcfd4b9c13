import Foundation
import Testing

@Suite struct ListCommandTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func humanListShowsSectionsIdsStatesAndNames(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a.iso")
        try await box.run("add", "http://example.com/b.mkv", "--section", "Videos")
        let r = try await box.run("ls")
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines[0] == "0 Downloads  (1 task)")
        #expect(lines[1].contains("#1") && lines[1].contains("waiting") && lines[1].hasSuffix("a.iso"))
        #expect(lines[2] == "1 Videos  (1 task)")
        #expect(lines[3].contains("#2") && lines[3].hasSuffix("b.mkv"))
        #expect(!r.out.contains("\u{1B}["), "no escape codes when stdout is not a terminal")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func jsonShapeIsStable(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a.iso")
        let r = try await box.run("ls", "--json")
        let doc = try #require(r.json as? [String: Any])
        #expect(Set(doc.keys) == ["seq", "time", "sort", "descending", "filter", "sections"])
        let sections = try #require(doc["sections"] as? [[String: Any]])
        #expect(sections[0]["title"] as? String == "Downloads" && sections[0]["index"] as? Int == 0)
        let task = try #require((sections[0]["tasks"] as? [[String: Any]])?.first)
        let keys: Set<String> = [
            "id", "url", "name", "state", "section", "index", "bytes", "size", "file", "directory", "sha256",
            "expectedSha256", "attempts", "connectionKept", "connections", "options", "failure", "added",
            "finished", "deleted",
        ]
        #expect(Set(task.keys) == keys)
        #expect(
            task["id"] as? Int == 1 && task["state"] as? String == "waiting" && task["bytes"] as? Int == 0)
        #expect(task["size"] is NSNull)
        // Key order is part of the contract: id first, then url, name, state.
        #expect(r.out.range(of: "\"id\"")!.lowerBound < r.out.range(of: "\"url\"")!.lowerBound)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func filtersAndSortsSelectTheView(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/zeta.txt", "http://example.com/alpha.png")
        try await box.run("rm", "1")
        let trash = try #require(try await box.run("ls", "--trash", "--json").json as? [String: Any])
        let trashTasks = (trash["sections"] as? [[String: Any]])?.first?["tasks"] as? [[String: Any]]
        #expect(trashTasks?.map { $0["id"] as? Int } == [1])
        #expect((trashTasks?.first?["deleted"] as? [String: Any])?["mode"] as? String == "all")
        let byName = try await box.run("ls", "--sort", "name")
        #expect(byName.out.hasPrefix("A  (1 task)"))
        let bad = try await box.run("ls", "--sort", "colour")
        #expect(bad.status == 64)
        #expect(bad.err.hasPrefix("error: unknown sort mode 'colour'"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func readingCommandsNeverCreateALedger(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        for command in ["ls", "log", "stats", "export", "verify"] {
            let r = try await box.run(command)
            #expect(r.status == 1, "\(command)")
            #expect(r.err.hasPrefix("error: no ledger at \(box.shownLedger)"), "\(command): \(r.err)")
        }
        #expect(try !box.ledgerExists())
    }

    // SQLite only: files that are not ledgers (a PostgreSQL location is a URI: PostgresLedgerTests).
    @Test func foreignFilesExit65() async throws {
        let box = try DledgerSandbox()
        let text = box.root + "/notes.txt"
        try "just some text\n".write(toFile: text, atomically: true, encoding: .utf8)
        let other = box.root + "/other.db"
        try sqlite3(
            other,
            "CREATE TABLE photos(id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos VALUES (1, 'a');")
        for file in [text, other] {
            for args in [["ls"], ["add", "http://example.com/a"], ["log"]] {
                let r = try await box.run(args + ["--ledger", file])
                #expect(r.status == 65, "\(args) on \(file)")
                #expect(r.err.hasPrefix("error: ") && r.err.split(separator: "\n").count == 1, "\(r.err)")
            }
        }
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "just some text\n")
    }
}
