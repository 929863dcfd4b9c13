import DownloadLedger
import Foundation
import LedgerRPC
import LedgerRPCServer

/// `dledger serve`: the downloader plus aria2's JSON-RPC at /jsonrpc, so aria2 front ends drive the ledger.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Run the downloader with an aria2-compatible JSON-RPC endpoint (AriaNg, aria2p).",
        usage:
            "serve [--rpc-listen-port <port>] [--rpc-secret <token>] [--rpc-listen-all] [-j <n>]"
            + " [--connections <n>]",
        options: [
            (
                "--rpc-listen-port <port>",
                "Port of http://127.0.0.1:<port>/jsonrpc (default 6800; 0 picks one)."
            ),
            ("--rpc-secret <token>", "Calls must carry \"token:<token>\" first (also $DLEDGER_RPC_SECRET)."),
            ("--rpc-listen-all", "Listen on every address, not only loopback (needs a secret)."),
            (
                "--rpc-allow-origin-all",
                "Answer CORS requests from any origin (AriaNg from a file or a site)."
            ),
            ("-j <n>", "Download at most N at a time (default: the ledger's limit)."),
            RunCommands.connectionsOption,
        ],
        discussion:
            "HTTP POST, GET (?method=&id=&params=<base64>, JSONP with jsoncallback) and WebSocket on /jsonrpc.\n"
            + "Every call that changes the list is the same command as the CLI's, logged as one event.\n"
            + "Ctrl-C, SIGTERM or aria2.shutdown stop cleanly (partial files resume with the next run or serve).",
        writes: true,
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        try inv.require([])
        let jobs = try inv.int("-j", in: Numbers.jobs)
        let connections = try RunCommands.connections(inv)
        let port = try inv.int("--rpc-listen-port", in: Numbers.port) ?? 6800
        let secret = inv.args.value("--rpc-secret") ?? inv.context.environment["DLEDGER_RPC_SECRET"]
        if let secret, secret.isEmpty {
            throw CLIError.usage("option '--rpc-secret' needs a non-empty token")
        }
        RPCServer.limitMallocArenas(2)
        let listenAll = inv.args.has("--rpc-listen-all")
        if listenAll && secret == nil { throw CLIError.usage("'--rpc-listen-all' needs '--rpc-secret'") }
        try AddCommand.checkDirectory(inv.context.dir)
        let ledger = try inv.context.openForWriting()
        var config = TransferConfig()
        if let connections {
            config.connectionsPerTask = connections
            config.splitAtOnce = true
        }
        let scheduler = try Scheduler(ledger: ledger, config: config, maxDownloads: jobs)
        let service = Aria2Service(
            ledger: ledger, secret: secret, activity: { scheduler.currentActivity() },
            // The transfers stop now; the server's stop at the end drains, so the reply ("OK") still goes out.
            onShutdown: { _ in scheduler.requestStop() }, dir: inv.context.dir)
        let server: RPCServer
        do {
            server = try RPCServer(
                service: service,
                configuration: .init(
                    port: port, listenAll: listenAll, allowOriginAll: inv.args.has("--rpc-allow-origin-all")))
        } catch let e as RPCServerError {
            throw CLIError.failed(e.description)
        }
        let interrupt = Interrupt()
        interrupt.install { scheduler.requestStop() }
        defer { interrupt.remove() }
        server.start()
        let notifier = Task { await Aria2Notifications.follow(ledger) { server.broadcast($0) } }
        let host = listenAll ? "0.0.0.0" : "127.0.0.1"
        inv.console.info(
            "serving aria2 JSON-RPC on http://\(host):\(server.port)/jsonrpc (WebSocket on the same path)")
        let progress = Progress(console: inv.console, ledger: ledger, scheduler: scheduler, scope: nil)
        progress.start()
        defer { server.stop() }
        do {
            try await scheduler.run(untilIdle: false)
        } catch {
            notifier.cancel()
            await progress.stop()
            throw error
        }
        notifier.cancel()
        await progress.stop()
        inv.console.info("stopped: partial files resume with the next 'dledger run' or 'dledger serve'")
        return interrupt.fired ? CLIError.interrupted : CLIError.success
    }
}
