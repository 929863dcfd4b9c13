import DownloadLedger
import Foundation
import LedgerFrontEnd
import LedgerRPC
import LedgerRPCServer

/// `dledger serve`: the downloader plus aria2's JSON-RPC at /jsonrpc, so aria2 front ends drive the ledger.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Run the downloader with an aria2-compatible JSON-RPC endpoint (AriaNg, aria2p).",
        usage:
            "serve [--rpc-listen-port <port>] [--rpc-secret <token>] [--rpc-listen-all] [--rpc-allow-origin <url>]..."
            + " [--allow-dir <dir>]... [--print-secret] [-j <n>] [--connections <n>] [--on-download-complete <path>]",
        options: [
            (
                "--rpc-listen-port <port>",
                "Port of http://127.0.0.1:<port>/jsonrpc (default 6800; 0 picks one)."
            ),
            (
                "--rpc-secret <token>",
                "Calls carry \"token:<token>\" (also $DLEDGER_RPC_SECRET; default: one made and kept in"
                    + " ~/.config/dledger/rpc-secret; '' for none)."
            ),
            ("--print-secret", "Print the secret and the AriaNg link that carries it, then exit."),
            ("--rpc-listen-all", "Listen on every address, not only loopback (needs a secret)."),
            (
                "--rpc-allow-origin <url>",
                "Let the web page of this origin call (your AriaNg); repeatable. Extensions always may."
            ),
            ("--rpc-allow-origin-all", "Let every web page call (with the secret), as aria2's option."),
            (
                "--allow-dir <dir>",
                "Another folder a dir given over RPC may be in (besides the download folder); repeatable."
            ),
            ("-j <n>", "Download at most N at a time (default: the ledger's limit)."),
            RunCommands.connectionsOption,
            HostOptions.option,
        ] + HookOptions.runOptions,
        discussion:
            "HTTP POST, GET (?method=&id=&params=<base64>, JSONP with jsoncallback and the token) and WebSocket on"
            + " /jsonrpc.\n"
            + "Web pages are refused unless their origin is allowed; a Host that is not this machine is refused.\n"
            + "Every call that changes the list is the same command as the CLI's, logged as one event.\n"
            + "Ctrl-C, SIGTERM or aria2.shutdown stop cleanly (partial files resume with the next run or serve).",
        writes: true,
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        try inv.require([])
        let jobs = try inv.int("-j", in: Numbers.jobs)
        let connections = try RunCommands.connections(inv)
        let hooks = try HookOptions.settings(inv)
        let hostName = try HostOptions.hostName(inv)
        let port = try inv.int("--rpc-listen-port", in: Numbers.port) ?? 6800
        let policy = try ServePolicy(inv)
        if inv.args.has("--print-secret") { return try printSecret(inv, policy, port: port) }
        RPCServer.limitMallocArenas(2)
        let listenAll = inv.args.has("--rpc-listen-all")
        if listenAll && policy.isOpen {
            throw CLIError.usage("'--rpc-listen-all' needs a secret (not --rpc-secret '')")
        }
        try AddCommand.checkDirectory(inv.context.dir)
        let secret = try policy.secret()
        let ledger = try inv.context.openForWriting()
        // Another downloader's lock is the answer before the port is: its serve holds the same port, most likely.
        if ledger.isDownloaderRunning(host: hostName) { throw runnerActive(ledger, host: hostName) }
        let session = try DownloaderSession(
            ledger: ledger,
            options: .init(
                jobs: jobs, connections: connections, hooks: hooks, host: hostName, folder: inv.context.dir))
        let service = Aria2Service(
            // On a shared ledger the other hosts' transfers too, as they publish them.
            ledger: ledger, secret: secret,
            activity: { session.currentActivity() + ledger.otherHostsActivity(besides: hostName) },
            // The transfers stop now; the server's stop at the end drains, so the reply ("OK") still goes out.
            onShutdown: { _ in session.requestStop() }, dir: inv.context.dir,
            allowedDirectories: policy.allowedDirectories)
        let server: RPCServer
        do {
            server = try RPCServer(
                service: service,
                configuration: .init(
                    port: port, listenAll: listenAll, allowOriginAll: inv.args.has("--rpc-allow-origin-all"),
                    allowedOrigins: policy.origins, hostNames: ServePolicy.hostNames()))
        } catch let e as RPCServerError {
            throw CLIError.failed(e.description)
        }
        let notifier = Task { await Aria2Notifications.follow(ledger) { server.broadcast($0) } }
        defer { notifier.cancel() }
        let host = listenAll ? "0.0.0.0" : "127.0.0.1"
        let progress = Progress(
            console: inv.console, ledger: ledger, scheduler: session.scheduler, scope: nil)
        defer { server.stop() }
        // Serving starts, and is said, once this process holds the downloader's lock (and the port, above).
        let interrupted = try await session.run(untilIdle: false, progress: progress) {
            server.start()
            inv.console.info(
                "serving aria2 JSON-RPC on http://\(host):\(server.port)/jsonrpc (WebSocket on the same path)"
            )
            policy.announce(inv, secret: secret, port: server.port)
        }
        notifier.cancel()
        inv.console.info("stopped: partial files resume with the next 'dledger run' or 'dledger serve'")
        return interrupted ? CLIError.interrupted : CLIError.success
    }

    /// `--print-secret`: the secret on stdout (alone, for scripts), then the AriaNg link; nothing else is opened.
    static func printSecret(_ inv: Invocation, _ policy: ServePolicy, port: Int) throws -> Int32 {
        guard let secret = try policy.secret() else {
            throw CLIError.usage("no secret to print: --rpc-secret '' turns it off")
        }
        inv.console.out(secret)
        inv.console.info("AriaNg: " + policy.ariaNgLink(secret: secret, port: port))
        return CLIError.success
    }

    /// The refusal when another process downloads for this ledger (for `host`, on a PostgreSQL ledger), naming it
    /// as the lock does.
    static func runnerActive(_ ledger: Ledger, host: String) -> LedgerOpenError {
        if PostgresLocation.isPostgres(ledger.path), let location = try? PostgresLocation(ledger.path) {
            return .runnerActive(
                pid: PostgresRunLock.holder(location, host: host),
                lockPath: PostgresRunLock.name(location) + " for host \(host)")
        }
        let lockPath = ledger.path + ".lock"
        let pid = (try? String(contentsOfFile: lockPath, encoding: .utf8)).flatMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return .runnerActive(pid: pid, lockPath: lockPath)
    }
}
