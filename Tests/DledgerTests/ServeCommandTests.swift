import Foundation
import LoopbackHTTP
import Testing

@Suite struct ServeCommandTests {
    @Test func listeningOnAllAddressesNeedsASecretAndCreatesNothing() async throws {
        let box = try DledgerSandbox()
        let refused = try await box.run("serve", "--rpc-listen-all")
        #expect(refused.status == 64)
        #expect(refused.err.hasPrefix("error: '--rpc-listen-all' needs '--rpc-secret'"))
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        let badPort = try await box.run("serve", "--rpc-listen-port", "70000")
        #expect(badPort.status == 64)
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    @Test func serveAnswersAria2CallsAndShutdownStopsItCleanly() async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.serve("/a.bin", Resource(size: 100_000, seed: 3))
        let server = try box.start("serve", "--rpc-listen-port", "0", "--rpc-secret", "pw")
        var port = 0
        let listening = await eventually {
            let out = server.output
            if let r = out.range(of: "127.0.0.1:") {
                port = Int(out[r.upperBound...].prefix { $0.isNumber }) ?? 0
            }
            return port > 0
        }
        #expect(listening)
        func call(_ body: String) async throws -> [String: Any] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            p.arguments = ["-s", "--data-binary", body, "http://127.0.0.1:\(port)/jsonrpc"]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }
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
        let kinds = try await box.run("log", "--json").jsonLines.compactMap { $0["kind"] as? String }
        #expect(kinds.contains("tasksAdded") && kinds.contains("transferCompleted"))
    }
}
