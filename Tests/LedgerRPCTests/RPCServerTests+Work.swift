import DownloadLedger
import Foundation
import LedgerRPC
import LedgerRPCServer
import Synchronization
import TestSupport
import Testing

/// The calls run off the socket thread: a write that waits on its commit holds up no read, and a stop lets the
/// replies already asked for go out.
extension RPCServerTests {
    @Test func aReadIsAnsweredWhileAWriteWaitsForItsCommit() throws {
        let h = try RPCHarness()
        let url = h.file("a.bin")
        let before = try h.eventCount()
        // Another process holds the ledger's write lock (as a `dledger` command in another terminal would while
        // it commits): our addUri waits in SQLite's busy handler until it lets go.
        let holder = try WriteLockHolder(path: h.ledgerPath)
        let writer = try RawHTTPClient(port: h.port)
        #expect(try writer.upgrade() == 101)
        try writer.sendText(#"{"jsonrpc":"2.0","id":"add","method":"aria2.addUri","params":[["\#(url)"]]}"#)
        // The same client's next call is answered after its first, so it sees the task it added.
        try writer.sendText(
            #"{"jsonrpc":"2.0","id":"list","method":"aria2.tellWaiting","params":[0,10,["gid"]]}"#)
        Thread.sleep(forTimeInterval: 0.3)
        // Meanwhile other clients read, over HTTP and WebSocket, and are answered from the list as committed.
        let reader = try RawHTTPClient(port: h.port, timeout: 3)
        let waiting = try reader.post(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellWaiting","params":[0,1000]}"#)
        #expect(waiting.text == #"{"id":1,"jsonrpc":"2.0","result":[]}"#)
        let socket = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(try socket.upgrade() == 101)
        try socket.sendText(#"{"jsonrpc":"2.0","id":2,"method":"aria2.getGlobalStat"}"#)
        let stat = try socket.receive { $0["id"] as? Int == 2 }
        #expect((stat["result"] as? [String: Any])?["numWaiting"] as? String == "0")
        // A client polling the options (AriaNg's settings page) does not wait either.
        let global = try reader.post(#"{"jsonrpc":"2.0","id":3,"method":"aria2.getGlobalOption"}"#)
        #expect(global.json?["result"] as? [String: Any] != nil, "\(global.text)")
        let unknown = try reader.post(
            #"{"jsonrpc":"2.0","id":4,"method":"aria2.getOption","params":["00000000000003e7"]}"#)
        #expect(unknown.text.contains("not found"), "\(unknown.text)")
        // Released, the write commits and its client gets both replies, in order.
        try holder.release()
        let added = try writer.receive { $0["id"] != nil }
        #expect(added["id"] as? String == "add")
        let gid = try #require(added["result"] as? String, "\(added)")
        let listed = try writer.receive { $0["id"] != nil }
        #expect(listed["id"] as? String == "list")
        #expect((listed["result"] as? [[String: Any]])?.map { $0["gid"] as? String } == [gid])
        #expect(try h.eventCount() == before + 1)
    }

    @Test func stopLetsTheReplyOfTheCallThatAskedForItGoOut() throws {
        let root = NSTemporaryDirectory() + "rpc-stop-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let ledger = try Ledger(path: root + ".sqlite", creatingWithDirectory: root)
        defer { try? FileManager.default.removeItem(atPath: root + ".sqlite") }
        let box = Mutex<RPCServer?>(nil)
        // As `dledger serve` does: shutdown stops everything at once, and the server's stop drains.
        let service = Aria2Service(
            ledger: ledger,
            onShutdown: { _ in
                let server = box.withLock { $0 }
                DispatchQueue.global().async { server?.stop() }
            })
        for transport in ["http", "websocket"] {
            let server = try RPCServer(service: service, configuration: .init(port: 0))
            box.withLock { $0 = server }
            server.start()
            let c = try RawHTTPClient(port: server.port, timeout: 5)
            let call = #"{"jsonrpc":"2.0","id":9,"method":"aria2.shutdown"}"#
            if transport == "http" {
                #expect(try c.post(call).text == #"{"id":9,"jsonrpc":"2.0","result":"OK"}"#)
            } else {
                #expect(try c.upgrade() == 101)
                try c.sendText(call)
                #expect(try c.receiveText() == #"{"id":9,"jsonrpc":"2.0","result":"OK"}"#)
            }
            server.stop()
            // Stopped: the port is closed.
            #expect(throws: RawHTTPClient.Failure.self, "\(transport)") {
                try RawHTTPClient(port: server.port)
            }
        }
    }
}

/// A `sqlite3` process holding a database's write lock (`BEGIN IMMEDIATE`) until ``release()``.
final class WriteLockHolder {
    private let process = Process()
    private let input = Pipe()

    init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw RawHTTPClient.Failure(description: "sqlite3 ended: \(seen)") }
            seen += chunk
        }
    }

    /// Commits (nothing) and ends the process.
    func release() throws {
        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
