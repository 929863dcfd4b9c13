import DownloadLedger
import Foundation

/// The idle half of `ledger-bench ui`: the CPU an idle `dledger ui` uses in a pseudo-terminal against an idle
/// `dledger run` on the same ledger.
extension UIBench {
    static func idle(root: String, big: Int) throws {
        let dledger =
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/dledger"
        let path = "\(root)/\(big).sqlite"
        // Opened once for writing: the snapshot is saved, so neither process spends the window folding the log.
        _ = try Ledger(path: path)
        var uis: [Double] = []
        var runs: [Double] = []
        for _ in 0..<3 {
            uis.append(try idleCPU(dledger, ["ui", "--ledger", path], pty: true))
            runs.append(try idleCPU(dledger, ["run", "--ledger", path], pty: false))
        }
        let ui = StoreBench.median(uis)
        let run = StoreBench.median(runs)
        print("idle CPU over 10 s (median of 3, interleaved), \(big) finished tasks, nothing downloading:")
        print(
            "  dledger ui \(pct(ui)) %, dledger run \(pct(run)) % (target: ui under 1 %: \(LedgerBench.verdict(ui < 0.01)))"
        )
    }

    /// The share of one CPU `executable` uses between 5 s and 15 s after it starts (in a pseudo-terminal of 120x40
    /// when `pty`), from /proc/<pid>/stat.
    static func idleCPU(_ executable: String, _ arguments: [String], pty: Bool) throws -> Double {
        // posix_openpt and friends are not imported: /dev/ptmx with TIOCSPTLCK (unlock) and TIOCGPTN (number).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0
        else { throw BenchError("no pseudo-terminal") }
        var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slavePath = "/dev/pts/\(number)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            if pty {
                posix_spawn_file_actions_addopen(&actions, fd, slavePath, O_RDWR, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0)
            }
        }
        posix_spawn_file_actions_addclose(&actions, master)
        let argv = [executable] + arguments
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        var cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for e in cEnv { free(e) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, &cArgs, &cEnv) == 0 else {
            throw BenchError("cannot start \(executable)")
        }
        let drain = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while read(master, &buffer, buffer.count) > 0 {}
        }
        drain.start()
        // Past the start (the ledger opened, the list counted once), which a loaded machine slows down.
        Thread.sleep(forTimeInterval: 5)
        let start = cpuSeconds(pid)
        let clock = ContinuousClock.now
        Thread.sleep(forTimeInterval: 10)
        let used = cpuSeconds(pid) - start
        let elapsed = StoreBench.seconds(ContinuousClock.now - clock)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
        return used / elapsed
    }

    /// User and system CPU seconds of a process so far.
    static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the name: state is field 3; utime and stime are fields 14 and 15.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
