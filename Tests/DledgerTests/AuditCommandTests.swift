import Foundation
import Testing

/// `audit ID` of a task of one big add reads the add for that task's sake (no string for the others): it says
/// exactly what the log, which reads the add whole, says of it; a damaged add is refused either way.
@Suite struct AuditCommandTests {
    /// One `add --from-file` of 2,000 URLs in two groups (the second to a section of its own), with a user agent.
    private func bigAdd(_ box: DledgerSandbox) async throws {
        let urls = { (range: ClosedRange<Int>) in range.map { "https://example.org/pub/f\($0).iso?q=\"é\"" } }
        let list = (urls(1...1200) + ["# Later"] + urls(1201...2000)).joined(separator: "\n")
        try list.write(toFile: box.root + "/urls.txt", atomically: true, encoding: .utf8)
        let add = try await box.run(
            "add", "--from-file", box.root + "/urls.txt", "--user-agent", "curl/8", "-q")
        #expect(add.status == 0, "\(add.err)")
        try await box.run("pause", "1200", "1201")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func anAuditOfTasksOfABigAddSaysWhatTheLogSays(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await bigAdd(box)
        let log = try await box.run("log").out.split(separator: "\n").map(String.init)
        let logJSON = try await box.run("log", "--json").out.split(separator: "\n").map(String.init)
        #expect(log.count == 3 && logJSON.count == 3)
        #expect(
            log[1].hasSuffix(
                "added #1–#1200 to new section 0 'Downloads', #1201–#2000 to new section 1 'Later' with user-agent 'curl/8'"
            ), "\(log[1])")
        for (id, place) in [(1, "0:0"), (600, "0:599"), (1200, "0:1199"), (1201, "1:0"), (2000, "1:799")] {
            let audit = try await box.run("audit", "\(id)")
            #expect(audit.status == 0, "\(audit.err)")
            let lines = audit.out.split(separator: "\n").map(String.init)
            let paused = id == 1200 || id == 1201
            #expect(
                lines.first == "#\(id) f\(id).iso — \(paused ? "paused" : "waiting"), 0 B, at \(place)",
                "\(lines)")
            #expect(lines.dropFirst().first == "  https://example.org/pub/f\(id).iso?q=\"é\"")
            #expect(lines.dropFirst(2).first == "  user-agent curl/8")
            #expect(Array(lines.dropFirst(3)) == (paused ? [log[1], log[2]] : [log[1]]), "#\(id)")
            let json = try await box.run("audit", "\(id)", "--json").out.split(separator: "\n").map(
                String.init)
            #expect(json == (paused ? [logJSON[1], logJSON[2]] : [logJSON[1]]), "#\(id)")
            let task = try await box.run("log", "--task", "\(id)").out.split(separator: "\n").map(String.init)
            #expect(task == Array(lines.dropFirst(3)))
        }
    }

    /// The add's index (saved by the add, its payload being over 64 KiB) serves `audit`, `audit --json` and
    /// `log --task`: each says what it says with the index gone, when the add is read whole.
    // SQLite only: the add index is a table of the SQLite schema; a PostgreSQL ledger has none (docs/postgres.md).
    @Test func anAuditThroughTheAddIndexSaysWhatTheWholeAddSays() async throws {
        let box = try DledgerSandbox()
        try await bigAdd(box)
        #expect(try query(box.ledger, "SELECT seq FROM add_index") == "2")
        let commands = [1, 64, 65, 600, 1200, 1201, 1265, 2000].flatMap { id in
            [["audit", "\(id)"], ["audit", "\(id)", "--json"], ["log", "--task", "\(id)"]]
        }
        var indexed: [[String]: String] = [:]
        for command in commands {
            let r = try await box.run(command)
            #expect(r.status == 0, "\(command): \(r.err)")
            indexed[command] = r.out
        }
        try sqlite3(box.ledger, "DELETE FROM add_index")
        #expect(try query(box.ledger, "SELECT count(*) FROM add_index") == "0")
        for command in commands {
            let r = try await box.run(command)
            #expect(r.status == 0 && r.out == indexed[command], "\(command)")
        }
    }

    /// The output of the sqlite3 shell for `sql`, trimmed.
    private func query(_ path: String, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path, sql]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Another task's part of the add edited so it no longer reads (its URL removed): the audit of task 1 refuses
    /// the add in words as in JSON, though it makes nothing of the edited task.
    @Test(arguments: LedgerStoreKind.allCases)
    func anAddDamagedInAnotherTasksPartIsStillRefused(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await bigAdd(box)
        let field = "'\"url\":\"https://example.org/pub/f1500.iso?q=\\\"é\\\"\",'"
        switch store {
        case .sqlite:
            try box.editLedger(
                "DROP TRIGGER events_refuse_update; UPDATE events SET payload = replace(payload, \(field), '') "
                    + "WHERE seq = 2")
        case .postgres:
            try box.editLedger(
                "ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete; UPDATE events SET payload = "
                    + "convert_to(replace(convert_from(payload, 'UTF8'), \(field), ''), 'UTF8') WHERE seq = 2"
            )
        }
        for command in [
            ["audit", "1"], ["audit", "1", "--json"], ["log", "--task", "1"], ["audit", "2000"],
        ] {
            let r = try await box.run(command)
            #expect(r.status == 65, "\(command): \(r.status) \(r.out.prefix(300))")
            #expect(r.err.hasPrefix("error: event #2 cannot be read"), "\(command): \(r.err.prefix(200))")
        }
    }
}
