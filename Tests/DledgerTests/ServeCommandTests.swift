import Foundation
import LoopbackHTTP
import TestSupport
import Testing

@Suite struct ServeCommandTests {
    /// Starts `dledger serve` on a free port and waits until it listens.
    /// With `secret` nil, serve uses the one it keeps in the sandbox's config folder.
    static func serve(
        _ box: DledgerSandbox, secret: String?, _ extra: [String] = [], env: [String: String] = [:]
    ) async throws -> (Running, Int) {
        let given = secret.map { ["--rpc-secret", $0] } ?? []
        let server = try Running(
            box.process(["serve", "--rpc-listen-port", "0"] + given + extra, env: env), stdin: nil)
        var port = 0
        _ = await eventually {
            let out = server.output
            // Only a whole line counts: the output may arrive in pieces ("…127.0.0.1:4" before "4321/jsonrpc").
            if let r = out.range(of: "127.0.0.1:") {
                let digits = out[r.upperBound...].prefix { $0.isNumber }
                let rest = out[r.upperBound...].dropFirst(digits.count)
                if rest.hasPrefix("/jsonrpc") { port = Int(digits) ?? 0 }
            }
            return port > 0
        }
        try #require(port > 0, "dledger serve did not start: \(server.output)")
        return (server, port)
    }

    /// The Python of a virtual environment with aria2p (`.ci/run` makes one): `$DLEDGER_ARIA2P_PYTHON`.
    static let aria2pPython: String? = ProcessInfo.processInfo.environment["DLEDGER_ARIA2P_PYTHON"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }

    @Test(.enabled(if: aria2pPython != nil, "needs DLEDGER_ARIA2P_PYTHON: a venv with aria2p (see .ci/run)"))
    func aria2pDrivesServeThroughAddListPauseResumeRemovePurgeOptionsAndNotifications() async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.servePaced("/slow.bin", size: 2_000_000, seed: 5)
        files.serve("/fast.bin", Resource(size: 300_000, seed: 6))
        // The secret serve made (issue 26), as a user hands it to aria2p.
        let (server, port) = try await Self.serve(box, secret: nil)
        let secret = try await box.run("-q", "serve", "--print-secret").out.trimmingCharacters(in: .newlines)
        #expect(secret.utf8.count == 32)
        let script =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/tools/rpc/aria2p-drive.py"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.aria2pPython!)
        p.arguments = [script, String(port), secret, files.url("/slow.bin"), files.url("/fast.bin")]
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        server.interrupt()
        _ = await server.wait()
        #expect(p.terminationStatus == 0, "\(problem)")
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let notifications = result["notifications"] as? [[String]] ?? []
        let fast = try #require(result["fast"] as? String)
        #expect(notifications.contains(["start", fast]) && notifications.contains(["complete", fast]))
        // What aria2p did is in the ledger, one event per call, as the CLI's commands log them.
        let kinds = try await box.run("log", "--json").jsonLines.compactMap { $0["kind"] as? String }
        for kind in [
            "tasksAdded", "tasksPaused", "tasksResumed", "tasksDeleted", "trashPurged", "maxDownloadsChanged",
        ] {
            #expect(kinds.contains(kind), "\(kind) in \(kinds)")
        }
        #expect(kinds.filter { $0 == "tasksAdded" }.count == 2)
        #expect(box.contents("fast.bin") == Body.generatedBytes(seed: 6, in: 0..<300_000))
    }

    @Test func aBusyPortIsOneErrorLineNotACrash() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://127.0.0.1:9/a")
        // Hold a port with a listening socket of our own, then ask serve for it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0 && listen(fd, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let r = try await box.run("serve", "--rpc-listen-port", String(port))
        #expect(r.status == 1, "\(r.err)")
        #expect(r.err == "error: cannot listen on 127.0.0.1:\(port) (in use, or not allowed)\n", "\(r.err)")
    }

    @Test func listeningOnAllAddressesNeedsASecretAndCreatesNothing() async throws {
        let box = try DledgerSandbox()
        let refused = try await box.run("serve", "--rpc-listen-all", "--rpc-secret", "")
        #expect(refused.status == 64)
        #expect(refused.err.hasPrefix("error: '--rpc-listen-all' needs a secret (not --rpc-secret '')"))
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        let badPort = try await box.run("serve", "--rpc-listen-port", "70000")
        #expect(badPort.status == 64)
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    /// `serve --dir D`, as aria2c's `--dir`: where a download added without its own `dir` goes.
    @Test func serveDirIsWhereDownloadsAddedWithoutADirGo() async throws {
        let box = try DledgerSandbox()
        let notAFolder = box.root + "/afile"
        #expect(FileManager.default.createFile(atPath: notAFolder, contents: Data()))
        let refused = try await box.run("serve", "--rpc-listen-port", "0", "--dir", notAFolder)
        #expect(refused.status == 64, "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        let dir = box.root + "/served"
        let own = box.root + "/own"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        let (server, port) = try await Self.serve(box, secret: "pw", ["--dir", dir, "--allow-dir", own])
        func call(_ method: String, _ params: String) throws -> Any? {
            try Self.call(
                port, #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":["token:pw"\#(params)]}"#)[
                    "result"]
        }
        let global = try call("aria2.getGlobalOption", "") as? [String: String]
        #expect(global?["dir"] == dir)
        let plain = try #require(try call("aria2.addUri", #",["http://127.0.0.1:9/a"]"#) as? String)
        let ownGID = try #require(
            try call("aria2.addUri", #",["http://127.0.0.1:9/b"],{"dir":"\#(own)/sub"}"#) as? String)
        let plainStatus = try call("aria2.tellStatus", #","\#(plain)",["dir"]"#) as? [String: String]
        let ownStatus = try call("aria2.tellStatus", #","\#(ownGID)",["dir"]"#) as? [String: String]
        #expect(plainStatus?["dir"] == dir)
        #expect(ownStatus?["dir"] == own + "/sub")
        // A folder neither the ledger's, serve's --dir nor an --allow-dir one: aria2's error, nothing added.
        let outside = try Self.call(
            port,
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:pw",["http://127.0.0.1:9/c"],{"dir":"/tmp/own"}]}"#
        )
        let error = try #require(outside["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1)
        #expect(
            (error["message"] as? String ?? "").contains(
                "option dir /tmp/own is outside the download folders"))
        _ = try call("aria2.shutdown", "")
        #expect(await server.wait().status == 0)
        #expect(try await box.task(1)?["directory"] as? String == dir)
    }

    @Test func serveAnswersAria2CallsAndShutdownStopsItCleanly() async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.serve("/a.bin", Resource(size: 100_000, seed: 3))
        let (server, port) = try await Self.serve(box, secret: "pw")
        func call(_ body: String) async throws -> [String: Any] { try Self.call(port, body) }
        let url = files.url("/a.bin")
        let added = try await call(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:pw",["\#(url)"]]}"#)
        let gid = try #require(added["result"] as? String)
        let complete = try await eventually {
            let s = try await call(
                #"{"jsonrpc":"2.0","id":2,"method":"aria2.tellStatus","params":["token:pw","\#(gid)",["status"]]}"#
            )
            return (s["result"] as? [String: String])?["status"] == "complete"
        }
        #expect(complete)
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 3, in: 0..<100_000))
        let bye = try await call(#"{"jsonrpc":"2.0","id":3,"method":"aria2.shutdown","params":["token:pw"]}"#)
        #expect(bye["result"] as? String == "OK")
        let finished = await server.wait()
        #expect(finished.status == 0)
        let log = try await box.run("log", "--json").jsonLines
        #expect(log.contains { $0["kind"] as? String == "tasksAdded" && $0["origin"] as? String == "rpc" })
        #expect(
            log.contains { $0["kind"] as? String == "transferCompleted" && $0["origin"] as? String == nil })
        // `dledger audit` tells which of a task's events came over RPC.
        let audit = try await box.run("audit", "1")
        #expect(audit.out.contains("(via rpc)"), "\(audit.out)")
    }

    /// POSTs one JSON-RPC body on a fresh connection and parses the reply.
    static func call(_ port: Int, _ body: String) throws -> [String: Any] {
        let reply = try RawHTTPClient(port: port).post(body)
        guard let json = reply.json else {
            throw CLIFailure("HTTP \(reply.status) \(reply.text) for \(body)")
        }
        return json
    }

    @Test func shutdownDuringATransferIsAnsweredAndTheProcessEndsPromptly() async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.serve(
            "/slow.bin", Resource(size: 5_000_000, seed: 8, faults: Faults(throttleBytesPerSecond: 200_000)))
        let (server, port) = try await Self.serve(box, secret: "pw")
        let added = try Self.call(
            port,
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:pw",["\#(files.url("/slow.bin"))"]]}"#
        )
        let gid = try #require(added["result"] as? String)
        let moving = try await eventually {
            let s = try Self.call(
                port,
                #"{"jsonrpc":"2.0","id":2,"method":"aria2.tellStatus","params":["token:pw","\#(gid)",["completedLength"]]}"#
            )
            return Int((s["result"] as? [String: String])?["completedLength"] ?? "") ?? 0 > 0
        }
        #expect(moving)
        let asked = Date()
        let bye = try Self.call(
            port, #"{"jsonrpc":"2.0","id":3,"method":"aria2.shutdown","params":["token:pw"]}"#)
        #expect(bye["result"] as? String == "OK")
        let finished = await server.wait()
        #expect(finished.status == 0)
        // The stop is the transfer's clean stop and the drain of the replies, not a wait of its own (at most the
        // drain's 2 s, far from this bound).
        #expect(Date().timeIntervalSince(asked) < 10)
        // The transfer's last fact is committed: the task waits, with its bytes, to resume by Range.
        let list = try await box.run("ls", "--json")
        let json = try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [String: Any]
        let sections = try #require(json?["sections"] as? [[String: Any]], "\(list.out)")
        let tasks = try #require(sections.first?["tasks"] as? [[String: Any]], "\(list.out)")
        #expect(tasks.first?["state"] as? String == "waiting", "\(tasks)")
        #expect((tasks.first?["bytes"] as? Int ?? 0) > 0)
    }
}

/// Why a call to the server failed, with what curl said.
struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
