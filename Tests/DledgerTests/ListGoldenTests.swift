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

    /// The arguments of `out-N.txt`, N from 1.
    static let commands: [[String]] = [
        ["ls"], ["ls", "--urls"], ["ls", "--trash"], ["ls", "--json"], ["ls", "--trash", "--json"],
        ["ls", "--sort", "name"], ["ls", "--sort", "size", "--desc"], ["ls", "--sort", "type", "--json"],
        ["ls", "--sort", "added"], ["ls", "--sort", "finished"], ["ls", "--unfinished"],
        ["ls", "--finished", "--json"], ["ls", "--section", "1"], ["ls", "--section", "2", "--json"],
        ["ls", "--desc"], ["export"], ["verify", "--skip-files"], ["verify", "--skip-files", "--json"],
        ["replay", "--to", "20"], ["replay", "--to", "20", "--json"],
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
        for (n, arguments) in Self.commands.enumerated() {
            let r = try await box.run(arguments)
            #expect(r.status == 0, "\(arguments)")
            let want = try Self.expected("out-\(n + 1).txt")
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
