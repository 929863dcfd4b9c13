import Foundation
import LedgerFrontEnd
import Testing

@testable import dledger

/// The rules every command line follows (issue 10 §2, issue 11 §4).
@Suite struct CommandLineRulesTests {
    /// The front ends' readers (LedgerFrontEnd, `ParsingTests`) refuse with an `InputError`: the CLI says it as a
    /// usage error, exit 64, one line.
    @Test func aValueTheReadersRefuseIsAUsageError() async throws {
        let error = CLIError(InputError("not a size: '12Q'"))
        #expect(error.exitCode == CLIError.usageStatus && error.description == "not a size: '12Q'")
        let box = try DledgerSandbox()
        let r = try await box.run("speed-limit", "12Q")
        #expect(r.status == 64 && r.err.hasPrefix("error: not a rate: '12Q'"), "\(r.err)")
    }

    @Test func aSingleValueOptionGivenTwiceIsAUsageErrorThatCreatesNothing() async throws {
        let box = try DledgerSandbox()
        let r = try await box.run("add", "http://example.org/a", "--name", "a", "--name", "b")
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("error: option '--name' is given twice"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        let jobs = try await box.run("run", "--jobs", "2", "-j", "3")
        #expect(jobs.status == 64)
        #expect(jobs.err.hasPrefix("error: option '-j' is given twice"), "\(jobs.err)")
        // A flag given twice is the flag.
        try await box.run("add", "http://example.org/a")
        #expect(try await box.run("ls", "--json", "--json").status == 0)
    }

    @Test func globalOptionsAreAcceptedByEveryCommand() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://127.0.0.1:9/a")
        try await box.run("pause", "1")
        let globals = ["--ledger", box.ledger, "--dir", box.root, "--json", "-q", "--no-color"]
        for spec in CLI.commands where spec.name != "demo" {
            // `run` and `serve` would keep running: `--until-idle` ends the one, and for the other a refusal that
            // comes only after the options were accepted (listening on every address with the secret turned off).
            let words =
                spec.name.split(separator: " ").map(String.init)
                + (spec.name == "run" ? ["--until-idle"] : [])
                + (spec.name == "serve" ? ["--rpc-listen-all", "--rpc-secret", ""] : [])
            let r = try await box.run(words + globals)
            #expect(!r.err.contains("does not apply"), "\(spec.name): \(r.err)")
        }
        #expect(try await box.run("ls", "--dir", box.root).status == 0)
        #expect(try await box.run("verify", "--dir", box.root).status == 0)
    }
}

extension CommandLineRulesTests {
    /// The ids of `ls` (text) in the order printed.
    static func order(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first.flatMap { $0.hasPrefix("#") ? String($0) : nil }
        }
    }

    @Test func lsDescWithoutSortAppliesToTheCurrentSort() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.org/b", "http://example.org/c", "--section", "One")
        try await box.run("add", "http://example.org/a", "--section", "Two")
        #expect(Self.order(try await box.run("ls").out) == ["#1", "#2", "#3"])
        #expect(Self.order(try await box.run("ls", "--desc").out) == ["#3", "#2", "#1"])
        try await box.run("sort", "name")
        #expect(Self.order(try await box.run("ls").out) == ["#3", "#1", "#2"])
        #expect(Self.order(try await box.run("ls", "--desc").out) == ["#2", "#1", "#3"])
        let json = try await box.run("ls", "--desc", "--json").json as? [String: Any]
        #expect(json?["descending"] as? Bool == true)
        #expect(json?["sort"] as? String == "name")
    }
}
