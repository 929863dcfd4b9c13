import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

struct HookSettingsTests {
    @Test func theEnvironmentLosesTheRPCSecretAndProxyLoginsOnly() {
        var settings = HookSettings()
        settings.environment = [
            "PATH": "/usr/bin:/bin", "HOME": "/home/me", "DLEDGER_RPC_SECRET": "s3cret",
            "http_proxy": "http://user:pw@proxy:3128", "HTTPS_PROXY": "alice:pw@proxy:3128",
            "all_proxy": "socks5h://bob@proxy:1080", "no_proxy": "localhost,127.0.0.1",
            "FTP_PROXY": "http://proxy:3128/a@b", "DLEDGER_TASK_ID": "99",
        ]
        #expect(
            settings.hookEnvironment(id: 7) == [
                "FTP_PROXY=http://proxy:3128/a@b", "HOME=/home/me", "PATH=/usr/bin:/bin",
                "no_proxy=localhost,127.0.0.1", "DLEDGER_TASK_ID=7",
            ])
    }

    /// The library's override is not checked as the CLI checks it: a relative path is still never run.
    @Test func aSchedulerRunsNoRelativeHookAndSaysSo() async throws {
        let box = try Sandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 1_000, seed: 1))
        let ledger = try box.ledger()
        let id = try ledger.add([server.url("/a.bin")])[0]
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.hooks.overrides[.complete] = "true"
        try await scheduler.run(untilIdle: true)
        let last = try ledger.log().last?.entry.event
        #expect(
            last
                == .hookFinished(
                    id: id, hook: .complete, command: "true", result: .notStarted("not an absolute path"),
                    firstLine: ""))
    }

    @Test func aHookMustBeAnExecutableRegularFile() throws {
        let dir = NSTemporaryDirectory() + "hook-check-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = dir + "/done.sh"
        try "#!/bin/sh\n".write(toFile: script, atomically: true, encoding: .utf8)
        #expect(throws: LedgerError.invalidValue("the hook '\(script)' is not executable (chmod +x)")) {
            try HookSettings.check(command: script)
        }
        chmod(script, 0o755)
        try HookSettings.check(command: script)
        #expect(throws: LedgerError.invalidValue("the hook '\(dir)' is not a regular file")) {
            try HookSettings.check(command: dir)
        }
        #expect(
            throws: LedgerError.invalidValue("no hook program at '\(dir)/gone': No such file or directory")
        ) {
            try HookSettings.check(command: dir + "/gone")
        }
        #expect(throws: LedgerError.self) { try HookSettings.check(command: "done.sh") }
    }
}
