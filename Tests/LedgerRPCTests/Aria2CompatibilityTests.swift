import DownloadLedger
import Foundation
import LedgerRPC
import TestSupport
import Testing

/// The same calls against Debian's `aria2c --enable-rpc` and against `dledger serve`'s service, comparing the
/// shapes of the results key by key (types and key sets), and values where they must agree.
@Suite(.serialized) struct Aria2CompatibilityTests {
    /// A JSON value's shape: its type, and for objects their keys with the shapes of their values (arrays: the
    /// shape of their first element).
    indirect enum Shape: Equatable, CustomStringConvertible {
        case string, number, bool, null, empty
        case array(Shape)
        case object([String: Shape])

        init(_ v: RPCValue) {
            switch v {
            case .string: self = .string
            case .int, .double: self = .number
            case .bool: self = .bool
            case .null: self = .null
            case .array(let a): self = a.first.map { .array(Shape($0)) } ?? .array(.empty)
            case .object(let fields):
                var o: [String: Shape] = [:]
                for (k, x) in fields { o[k] = Shape(x) }
                self = .object(o)
            }
        }

        var description: String {
            switch self {
            case .string: return "string"
            case .number: return "number"
            case .bool: return "bool"
            case .null: return "null"
            case .empty: return "empty"
            case .array(let s): return "[\(s)]"
            case .object(let o):
                return "{" + o.keys.sorted().map { "\($0): \(o[$0]!)" }.joined(separator: ", ") + "}"
            }
        }

        /// Keys only one side has, by path.
        func differences(_ other: Shape, at path: String = "") -> [String] {
            switch (self, other) {
            case (.array(let a), .array(let b)):
                if a == .empty || b == .empty { return [] }
                return a.differences(b, at: path + "[]")
            case (.object(let a), .object(let b)):
                var out: [String] = []
                for k in Set(a.keys).union(b.keys).sorted() {
                    guard let x = a[k], let y = b[k] else {
                        out.append("\(path).\(k) only in \(a[k] == nil ? "aria2" : "dledger")")
                        continue
                    }
                    out += x.differences(y, at: path + "." + k)
                }
                return out
            default:
                return self == other ? [] : ["\(path): dledger \(self), aria2 \(other)"]
            }
        }
    }

    /// aria2c with RPC on a free port, downloading into its own folder.
    final class Aria2c {
        let process = Process()
        let port: Int
        let dir: String

        init(dir: String) throws {
            self.dir = dir
            port = try Self.freePort()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/aria2c")
            process.arguments = [
                "--enable-rpc", "--rpc-listen-port=\(port)", "--dir=\(dir)", "--no-conf", "--quiet",
                "--max-overall-download-limit=0",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            // aria2c's SIGTERM shutdown can take a while: it is a throwaway here.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    _ = bind(fd, $0, size)
                    return getsockname(fd, $0, &size)
                }
            }
            return Int(UInt16(bigEndian: a.sin_port))
        }

        func call(_ method: String, _ params: String = "[]") throws -> [String: Any] {
            try RawHTTPClient(port: port).post(Self.request(method, params)).json ?? [:]
        }

        /// The reply as the RPC's own value type (which keeps numbers and booleans apart).
        func value(_ method: String, _ params: String) throws -> RPCValue? {
            RPCValue.parse(try RawHTTPClient(port: port).post(Self.request(method, params)).body)
        }

        static func request(_ method: String, _ params: String) -> String {
            #"{"jsonrpc":"2.0","id":"c","method":"\#(method)","params":\#(params)}"#
        }
    }

    @Test func resultShapesMatchAria2KeyByKey() async throws {
        let h = try RPCHarness(download: true)
        let aria2 = try Aria2c(dir: h.root + "/aria2")
        let ready = await eventually(10) { (try? aria2.call("aria2.getVersion"))?["result"] != nil }
        try #require(ready, "aria2c did not start")
        let good = h.file("good.bin", size: 2_500_000, seed: 4)
        let missing = h.files.url("/missing.bin")
        var gids: [String: (aria2: String, dledger: String)] = [:]
        for (name, url) in [("good", good), ("missing", missing)] {
            let a = try #require(try aria2.call("aria2.addUri", #"[["\#(url)"]]"#)["result"] as? String)
            let d = try #require(try h.result("aria2.addUri", #"[["\#(url)"]]"#) as? String)
            #expect(a.count == 16 && d.count == 16)
            gids[name] = (a, d)
        }
        let settled = await eventually(20) {
            let a = (try? aria2.call("aria2.tellStopped", "[0,10]"))?["result"] as? [Any]
            let d = (try? h.result("aria2.tellStopped", "[0,10]")) as? [Any]
            return a?.count == 2 && d?.count == 2
        }
        try #require(settled, "the downloads did not settle")
        var problems: [String] = []
        func compare(
            _ method: String, aria2 aParams: String, dledger dParams: String, allowing: Set<String> = []
        )
            throws
        {
            let a = try aria2.value(method, aParams)
            let d = RPCValue.parse(h.service.reply(to: Array(Aria2c.request(method, dParams).utf8)).bytes)
            guard let ar = a?["result"], let dr = d?["result"] else {
                problems.append("\(method): aria2 \(a?.rendered() ?? "-"), dledger \(d?.rendered() ?? "-")")
                return
            }
            let diffs = Shape(dr).differences(Shape(ar)).filter { !allowing.contains($0) }
            problems += diffs.map { "\(method) \($0)" }
        }
        for (name, g) in gids {
            try compare("aria2.tellStatus", aria2: #"["\#(g.aria2)"]"#, dledger: #"["\#(g.dledger)"]"#)
            try compare("aria2.getFiles", aria2: #"["\#(g.aria2)"]"#, dledger: #"["\#(g.dledger)"]"#)
            // (getUris: aria2 answers "No URI data" once a download stopped; ours still answers the URI.)
            let a = try aria2.call(
                "aria2.tellStatus", #"["\#(g.aria2)",["status","totalLength","completedLength"]]"#)
            let d = h.call(
                "aria2.tellStatus", #"["\#(g.dledger)",["status","totalLength","completedLength"]]"#)
            #expect(
                a["result"] as? [String: String] == d["result"] as? [String: String], "\(name): values differ"
            )
        }
        // The stopped lists, element by element in the same order (aria2 orders by stop time, we by the list).
        let keysByStatus: (RPCValue?) -> [RPCValue] = {
            ($0?["result"]?.arrayValue ?? []).sorted {
                ($0["status"]?.stringValue ?? "") < ($1["status"]?.stringValue ?? "")
            }
        }
        let aStopped = keysByStatus(try aria2.value("aria2.tellStopped", "[0,10]"))
        let dStopped = keysByStatus(
            RPCValue.parse(
                h.service.reply(to: Array(Aria2c.request("aria2.tellStopped", "[0,10]").utf8)).bytes))
        #expect(aStopped.count == 2 && dStopped.count == 2)
        for (a, d) in zip(aStopped, dStopped) {
            problems += Shape(d).differences(Shape(a)).map { "tellStopped \($0)" }
        }
        try compare("aria2.tellActive", aria2: "[]", dledger: "[]")
        try compare("aria2.tellWaiting", aria2: "[0,10]", dledger: "[0,10]")
        try compare("aria2.getGlobalStat", aria2: "[]", dledger: "[]")
        try compare("aria2.getSessionInfo", aria2: "[]", dledger: "[]")
        try compare(
            "aria2.getVersion", aria2: "[]", dledger: "[]", allowing: [".dledgerVersion only in dledger"])
        try compare("system.listNotifications", aria2: "[]", dledger: "[]")
        try compare(
            "aria2.changeGlobalOption", aria2: #"[{"max-concurrent-downloads":"4"}]"#,
            dledger: #"[{"max-concurrent-downloads":"4"}]"#)
        // Options: every key we answer is one aria2 answers too (aria2 answers ~200).
        let aOptions = try #require(try aria2.call("aria2.getGlobalOption")["result"] as? [String: String])
        let dOptions = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
        #expect(Set(dOptions.keys).isSubset(of: aOptions.keys))
        #expect(dOptions["max-concurrent-downloads"] == aOptions["max-concurrent-downloads"])
        // Errors: the same code where aria2 and JSON-RPC 2.0 agree.
        for (method, params) in [
            ("aria2.tellStatus", #"["zz"]"#), ("aria2.tellStatus", #"["0123456789abcdef"]"#),
        ] {
            let a = (try aria2.call(method, params)["error"] as? [String: Any])?["code"] as? Int
            #expect(a == h.errorCode(method, params), "\(method) \(params)")
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
