import DownloadLedger
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// Issue 26's crash: `dledger serve` under a low descriptor limit, flooded with idle connections (more than the
/// limit) while a client calls it. Before the connection limit, libdispatch trapped (SIGILL) when it could not
/// open /proc to watch its threads; now the flood's oldest connections make room, the descriptors in use stay
/// under the limit, the calls are answered and the server stops cleanly. Five rounds, one after another, as a
/// crash that depends on timing needs.
@Suite(.serialized) struct ServeFloodTests {
    /// The built `dledger`, next to the test bundle.
    static let binary: String = {
        var candidates: [String] = []
        if let exe = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(exe.path + "/dledger")
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().path + "/dledger")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.path + "/.build/debug/dledger")
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()

    static let descriptors = 256

    @Test(arguments: 1...5)
    func serveHoldsAFloodOfIdleConnectionsUnderALowDescriptorLimit(round: Int) async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.binary), "build dledger first: \(Self.binary)")
        let root = NSTemporaryDirectory() + "rpc-flood-\(round)-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(
            atPath: root + "/downloads", withIntermediateDirectories: true)
        _ = try Ledger(path: root + "/ledger.sqlite", creatingWithDirectory: root + "/downloads")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        server.arguments = [
            "--nofile=\(Self.descriptors):\(Self.descriptors)", "--", Self.binary, "serve", "--ledger",
            root + "/ledger.sqlite", "--rpc-listen-port", "0", "--rpc-secret", "tok",
        ]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = out
        let printed = Mutex("")
        let reader = Thread {
            while case let data = out.fileHandleForReading.availableData, !data.isEmpty {
                printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        try server.run()
        reader.start()
        defer {
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
        }
        var port = 0
        let deadline = Date().addingTimeInterval(20)
        while port == 0 && Date() < deadline {
            port = Self.port(in: printed.withLock { $0 })
            if port == 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(port > 0, "serve did not start: \(printed.withLock { $0 })")
        let call = #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive","params":["token:tok"]}"#
        // A front end's WebSocket, open before the flood, polls all through it.
        let frontEnd = try RawHTTPClient(port: port, timeout: 10)
        #expect(try frontEnd.upgrade() == 101)
        // Twice the descriptors the server may open, connected and silent.
        var flood: [RawHTTPClient] = []
        for i in 0..<(2 * Self.descriptors) {
            flood.append(try RawHTTPClient(port: port, timeout: 1))
            if i % 64 == 63 {
                try frontEnd.sendText(call.replacingOccurrences(of: #""id":1"#, with: #""id":\#(i)"#))
                #expect(try frontEnd.receive { $0["id"] as? Int == i }["result"] is [Any])
            }
        }
        // New clients are answered, each taking the place of a silent one.
        for _ in 0..<5 {
            let c = try RawHTTPClient(port: port, timeout: 10)
            #expect(try c.post(call).json?["result"] is [Any])
        }
        let open =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.processIdentifier)/fd"))
        #expect(
            (open?.count ?? Self.descriptors) < Self.descriptors - 32, "\(open?.count ?? -1) descriptors open"
        )
        #expect(server.isRunning, "serve ended: \(printed.withLock { $0 })")
        flood = []
        kill(server.processIdentifier, SIGTERM)
        _ = await eventually(20) { !server.isRunning }
        server.waitUntilExit()
        #expect(server.terminationReason == .exit, "serve was killed by signal \(server.terminationStatus)")
        #expect([0, 130].contains(server.terminationStatus), "\(printed.withLock { $0 })")
    }

    /// The port of the "serving aria2 JSON-RPC on http://127.0.0.1:PORT/jsonrpc" line, 0 before it is whole.
    static func port(in output: String) -> Int {
        guard let r = output.range(of: "127.0.0.1:") else { return 0 }
        let digits = output[r.upperBound...].prefix { $0.isNumber }
        return output[r.upperBound...].dropFirst(digits.count).hasPrefix("/jsonrpc") ? Int(digits) ?? 0 : 0
    }
}
