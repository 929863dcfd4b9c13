import Foundation
import Glibc
import Testing

/// What a `dledger run` killed with SIGKILL left behind.
struct KilledRun {
    /// The dead process.
    var pid: Int32
    /// Sizes of the partial files of the watched tasks once the process was dead, in task order.
    var partials: [Int64]
    /// `log --json` as another process read it just before the kill: events the dead process had committed.
    var acknowledged: [String]
}

extension DledgerSandbox {
    func partialPath(_ id: Int) -> String { downloads + "/.dledger/partial/\(id).part" }

    /// Starts `dledger run -j <tasks>`, waits until the partial file of every task in `tasks` holds at least
    /// `bytes`, reads the log, then kills the process with SIGKILL.
    func killRun(tasks: ClosedRange<Int>, whenEachPartialHas bytes: Int64) async throws -> KilledRun {
        let runner = try start("run", "-j", "\(tasks.count)")
        let grown = await eventually(15) { tasks.allSatisfy { partialSize(partialPath($0)) >= bytes } }
        #expect(grown, "partial files \(tasks.map { partialSize(partialPath($0)) }) never reached \(bytes)")
        let acknowledged = try await run("log", "--json").out.split(separator: "\n").map(String.init)
        let pid = runner.process.processIdentifier
        kill(pid, SIGKILL)
        let dead = await runner.wait()
        #expect(dead.status == SIGKILL, "the run ended before the kill: \(dead.err)")
        return KilledRun(
            pid: pid, partials: tasks.map { partialSize(partialPath($0)) }, acknowledged: acknowledged)
    }

    /// The ledger after a kill: the chain verifies, the events read before the kill are all still there
    /// unchanged, and (SQLite) the dead process's lock file is still on disk (so the next run proves it blocks
    /// nothing).
    func expectIntact(after kill: KilledRun) async throws {
        let verify = try await run("verify", "--skip-files")
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        let log = try await run("log", "--json").out.split(separator: "\n").map(String.init)
        #expect(log.count >= kill.acknowledged.count)
        #expect(Array(log.prefix(kill.acknowledged.count)) == kill.acknowledged, "committed events changed")
        // On PostgreSQL the run lock is a session advisory lock (docs/postgres.md): it went with the connection.
        guard store == .sqlite else { return }
        let lock = FileManager.default.contents(atPath: ledger + ".lock").map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(lock == "\(kill.pid)\n", "the dead run's lock file should still name it")
    }
}
