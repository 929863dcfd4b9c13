import DownloadLedger
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A server under load in `ledger-bench rpc`: `dledger serve` over a ledger holding the list, or
/// `aria2c --enable-rpc` given the same URLs as its input file; both run `active` transfers at a time, one
/// connection each, and keep the rest waiting.
final class RPCTarget {
    enum Kind: String, CaseIterable {
        case dledger
        case aria2c
    }

    let kind: Kind
    let port: Int
    let pid: pid_t
    private let directory: String

    /// Starts the server on a free port in a new folder of `parent`, with `urls` in this order.
    init(_ kind: Kind, urls: [String], active: Int, parent: String, dledger: String) throws {
        self.kind = kind
        directory = parent + "/\(kind.rawValue)-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(
            atPath: directory + "/downloads", withIntermediateDirectories: true)
        port = try Self.freePort()
        let log = directory + "/server.log"
        switch kind {
        case .dledger:
            let path = directory + "/ledger.sqlite"
            let ledger = try Ledger(path: path, creatingWithDirectory: directory + "/downloads")
            try ledger.execute(.add(urls: urls, placement: .end, name: nil, sha256: nil, directory: nil))
            pid = try TransferProcess.spawn(
                [
                    // Without a token, as the aria2c it is compared with (serve would make a secret otherwise).
                    dledger, "serve", "--ledger", path, "--rpc-listen-port", String(port), "--rpc-secret", "",
                    "-j",
                    String(active),
                    "--connections", "1",
                ], log: log)
        case .aria2c:
            let list = directory + "/urls.txt"
            try urls.joined(separator: "\n").appending("\n").write(
                toFile: list, atomically: true, encoding: .utf8)
            pid = try TransferProcess.spawn(
                [
                    "aria2c", "--no-conf", "--enable-rpc", "--rpc-listen-port=\(port)",
                    "--dir=" + directory + "/downloads",
                    "--input-file=" + list, "--max-concurrent-downloads=\(active)", "--split=1",
                    "--max-connection-per-server=1", "--file-allocation=none", "--quiet",
                    "--summary-interval=0", "--auto-save-interval=0", "--console-log-level=error",
                ], log: log)
        }
    }

    /// Waits until `active` transfers run and have moved bytes.
    func waitForTransfers(_ active: Int) throws {
        let deadline = TransferProcess.now() + 30
        var last = ""
        while TransferProcess.now() < deadline {
            if let (count, bytes) = try? activeBytes(), count == active, bytes > 0 { return }
            last = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            usleep(100_000)
        }
        throw TransferBenchError("\(kind.rawValue): \(active) transfers did not start: \(last.suffix(300))")
    }

    /// How many transfers run and the bytes they have so far (`tellActive`, `completedLength`).
    func activeBytes() throws -> (Int, Int64) {
        // aria2c under the load answers this after the backlog of the clients' calls: seconds, not never.
        let reply = try RPCSocket(port: port, timeout: 120).post(
            #"{"jsonrpc":"2.0","id":"bench","method":"aria2.tellActive","params":[["completedLength"]]}"#)
        guard let json = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
            let tasks = json["result"] as? [[String: Any]]
        else {
            throw TransferBenchError(
                "\(kind.rawValue): tellActive: \(String(decoding: reply, as: UTF8.self))")
        }
        return (tasks.count, tasks.reduce(0) { $0 + (Int64($1["completedLength"] as? String ?? "") ?? 0) })
    }

    /// Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its folder.
    func stop() {
        kill(pid, SIGTERM)
        let deadline = TransferProcess.now() + 10
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if TransferProcess.now() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A port nobody listens on now (bound and released: the server takes it a moment later).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw TransferBenchError("no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension RPCTarget {
    /// The server process's user + system CPU seconds so far (/proc/<pid>/stat).
    func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            return 0
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
