import Foundation
import Testing

/// The root command: help, version, unknown commands and options.
@Suite struct CLITests {
    static let commands = [
        "add", "get", "run", "serve", "ls", "pause", "resume", "stop", "mv", "rm", "restore", "purge",
        "redownload", "rename",
        "limit", "speed-limit", "sort", "section add", "section rename", "section mv", "section rm", "log",
        "audit",
        "replay", "verify", "export", "stats", "undo", "redo", "demo", "completions", "service enable",
        "service disable", "service units",
    ]

    @Test func everyCommandHasHelpWithItsUsage() async throws {
        let box = try DledgerSandbox()
        for command in Self.commands {
            let words = command.split(separator: " ").map(String.init)
            let r = try await box.run(words + ["--help"])
            #expect(r.status == 0, "\(command) --help")
            #expect(r.out.contains("USAGE: dledger \(command)"), "\(command) --help")
            #expect(r.out.contains("OVERVIEW: "), "\(command) --help")
            let viaHelp = try await box.run(["help"] + words)
            #expect(viaHelp.out == r.out, "help \(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: box.ledger), "help never creates a ledger")
    }

    @Test func rootHelpListsEveryCommand() async throws {
        let r = try await DledgerSandbox().run("--help")
        #expect(r.status == 0)
        for command in Self.commands { #expect(r.out.contains("  \(command) "), "\(command)") }
    }

    @Test func versionPrintsOneLine() async throws {
        let r = try await DledgerSandbox().run("--version")
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("dledger "))
        #expect(r.out.split(separator: "\n").count == 1)
    }

    @Test func unknownCommandIsAUsageError() async throws {
        let r = try await DledgerSandbox().run("frobnicate")
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("error: unknown command 'frobnicate'\n"))
        #expect(r.err.contains("hint: see 'dledger --help'"))
    }

    @Test func unknownOrMisplacedOptionIsAUsageError() async throws {
        let box = try DledgerSandbox()
        let unknown = try await box.run("ls", "--frob")
        #expect(unknown.status == 64)
        #expect(unknown.err.hasPrefix("error: unknown option '--frob'"))
        #expect(unknown.err.contains("hint: see 'dledger ls --help'"))
        let inSection = try await box.run(
            "--ledger", box.downloads + "/l.sqlite", "section", "rename", "--frob")
        #expect(inSection.err.contains("hint: see 'dledger section rename --help'"))
        let misplaced = try await box.run("ls", "--until-idle")
        #expect(misplaced.status == 64)
        #expect(misplaced.err.contains("error: option '--until-idle' does not apply to 'dledger ls'"))
        #expect(misplaced.err.contains("hint: see 'dledger ls --help'"))
        let missing = try await box.run("add", "--section")
        #expect(missing.status == 64)
        #expect(missing.err.contains("error: option '--section' needs a value"))
    }

    @Test func globalOptionsGoBeforeOrAfterTheCommand() async throws {
        let box = try DledgerSandbox()
        let other = box.root + "/other.sqlite"
        #expect(try await box.run("--ledger", other, "add", "http://example.com/a").status == 0)
        #expect(try await box.run("add", "http://example.com/b", "--ledger=\(other)").status == 0)
        let r = try await box.run("--json", "ls", "--ledger", other)
        let sections = (r.json as? [String: Any])?["sections"] as? [[String: Any]]
        #expect(sections?.first?["tasks"].map { ($0 as? [Any])?.count } == 2)
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    @Test func doubleDashEndsOptions() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.com/a")
        let r = try await box.run("rename", "1", "--", "--odd-name")
        #expect(r.status == 0)
        #expect(try await box.task(1)?["name"] as? String == "--odd-name")
    }
}
