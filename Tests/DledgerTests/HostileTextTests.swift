import Foundation
import LoopbackHTTP
import Testing

@testable import dledger

/// Control characters from input files, servers or a tampered ledger never reach the terminal raw
/// (issue 10 §2): every human line goes through `Console.visible`.
@Suite struct HostileTextTests {
    static let raw: [Character] = ["\u{1B}", "\u{07}", "\u{08}", "\r", "\u{9B}", "\u{202E}"]

    static func expectNothingRaw(_ text: String, _ what: String) {
        for c in raw {
            #expect(!text.contains(c), "\(what) echoed U+\(String(c.unicodeScalars.first!.value, radix: 16))")
        }
    }

    @Test func controlsAreEscapedAndOurOwnStylesKept() {
        #expect(Console.visible("a\u{1B}]0;x\u{07}b", keepingStyles: true) == "a\\x1B]0;x\\x07b")
        #expect(Console.visible("\u{9B}2J \u{202E}txt", keepingStyles: false) == "\\u{9B}2J \\u{202E}txt")
        #expect(Console.visible("\u{1B}[31mred\u{1B}[0m", keepingStyles: true) == "\u{1B}[31mred\u{1B}[0m")
        #expect(Console.visible("\u{1B}[31mred\u{1B}[0m", keepingStyles: false) == "\\x1B[31mred\\x1B[0m")
        #expect(Console.visible("\u{1B}[2J", keepingStyles: true) == "\\x1B[2J")
        #expect(Console.visible("tab\tand\nline", keepingStyles: false) == "tab\tand\nline")
    }

    @Test func linesOfAnInputFileAreNotEchoedRaw() async throws {
        let box = try DledgerSandbox()
        let file = box.root + "/urls.txt"
        let lines = [
            "http://example.org/ok", "\u{1B}]0;pwned\u{07}http://example.org/a", "\u{9B}31mred",
            "http://exa\u{08}mple.org/b", "x\r\u{202E}gpj.exe",
        ]
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await box.run("add", "--from-file", file)
        Self.expectNothingRaw(r.out + r.err, "add --from-file")
        #expect((r.out + r.err).contains("\\x1B]0;pwned\\x07"), "\(r.out)\(r.err)")
        let bad = try await box.run("add", "\u{1B}[2Jhttp://example.org/c")
        #expect(bad.status == 64)
        Self.expectNothingRaw(bad.err, "add of a bad URL")
        let option = try await box.run("ls", "--\u{1B}[2J")
        #expect(option.status == 64)
        Self.expectNothingRaw(option.err, "an unknown option")
    }

    @Test func namesReadBackFromATamperedLedgerAreNotEchoedRaw() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.org/file.bin", "--section", "S")
        try await box.run("stop", "1")
        try sqlite3(
            box.ledger,
            "DROP TRIGGER events_refuse_update; UPDATE events SET payload = replace(replace(payload, 'file.bin', "
                + "'fi' || char(27) || ']0;x' || char(7) || 'le.bin'), '\"S\"', '\"S' || char(155) || '2J\"')"
        )
        for command in [
            ["ls"], ["log"], ["audit", "1"], ["replay", "--to", "2"], ["verify", "--skip-files"],
        ] {
            let r = try await box.run(command)
            Self.expectNothingRaw(r.out + r.err, "\(command)")
        }
        #expect(try await box.run("ls").out.contains("fi\\x1B]0;x\\x07le.bin"))
    }
}

extension HostileTextTests {
    @Test func jsonOutputEscapesC1AndBidiControls() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.org/file.bin", "--section", "S")
        try await box.run("stop", "1")
        try sqlite3(
            box.ledger,
            "DROP TRIGGER events_refuse_update; UPDATE events SET payload = replace(payload, 'file.bin', "
                + "'fi' || char(155) || '2J' || char(8238) || 'nib.' || char(8294) || 'le' || char(133) || '.bin')"
        )
        for command in [["ls", "--json"], ["log", "--json"], ["audit", "1", "--json"]] {
            let r = try await box.run(command)
            #expect(r.status == 0, "\(command): \(r.err)")
            for c: Character in ["\u{9B}", "\u{202E}", "\u{2066}", "\u{85}"] {
                #expect(
                    !r.out.contains(c),
                    "\(command) wrote U+\(String(c.unicodeScalars.first!.value, radix: 16)) raw")
            }
            #expect(r.out.contains("fi\\u009b2J\\u202enib.\\u2066le\\u0085.bin"), "\(command): \(r.out)")
        }
    }
}

/// Bytes that are not UTF-8 reach the program already replaced by U+FFFD: a URL with one is refused (fetching it
/// would ask for another URL than the one given), from a list file and from the command line alike.
@Suite struct NotUTF8Tests {
    @Test func aURLThatIsNotUTF8IsRefusedNotReplaced() async throws {
        let box = try DledgerSandbox()
        let file = box.root + "/latin1.txt"
        let latin1 =
            Array("http://example.org/caf".utf8) + [0xE9] + Array(".bin\nhttp://example.org/ok\n".utf8)
        #expect(FileManager.default.createFile(atPath: file, contents: Data(latin1)))
        let listed = try await box.run("add", "--from-file", file)
        #expect(listed.status == 0, "\(listed.err)")
        #expect(listed.out.contains("not UTF-8 text"), "\(listed.out)")
        let urls = try await box.run("ls", "--urls")
        #expect(urls.out.contains("http://example.org/ok"))
        #expect(!urls.out.contains("caf"), "\(urls.out)")
        let before = try await box.eventCount()
        // argv bytes through a shell: Foundation's Process takes arguments as Swift strings only.
        let p = box.process([])
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = [
            "-c", #"exec "$0" add "$(printf 'http://example.org/caf\351')""#, DledgerSandbox.binary,
        ]
        let typed = try await Running(p, stdin: nil).wait()
        #expect(typed.status == 64, "\(typed.status) \(typed.err)")
        #expect(typed.err.contains("not UTF-8 text"), "\(typed.err)")
        #expect(try await box.eventCount() == before)
    }
}

/// Numbers a server sends are read with a range check too.
@Suite struct HostileNumberTests {
    @Test(arguments: ["nan", "inf", "1e400", "-5", "0x10", ""])
    func aHostileRetryAfterIsIgnoredNotATrap(_ value: String) async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        var faults = Faults(failFirst: 1, failStatus: 503)
        faults.retryAfterText = value
        server.serve("/a.bin", Resource(size: 10_000, seed: 1, faults: faults))
        let r = try await box.run("get", server.url("/a.bin"))
        #expect(r.status == 0, "Retry-After: \(value): \(r.status) \(r.err.prefix(300))")
    }
}

/// A tampered payload nested 100,000 levels deep is named, not a stack overflow (SIGSEGV in every command before).
@Suite struct DeepPayloadTests {
    @Test func aDeeplyNestedPayloadIsAnUnreadableEventNotACrash() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.org/a")
        let open = "replace(hex(zeroblob(100000)), '00', '[')"
        let close = "replace(hex(zeroblob(100000)), '00', ']')"
        try sqlite3(
            box.ledger,
            "DROP TRIGGER events_refuse_update; UPDATE events SET payload = substr(payload, 1, length(payload) - 1)"
                + " || ',\"x\":' || \(open) || \(close) || '}' WHERE seq = 2")
        for command in [
            ["ls"], ["log"], ["log", "--json"], ["audit", "1"], ["verify"], ["add", "http://e.org/b"],
        ] {
            let r = try await box.run(command)
            #expect(r.status == 65, "\(command): \(r.status)")
            #expect(r.err.hasPrefix("error: event #2 cannot be read"), "\(command): \(r.err.prefix(200))")
        }
    }
}
