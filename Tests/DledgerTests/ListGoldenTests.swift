import Foundation
import Testing

/// `ls`, `export`, `verify` and `replay` print exactly the bytes they printed before their output was streamed:
/// `Fixtures/ListGolden` holds a ledger (sections, an empty one, a to-delete list of both modes, a sealed
/// credential and request options, finished, failed, paused and interrupted tasks, a hostile name with an escape
/// and a bidi override, wide characters, quotes in a title) and what the tool printed for it then.
@Suite struct ListGoldenTests {
    static let fixtures =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/ListGolden"
        )
        .path

    /// The arguments of `out-N.txt`. The sorts that group by age (`added`, `finished`) are left out: their
    /// groups depend on today's date (ViewTests checks them at a fixed time).
    static let commands: [(arguments: [String], file: Int)] = [
        (["ls"], 1), (["ls", "--urls"], 2), (["ls", "--trash"], 3), (["ls", "--json"], 4),
        (["ls", "--trash", "--json"], 5), (["ls", "--sort", "name"], 6),
        (["ls", "--sort", "size", "--desc"], 7),
        (["ls", "--sort", "type", "--json"], 8), (["ls", "--unfinished"], 11),
        (["ls", "--finished", "--json"], 12),
        (["ls", "--section", "1"], 13), (["ls", "--section", "2", "--json"], 14), (["ls", "--desc"], 15),
        (["export"], 16), (["verify", "--skip-files"], 17), (["verify", "--skip-files", "--json"], 18),
        (["replay", "--to", "20"], 19), (["replay", "--to", "20", "--json"], 20),
    ]

    static func sandbox() throws -> DledgerSandbox {
        let box = try DledgerSandbox()
        try FileManager.default.copyItem(atPath: fixtures + "/ledger.sqlite", toPath: box.ledger)
        return box
    }

    static func expected(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
    }

    @Test func everyViewPrintsTheBytesItPrintedBefore() async throws {
        let box = try Self.sandbox()
        for (arguments, file) in Self.commands {
            let r = try await box.run(arguments)
            #expect(r.status == 0, "\(arguments)")
            let want = try Self.expected("out-\(file).txt")
            #expect(
                Array(r.out.utf8) == want, "dledger \(arguments.joined(separator: " ")) changed its output")
        }
    }

    @Test(arguments: [("ls", "color-ls.txt"), ("ls --trash", "color-trash.txt")])
    func colorsOnATerminalAreTheSame(command: String, file: String) async throws {
        let box = try Self.sandbox()
        // A real pseudo-terminal (script(1)): colors on, as a user's terminal shows them.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", "'\(DledgerSandbox.binary)' \(command)", "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm"
        environment["DLEDGER_LEDGER"] = box.ledger
        p.environment = environment
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(
            Array(out) == (try Self.expected(file)), "dledger \(command) on a terminal changed its output")
    }
}
