import Foundation
import Testing

/// `dledger set max-connection-per-server N|default` and `set min-split-size SIZE|default`: the ledger's
/// defaults for splitting a download, next to `set max-size`, each one undoable event.
@Suite struct SplitSettingsCommandTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func bothAreSettingsShownByEveryOutputAndUndone(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a.iso")
        let perServer = try await box.run("set", "max-connection-per-server", "4")
        #expect(perServer.status == 0, "\(perServer.err)")
        #expect(perServer.out == "max-connection-per-server set to 4: at most 4 connections to one server\n")
        let split = try await box.run("set", "min-split-size", "4M")
        #expect(split.out == "min-split-size set to 4 MiB: no piece smaller\n", "\(split.err)")
        let shown = try await box.run("set").out
        #expect(
            shown.contains("max-connection-per-server  4\n")
                && shown.contains("min-split-size             4 MiB\n"))
        let json = try #require(try await box.run("set", "--json").json as? [String: Any])
        #expect(json["max-connection-per-server"] as? Int == 4 && json["min-split-size"] as? Int == 4 << 20)
        let export = try #require(try await box.run("export").json as? [String: Any])
        let settings = try #require(export["settings"] as? [String: Any])
        #expect(settings["connectionsPerServer"] as? Int == 4 && settings["minSplitSize"] as? Int == 4 << 20)
        let log = try await box.run("log").out
        #expect(
            log.contains("connectionsPerServerChanged") && log.contains("min-split-size set to 4 MiB"),
            "\(log)")

        // Undo takes each back; `default` is the downloader's again.
        #expect(try await box.run("undo").out.contains("min-split-size: the default (1 MiB)"))
        #expect(try await box.run("set").out.contains("min-split-size             default (1 MiB)\n"))
        #expect(try await box.run("set", "max-connection-per-server", "default").status == 0)
        #expect(try await box.run("set").out.contains("max-connection-per-server  default (16)\n"))
        let again = try await box.run("set", "max-connection-per-server", "default")
        #expect(again.status == 1 && again.err.contains("already the default"), "\(again.err)")
    }

    /// Bad values: one line, exit 64, nothing appended (and on a missing ledger, no ledger created).
    @Test(arguments: LedgerStoreKind.allCases)
    func badValuesAreRefusedAndChangeNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let cases: [(String, String)] = [
            ("max-connection-per-server", "0"), ("max-connection-per-server", "17"),
            ("max-connection-per-server", "-1"), ("max-connection-per-server", "1.5"),
            ("max-connection-per-server", "x"), ("max-connection-per-server", ""),
            ("max-connection-per-server", "99999999999999999999"),
            ("min-split-size", "1000K"), ("min-split-size", "1MB"), ("min-split-size", "2G"),
            ("min-split-size", "0"), ("min-split-size", "x"), ("min-split-size", "1e9"),
            ("min-split-size", "-4M"),
        ]
        for (name, bad) in cases {
            let r = try await box.run("set", name, bad)
            #expect(r.status == 64, "set \(name) '\(bad)': \(r.status) \(r.err)")
            // One line saying what is wrong (and the usual pointer to the command's help).
            let lines = r.err.split(separator: "\n").filter { !$0.hasPrefix("hint: ") }
            #expect(r.err.hasPrefix("error: ") && lines.count == 1, "\(r.err)")
        }
        #expect(try !box.ledgerExists())
        try await box.run("add", "http://example.com/a.iso")
        let before = try await box.eventCount()
        for (name, bad) in cases {
            #expect(try await box.run("set", name, bad).status == 64)
        }
        #expect(try await box.run("set", "min-split-size").status == 64)
        #expect(try await box.eventCount() == before)
    }

    /// The help, the man page and the completions name both settings, from the command table.
    // No ledger: help, man page and completions.
    @Test func helpManPageAndCompletionsNameThem() async throws {
        let box = try DledgerSandbox()
        let help = try await box.run("set", "--help").out
        #expect(
            help.contains("max-connection-per-server <n>") && help.contains("min-split-size <size>"),
            "\(help)")
        // roff writes a hyphen as \-.
        let man = try await box.run("help", "--man").out.replacingOccurrences(of: "\\-", with: "-")
        #expect(man.contains("max-connection-per-server") && man.contains("min-split-size"))
        let bash = try await box.run("completions", "bash").out
        #expect(bash.contains("max-connection-per-server") && bash.contains("min-split-size"))
    }
}
