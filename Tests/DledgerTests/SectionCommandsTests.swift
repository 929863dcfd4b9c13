import Foundation
import Testing

@Suite struct SectionCommandsTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func addRenameMoveRemove(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        #expect(try await box.run("section", "add", "ISOs").out == "inserted section 0 'ISOs'\n")
        #expect(
            try await box.run("section", "add", "Music", "--at", "0").out == "inserted section 0 'Music'\n")
        #expect(
            try await box.run("section", "rename", "1", "Linux").out
                == "renamed section 1 from 'ISOs' to 'Linux'\n")
        #expect(try await box.run("section", "mv", "1", "--to", "0").out == "moved section 1 'Linux' to 0\n")
        let export = try #require(try await box.run("export").json as? [String: Any])
        let titles = (export["sections"] as? [[String: Any]])?.map { $0["title"] as? String }
        #expect(titles == ["Linux", "Music"])
        #expect(try await box.run("section", "rm", "1").out == "removed section 1 'Music'\n")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func removingANonEmptySectionFails(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        let before = try await box.eventCount()
        let r = try await box.run("section", "rm", "0")
        #expect(r.status == 1)
        #expect(r.err == "error: section 0 is not empty (1 task): move or delete them first\n")
        let bad = try await box.run("section", "rename", "3", "X")
        #expect(bad.status == 64)
        #expect(bad.err == "error: section index 3 out of range (0..0)\n")
        #expect(try await box.eventCount() == before)
    }

    // No ledger: usage only.
    @Test func sectionAloneShowsItsSubcommands() async throws {
        let r = try await DledgerSandbox().run("section")
        #expect(r.status == 64)
        #expect(r.out.contains("section add"))
        let unknown = try await DledgerSandbox().run("section", "fold")
        #expect(unknown.status == 64)
        #expect(unknown.err.hasPrefix("error: unknown command 'section fold'"))
    }
}
