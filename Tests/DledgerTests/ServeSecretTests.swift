import Foundation
import LoopbackHTTP
import Testing

/// `serve`'s secret when none is given (issue 26): made once, kept 0600, the same at every start, never in the
/// ledger or the output a journal keeps; `--rpc-secret ''` as aria2c's open server, with a warning.
@Suite struct ServeSecretTests {
    func call(_ port: Int, _ method: String, token: String?) throws -> [String: Any] {
        let params = token.map { #"["token:\#($0)"]"# } ?? "[]"
        return try ServeCommandTests.call(
            port, #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#)
    }

    func errorMessage(_ reply: [String: Any]) -> String? {
        (reply["error"] as? [String: Any])?["message"] as? String
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func withoutASecretServeMakesOneKeepsItAndPrintsItAgain(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let printed = try await box.run("serve", "--print-secret", "--rpc-listen-port", "6811")
        #expect(printed.status == 0, "\(printed.err)")
        let lines = printed.out.split(separator: "\n").map(String.init)
        let secret = try #require(lines.first)
        #expect(secret.utf8.count == 32)
        let encoded = Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(
            lines.dropFirst().first == "AriaNg: …/#!/settings/rpc/set/ws/127.0.0.1/6811/jsonrpc/\(encoded)")
        // Printing the secret opens no ledger.
        #expect(!(try box.ledgerExists()))
        let file = box.root + "/config/dledger/rpc-secret"
        var info = stat()
        #expect(lstat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == secret + "\n")

        let (server, port) = try await ServeCommandTests.serve(box, secret: nil)
        #expect(errorMessage(try call(port, "aria2.getGlobalStat", token: nil)) == "Unauthorized")
        #expect(errorMessage(try call(port, "aria2.getGlobalStat", token: "guess")) == "Unauthorized")
        #expect(try call(port, "aria2.getGlobalStat", token: secret)["result"] != nil)
        let added = try ServeCommandTests.call(
            port,
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:\#(secret)",["http://127.0.0.1:9/a"]]}"#
        )
        #expect(added["result"] is String)
        #expect(try call(port, "aria2.shutdown", token: secret)["result"] as? String == "OK")
        let finished = await server.wait()
        #expect(finished.status == 0)
        // Not on a terminal (a service's journal): where the secret is, not the secret.
        #expect(finished.out.contains("the RPC secret is in \(file)"), "\(finished.out)")
        #expect(!finished.out.contains(secret) && !finished.err.contains(secret))
        #expect(!finished.out.contains(encoded))
        // The same secret at the next start, and nowhere in the ledger or its log.
        #expect(try await box.run("-q", "serve", "--print-secret").out == secret + "\n")
        let log = try await box.run("log", "--json")
        #expect(!log.out.contains(secret))
        for bytes in try box.storedBytes() {
            #expect(bytes.range(of: Data(secret.utf8)) == nil)
        }
    }

    // One store: the secret file and the terminal, not the ledger.
    @Test(.enabled(if: TmuxTerminal.isAvailable, "needs tmux for a terminal"))
    func onATerminalServePrintsTheAriaNgLink() async throws {
        let box = try DledgerSandbox()
        let secret = try await box.run("-q", "serve", "--print-secret").out.trimmingCharacters(in: .newlines)
        let encoded = Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let term = try TmuxTerminal(
            "cd \(TmuxTerminal.quote(box.downloads)) && \(TmuxTerminal.quote(DledgerSandbox.binary)) serve"
                + " --rpc-listen-port 0 --rpc-allow-origin https://ariang.example/AriaNg/",
            columns: 200, rows: 10,
            environment: [
                "DLEDGER_LEDGER": box.ledger, "NO_COLOR": "1", "TMPDIR": box.root, "LC_ALL": "C.UTF-8",
                "XDG_CONFIG_HOME": box.root + "/config",
            ])
        let screen = try await term.waitFor("AriaNg: ", seconds: 15) ?? []
        let link = screen.first { $0.hasPrefix("AriaNg: ") } ?? ""
        let serving = screen.first { $0.contains("serving aria2 JSON-RPC on http://127.0.0.1:") } ?? ""
        let port = serving.split(separator: ":").dropFirst(2).first.map { $0.prefix { $0.isNumber } } ?? ""
        #expect(!port.isEmpty, "\(screen)")
        #expect(
            link.hasPrefix(
                "AriaNg: https://ariang.example/AriaNg/#!/settings/rpc/set/ws/127.0.0.1/\(port)/jsonrpc/\(encoded)"
            ),
            "\(screen)")
        term.close()
    }

    // One store: the secret and the listener, not the ledger.
    @Test func anEmptySecretIsAria2csOpenServerWithAWarning() async throws {
        let box = try DledgerSandbox()
        let (server, port) = try await ServeCommandTests.serve(box, secret: "")
        #expect(try call(port, "aria2.getGlobalStat", token: nil)["result"] != nil)
        _ = try call(port, "aria2.shutdown", token: nil)
        let finished = await server.wait()
        #expect(finished.err.contains("warning: no secret (--rpc-secret '')"), "\(finished.err)")
        #expect(!FileManager.default.fileExists(atPath: box.root + "/config/dledger/rpc-secret"))
        let printed = try await box.run("serve", "--print-secret", "--rpc-secret", "")
        #expect(printed.status == 64)
    }

    /// The systemd unit passes the secret in $DLEDGER_RPC_SECRET; --rpc-secret wins over it.
    // One store: the secret and the listener, not the ledger.
    @Test func theEnvironmentsSecretIsUsed() async throws {
        let box = try DledgerSandbox()
        let (server, port) = try await ServeCommandTests.serve(
            box, secret: nil, env: ["DLEDGER_RPC_SECRET": "from-env"])
        #expect(errorMessage(try call(port, "aria2.getGlobalStat", token: nil)) == "Unauthorized")
        #expect(try call(port, "aria2.getGlobalStat", token: "from-env")["result"] != nil)
        _ = try call(port, "aria2.shutdown", token: "from-env")
        let finished = await server.wait()
        #expect(!finished.out.contains("from-env") && !finished.out.contains("rpc-secret"))
        #expect(!FileManager.default.fileExists(atPath: box.root + "/config/dledger/rpc-secret"))
        let printed = try await box.run(
            ["-q", "serve", "--print-secret"], env: ["DLEDGER_RPC_SECRET": "from-env"])
        #expect(printed.out == "from-env\n")
    }

    /// Issue 26, fault 10: a second serve on the same ledger says only that another downloader runs.
    @Test(arguments: LedgerStoreKind.allCases)
    func aSecondServeOnTheSameLedgerNeverSaysItServes(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let (first, port) = try await ServeCommandTests.serve(box, secret: "pw")
        for ask in [["--rpc-listen-port", "0"], ["--rpc-listen-port", String(port)]] {
            let second = try await box.run(["serve", "--rpc-secret", "pw"] + ask)
            #expect(second.status != 0)
            #expect(
                second.err.contains("another downloader (pid \(first.process.processIdentifier))"),
                "\(second.err)")
            #expect(!second.out.contains("serving"), "\(second.out)")
        }
        // The first still serves.
        #expect(try call(port, "aria2.getGlobalStat", token: "pw")["result"] != nil)
        first.interrupt()
        _ = await first.wait()
    }
}
