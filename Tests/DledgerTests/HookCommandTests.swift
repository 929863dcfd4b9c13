import Foundation
import LoopbackHTTP
import Testing

/// Hooks as aria2 users script them: real scripts, run by a real `dledger run`.
@Suite struct HookCommandTests {
    /// GID of task #1, as `dledger serve` shows it (and aria2 scripts pass back over RPC).
    static let gidOfTask1 = "aa1edc39f66d14a9"

    /// Writes an executable shell script into the sandbox; returns its absolute path.
    private func script(_ box: DledgerSandbox, _ name: String, _ body: String) throws -> String {
        let path = box.root + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// The `hookFinished` facts of the log, as `log --json` gives them.
    private func hookFacts(_ box: DledgerSandbox) async throws -> [[String: Any]] {
        try await box.run("log", "--json").jsonLines.filter { $0["kind"] as? String == "hookFinished" }
    }

    private func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func completeHookGetsTheGIDOneAndThePathWithoutCredentials(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 50_000, seed: 1))
        let hook = try script(
            box, "done.sh",
            """
            printf '%s\\n' "$1" "$2" "$3" > "$0.args"
            env > "$0.env"
            [ -f "$3" ] && echo there > "$0.exists"
            printf 'moved \\033[31m%s\\n second line\\n' "$(basename "$3")"
            exit 3

            """)
        try await box.run("add", server.url("/a.bin"))
        let run = try await box.run(
            ["run", "--until-idle", "--on-download-complete", hook],
            env: [
                "DLEDGER_RPC_SECRET": "s3cret-token", "GOPHER_PROXY": "http://user:pw@127.0.0.1:9",
                "NOAUTH_PROXY": "http://127.0.0.1:9",
            ])
        #expect(run.status == 0, "\(run.err)")
        // aria2's three arguments: the GID `serve` shows, the number of files, the file's path.
        #expect(lines(hook + ".args") == [Self.gidOfTask1, "1", box.downloads + "/a.bin"])
        #expect(lines(hook + ".exists") == ["there"])
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 1, in: 0..<50_000))
        let env = lines(hook + ".env")
        #expect(env.contains("DLEDGER_TASK_ID=1"))
        #expect(env.contains("NOAUTH_PROXY=http://127.0.0.1:9"))
        #expect(!env.contains { $0.contains("s3cret-token") || $0.contains("user:pw") }, "\(env)")
        let facts = try await hookFacts(box)
        #expect(facts.count == 1)
        let payload = facts.first?["payload"] as? [String: Any]
        #expect(payload?["hook"] as? String == "complete")
        #expect(payload?["command"] as? String == hook)
        #expect(payload?["exit"] as? Int == 3)
        // The first line only, its escape character replaced.
        #expect(payload?["line"] as? String == "moved ?[31ma.bin")
        let audit = try await box.run("audit", "1")
        #expect(
            audit.out.contains("#1 on-download-complete hook \(hook) exited 3: moved ?[31ma.bin"),
            "\(audit.out)")
        #expect(!audit.out.contains("\u{1B}"))
    }

    /// An aria2 script as people write them: `$1` is the GID it asks `serve` about over JSON-RPC.
    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func anAria2ScriptCallsServeBackWithItsFirstArgument() async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.serve("/a.bin", Resource(size: 40_000, seed: 3))
        let hook = try script(
            box, "aria2-hook.sh",
            """
            env > "$0.env"
            body='{"jsonrpc":"2.0","id":"h","method":"aria2.tellStatus","params":["token:pw","'"$1"'",["gid","status","files"]]}'
            curl -s --noproxy '*' -d "$body" "http://127.0.0.1:$(cat "$0.port")/jsonrpc" > "$0.reply"

            """)
        // The secret comes from the environment, as a service unit gives it.
        let server = try Running(
            box.process(
                ["serve", "--rpc-listen-port", "0", "--on-download-complete", hook],
                env: ["DLEDGER_RPC_SECRET": "pw"]),
            stdin: nil)
        var port = 0
        _ = await eventually {
            let out = server.output
            if let r = out.range(of: "127.0.0.1:") {
                let digits = out[r.upperBound...].prefix { $0.isNumber }
                if out[r.upperBound...].dropFirst(digits.count).hasPrefix("/jsonrpc") {
                    port = Int(digits) ?? 0
                }
            }
            return port > 0
        }
        try #require(port > 0, "dledger serve did not start: \(server.output)")
        try String(port).write(toFile: hook + ".port", atomically: true, encoding: .utf8)
        try await box.run("add", files.url("/a.bin"))
        let answered = await eventually { !lines(hook + ".reply").isEmpty }
        server.interrupt()
        _ = await server.wait()
        #expect(answered)
        let reply = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: hook + ".reply")))
        let result = (reply as? [String: Any])?["result"] as? [String: Any]
        #expect(result?["gid"] as? String == Self.gidOfTask1, "\(reply)")
        #expect(result?["status"] as? String == "complete")
        let path = ((result?["files"] as? [[String: Any]])?.first)?["path"] as? String
        #expect(path == box.downloads + "/a.bin")
        #expect(!lines(hook + ".env").contains { $0.contains("DLEDGER_RPC_SECRET") })
        // serve waited for the hook before it stopped: its fact is in the log.
        #expect(try await hookFacts(box).count == 1)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func errorHookFromTheLedgerSettingRunsOnceAfterA404(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        let complete = try script(box, "complete.sh", "echo ran >> \"$0.count\"\n")
        let error = try script(
            box, "error.sh", "printf '%s\\n' \"$1\" \"$2\" \"$3\" >> \"$0.args\"\necho failed\n")
        #expect(try await box.run("set", "on-download-error", error).status == 0)
        #expect(try await box.run("set", "on-download-complete", complete).status == 0)
        let shown = try await box.run("set").out
        #expect(shown.contains("on-download-error          \(error)"), "\(shown)")
        // A login in the URL is sealed in the ledger: never in a hook's arguments.
        let url = server.url("/missing.bin").replacingOccurrences(of: "http://", with: "http://user:pw@")
        try await box.run("add", url)
        let run = try await box.run("run", "--until-idle")
        #expect(run.status == 1)
        #expect(lines(error + ".args") == [Self.gidOfTask1, "1", box.downloads + "/missing.bin"])
        #expect(lines(complete + ".count").isEmpty)
        let facts = try await hookFacts(box)
        #expect(facts.count == 1)
        #expect((facts.first?["payload"] as? [String: Any])?["hook"] as? String == "error")
        // Nothing more happens to a failed task on the next run: no second hook.
        #expect(try await box.run("run", "--until-idle").status == 0)
        #expect(lines(error + ".args").count == 3)
        // Cleared, the hook no longer runs; undo brings the setting back.
        #expect(try await box.run("set", "on-download-error", "none").status == 0)
        #expect(try await box.run("set").out.contains("on-download-error          none"))
        #expect(try await box.run("undo").status == 0)
        #expect(try await box.run("set").out.contains("on-download-error          \(error)"))
    }

    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func manyOutcomesAtOnceRunEveryHookOnceAtMostEightAtATime() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        let urls = (1...12).map { n -> String in
            server.serve("/f\(n).bin", Resource(size: 2_000, seed: UInt64(n)))
            return server.url("/f\(n).bin")
        }
        try FileManager.default.createDirectory(
            atPath: box.root + "/alive", withIntermediateDirectories: true)
        // Each hook counts the hooks alive with it (itself included), then lingers so that they overlap.
        let hook = try script(
            box, "count.sh",
            """
            touch "\(box.root)/alive/$$"
            ls "\(box.root)/alive" | wc -l >> "$0.counts"
            echo "$1" >> "$0.gids"
            sleep 0.4
            rm "\(box.root)/alive/$$"

            """)
        try await box.run(["add"] + urls)
        let run = try await box.run(["run", "--until-idle", "-j", "12", "--on-download-complete", hook])
        #expect(run.status == 0, "\(run.err)")
        #expect(Set(lines(hook + ".gids")).count == 12)
        let counts = lines(hook + ".counts").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(counts.count == 12)
        #expect(counts.allSatisfy { $0 <= 8 }, "\(counts)")
        #expect(try await hookFacts(box).count == 12)
    }

    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func aSlowHookNeverHoldsTheNextDownloadBack() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 5_000, seed: 1))
        server.serve("/b.bin", Resource(size: 5_000, seed: 2))
        let hook = try script(box, "slow.sh", "sleep 1\necho slept\n")
        try await box.run("add", server.url("/a.bin"), server.url("/b.bin"))
        let run = try await box.run(["run", "--until-idle", "-j", "1", "--on-download-complete", hook])
        #expect(run.status == 0, "\(run.err)")
        let kinds = try await box.run("log", "--json").jsonLines.compactMap { $0["kind"] as? String }
        // One at a time, and both files were in before the first hook ended.
        let completed = kinds.indices.filter { kinds[$0] == "transferCompleted" }
        let hooks = kinds.indices.filter { kinds[$0] == "hookFinished" }
        #expect(completed.count == 2 && hooks.count == 2)
        #expect(completed.last! < hooks.first!, "\(kinds)")
    }

    /// A hook that exits leaving a child writing on to its output is not waited for.
    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func aChildLeftWritingNeverHoldsTheRecordBack() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 5_000, seed: 1))
        let hook = try script(
            box, "leaves.sh", "echo first\n(yes & echo $! > \"$0.child\"; wait) &\nexit 0\n")
        try await box.run("add", server.url("/a.bin"))
        let run = try await box.run(["run", "--until-idle", "--on-download-complete", hook])
        #expect(run.status == 0, "\(run.err)")
        let payload = try await hookFacts(box).first?["payload"] as? [String: Any]
        #expect(payload?["exit"] as? Int == 0)
        #expect(payload?["line"] as? String == "first")
        if let child = lines(hook + ".child").first.flatMap({ Int32($0) }) { kill(child, SIGKILL) }
    }

    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func aHookThatCannotStartIsRecordedAsSuch() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 5_000, seed: 1))
        let hook = try script(box, "gone.sh", "exit 0\n")
        #expect(try await box.run("set", "on-download-complete", hook).status == 0)
        try FileManager.default.removeItem(atPath: hook)
        try await box.run("add", server.url("/a.bin"))
        #expect(try await box.run("run", "--until-idle").status == 0)
        let payload = try await hookFacts(box).first?["payload"] as? [String: Any]
        #expect(payload?["spawnError"] as? String == "No such file or directory")
        #expect(
            try await box.run("audit", "1").out.contains(
                "on-download-complete hook \(hook) could not start (No such file or directory)"))
    }

    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func aHookPastItsTimeLimitIsKilledWithItsGroup() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 10_000, seed: 2))
        let hook = try script(box, "slow.sh", "echo starting\nsleep 30 &\necho $! > \"$0.child\"\nwait\n")
        try await box.run("add", server.url("/a.bin"))
        let started = ContinuousClock.now
        let run = try await box.run(
            ["run", "--until-idle", "--on-download-complete", hook],
            env: ["DLEDGER_HOOK_TIME_LIMIT_MS": "400"])
        #expect(run.status == 0, "\(run.err)")
        // The run waited for the hook's end, which came with the limit, not after the 30 s sleep.
        #expect(ContinuousClock.now - started < .seconds(20))
        let payload = try await hookFacts(box).first?["payload"] as? [String: Any]
        #expect(payload?["timeoutMs"] as? Int == 400)
        #expect(payload?["line"] as? String == "starting")
        let audit = try await box.run("audit", "1").out
        #expect(audit.contains("hook \(hook) was killed after its time limit (400 ms): starting"), "\(audit)")
        // The sleep the script left in the background went with the group.
        let child = try #require(lines(hook + ".child").first.flatMap { Int32($0) })
        let gone = await eventually(5) {
            let stat = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)) ?? ""
            return stat.isEmpty || stat.contains(") Z ")
        }
        #expect(gone)
    }

    // One store: the hook runner's own behaviour; hooks on PostgreSQL are the two tests that run on both.
    @Test func aHookThatIsNotAnAbsoluteExecutableIsRefusedWithNothingAppended() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        try await box.run("add", server.url("/a.bin"))
        let events = try await box.eventCount()
        let plain = box.root + "/plain.txt"
        try "not a program".write(toFile: plain, atomically: true, encoding: .utf8)
        _ = try script(box, "rel.sh", "exit 0\n")
        let cases: [([String], String)] = [
            (
                ["set", "on-download-complete", "rel.sh"],
                "a hook must be an absolute path to a program, not 'rel.sh'"
            ),
            (
                ["set", "on-download-error", box.root + "/nope.sh"],
                "no hook program at '\(box.root)/nope.sh'"
            ),
            (["set", "on-download-complete", plain], "is not executable"),
            (["set", "on-download-complete", box.root], "is not a regular file"),
            (["run", "--until-idle", "--on-download-complete", "rel.sh"], "must be an absolute path"),
            (["serve", "--on-download-error", box.root + "/nope.sh"], "no hook program at"),
            (["run", "--until-idle"], "DLEDGER_HOOK_TIME_LIMIT_MS"),
        ]
        for (args, message) in cases {
            let env = args == ["run", "--until-idle"] ? ["DLEDGER_HOOK_TIME_LIMIT_MS": "5"] : [:]
            let r = try await box.run(args, env: env)
            #expect(r.status == 64, "\(args): \(r.err)")
            #expect(r.err.contains(message), "\(args): \(r.err)")
            // One line (a usage error adds its `hint:`).
            #expect(
                r.err.split(separator: "\n").filter { !$0.hasPrefix("hint:") }.count == 1, "\(args): \(r.err)"
            )
        }
        #expect(try await box.eventCount() == events)
        #expect(try await box.task(1)?["state"] as? String == "waiting")
    }
}
