import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

@testable import dledger

/// Every number the command line takes, fed extreme values: the answer is a one-line usage error (exit 64)
/// that appends nothing, or a valid result; never a trap. The slots come from the command table, so an option
/// added later is covered without touching this file.
@Suite struct NumericInputTests {
    static let extremes = [
        "0", "-1", "9223372036854775807", "9223372036854775808", "1e30", "NaN", "inf",
        "99999999999999999999G",
    ]

    /// Placeholders that are not numbers (everything else is fed the extremes).
    static let textual: Set<String> = [
        "<url>", "<title>", "<name>", "<hex>", "<file>", "<path>", "<mode>", "<token>", "<header>", "<text>",
    ]

    /// Complete command lines that the slot under test is put into (its own option or positional replaced).
    static func base(_ command: String, url: String) -> [String] {
        switch command {
        case "add", "get": return [url]
        case "run": return ["--until-idle"]
        case "mv": return ["1", "--to", "0"]
        case "section mv": return ["0", "--to", "0"]
        case "section rename": return ["0", "T"]
        case "section add": return ["T"]
        case "rename": return ["1", "new-name"]
        case "option": return ["1"]
        case "restore", "purge": return ["3"]
        default: return []
        }
    }

    struct Case: Sendable {
        var args: [String]
        var slot: String
    }

    /// Every (command, numeric slot, extreme value) as a command line.
    static func cases(url: String) -> [Case] {
        var all: [Case] = []
        for spec in CLI.commands where spec.name != "demo" {
            let words = spec.name.split(separator: " ").map(String.init)
            let base = base(spec.name, url: url)
            for (shown, _) in spec.options {
                let parts = shown.split(separator: " ").map(String.init)
                guard parts.count == 2, !textual.contains(parts[1]) else { continue }
                let option = parts[0].split(separator: ",")[0].trimmingCharacters(in: .whitespaces)
                var line = base
                if let i = line.firstIndex(of: option) { line.removeSubrange(i...(i + 1)) }
                for value in extremes
                    + (parts[1].contains(":") ? ["-1", "9223372036854775807", "1e30"].map { "0:" + $0 } : [])
                {
                    all.append(Case(args: words + line + [option, value], slot: "\(spec.name) \(option)"))
                }
            }
            for (index, (placeholder, _)) in spec.arguments.enumerated() where !textual.contains(placeholder)
            {
                for value in extremes {
                    var line = base
                    if index < line.count, !line[index].hasPrefix("-") {
                        line[index] = value
                    } else {
                        line.insert(value, at: min(index, line.count))
                    }
                    all.append(Case(args: words + line, slot: "\(spec.name) \(placeholder)"))
                }
            }
        }
        return all
    }

    @Test func everyNumericSlotAnswersExtremesWithAUsageErrorOrAValidResult() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 2_000, seed: 1))
        let url = server.url("/a.bin")
        try await box.run("add", url, server.url("/b.bin"), server.url("/c.bin"), "--section", "S")
        try await box.run("pause", "--all")
        try await box.run("rm", "3")
        let fixture = box.root + "/fixture.sqlite"
        try FileManager.default.copyItem(atPath: box.ledger, toPath: fixture)
        let all = Self.cases(url: url)
        let slots = Set(all.map(\.slot))
        // The table has them (a regression that empties it would make this test vacuous).
        for slot in [
            "speed-limit <rate>", "log --since", "replay --at", "replay --to", "ls --recent", "run -j",
            "get -j", "limit <n>", "undo <n>", "mv --to", "audit <id>", "add --at",
        ] {
            #expect(slots.contains(slot), "\(slot) is not enumerated")
        }
        print("NumericInputTests: \(all.count) command lines")
        var failures: [String] = []
        await withTaskGroup(of: String?.self) { group in
            var running = 0
            for (n, c) in all.enumerated() {
                if running == 4, let done = await group.next() {
                    if let done { failures.append(done) }
                    running -= 1
                }
                running += 1
                group.addTask { await Self.check(c, n: n, box: box, fixture: fixture) }
            }
            for await done in group { if let done { failures.append(done) } }
        }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(all.count):\n\(failures.prefix(20).joined(separator: "\n"))")
    }

    /// Runs one case on its own copy of the fixture; nil when it held.
    static func check(_ c: Case, n: Int, box: DledgerSandbox, fixture: String) async -> String? {
        let ledger = box.root + "/case-\(n).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm", ".lock"] {
                try? FileManager.default.removeItem(atPath: ledger + suffix)
            }
        }
        do {
            try FileManager.default.copyItem(atPath: fixture, toPath: ledger)
            let before = try Ledger(path: ledger, readOnly: true).list.head
            let running = try Running(box.process(c.args, env: ["DLEDGER_LEDGER": ledger]), stdin: nil)
            // A command that serves (`serve --rpc-listen-port 0`) keeps running on a valid value: stopped after
            // a few seconds, it counts as a valid result.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(4))
                running.process.terminate()
            }
            let r = await running.wait()
            watchdog.cancel()
            if r.status == 130 || r.status == SIGTERM { return nil }
            let after = try Ledger(path: ledger, readOnly: true).list.head
            let line = "dledger " + c.args.map { "'\($0)'" }.joined(separator: " ")
            let errors = r.err.split(separator: "\n").filter { !$0.hasPrefix("hint: ") }
            switch r.status {
            case 0: return nil
            case 1, 64:
                if after != before {
                    return "\(line): exit \(r.status) but \(after - before) events appended"
                }
                if errors.count != 1 || !errors[0].hasPrefix("error: ") {
                    return "\(line): exit \(r.status) without a one-line error: \(r.err)"
                }
                return nil
            default:
                return "\(line): exit \(r.status) \(r.err.split(separator: "\n").prefix(2))"
            }
        } catch {
            return "\(c.args): \(error)"
        }
    }
}
