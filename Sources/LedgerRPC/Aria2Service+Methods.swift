import DownloadLedger

extension Aria2Service {
    typealias Handler = @Sendable (Aria2Service, RPCParams) throws -> RPCValue

    /// Every method served, by its aria2 name (`system.multicall` is answered apart, it calls these).
    static let methods: [String: Handler] = {
        var table: [String: Handler] = [
            "aria2.addUri": { try $0.addUri($1) },
            "aria2.addTorrent": { _, _ in
                throw RPCError.failed("BitTorrent is not supported: only http(s) URIs")
            },
            "aria2.addMetalink": { _, _ in
                throw RPCError.failed("Metalink is not supported: only http(s) URIs")
            },
            "aria2.remove": { try $0.remove($1) },
            "aria2.forceRemove": { try $0.remove($1) },
            "aria2.pause": { try $0.pause($1) },
            "aria2.forcePause": { try $0.pause($1) },
            "aria2.pauseAll": { s, _ in try s.all(.pause(.all)) },
            "aria2.forcePauseAll": { s, _ in try s.all(.pause(.all)) },
            "aria2.unpause": { try $0.unpause($1) },
            "aria2.unpauseAll": { s, _ in try s.all(.resume(.all)) },
            "aria2.tellStatus": { try $0.tellStatus($1) },
            "aria2.getUris": { try $0.getUris($1) },
            "aria2.getFiles": { try $0.getFiles($1) },
            "aria2.getPeers": { s, p in
                _ = try s.task(try p.string(0))
                return .array([])
            },
            "aria2.getServers": { try $0.getServers($1) },
            "aria2.tellActive": { try $0.tellActive($1) },
            "aria2.tellWaiting": { try $0.tellWaiting($1) },
            "aria2.tellStopped": { try $0.tellStopped($1) },
            "aria2.changePosition": { try $0.changePosition($1) },
            "aria2.changeUri": { try $0.changeUri($1) },
            "aria2.getOption": { try $0.getOption($1) },
            "aria2.changeOption": { try $0.changeOption($1) },
            "aria2.getGlobalOption": { s, _ in s.globalOptions() },
            "aria2.changeGlobalOption": { try $0.changeGlobalOption($1) },
            "aria2.getGlobalStat": { s, _ in s.globalStat() },
            "aria2.purgeDownloadResult": { s, _ in try s.purgeDownloadResult() },
            "aria2.removeDownloadResult": { try $0.removeDownloadResult($1) },
            "aria2.getVersion": { _, _ in
                .object([
                    ("enabledFeatures", .array([.string("HTTPS"), .string("Message Digest")])),
                    ("version", .string(aria2Version)),
                    ("dledgerVersion", .string(version)),
                ])
            },
            "aria2.getSessionInfo": { s, _ in .object([("sessionId", .string(s.sessionID))]) },
            "aria2.shutdown": { s, _ in
                s.onShutdown(false)
                return .string("OK")
            },
            "aria2.forceShutdown": { s, _ in
                s.onShutdown(true)
                return .string("OK")
            },
            "aria2.saveSession": { _, _ in .string("OK") },
            "system.listMethods": { _, _ in .array(methodNames.map(RPCValue.string)) },
            "system.listNotifications": { _, _ in .array(notificationNames.map(RPCValue.string)) },
        ]
        for (name, handler) in ledgerMethods { table[name] = handler }
        return table
    }()

    /// Methods that need no secret, as in aria2.
    static let open: Set<String> = ["system.listMethods", "system.listNotifications"]

    /// `system.listMethods`, sorted, `system.multicall` included.
    static let methodNames: [String] = (Array(methods.keys) + ["system.multicall"]).sorted()

    /// The notifications sent over WebSocket.
    public static let notificationNames = [
        "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop", "aria2.onDownloadComplete",
        "aria2.onDownloadError", "aria2.onBtDownloadComplete",
    ]

    /// The task a GID, or a prefix of one that only one task has, names (live or in the to-delete list).
    func task(_ gid: String) throws -> (task: DownloadTask, trashed: Bool) {
        guard GID.isWellFormed(gid) else { throw RPCError.failed("Invalid GID \(gid)") }
        let list = ledger.latestList
        let lower = gid.lowercased()
        if let id = GID.id(of: lower), let t = list.tasks[id] { return (t, list.isTrashed(id)) }
        guard lower.utf8.count < 16 else { throw RPCError.failed("GID \(gid) is not found") }
        var found: DownloadTask?
        for (id, t) in list.tasks where GID.of(id).hasPrefix(lower) {
            guard found == nil else { throw RPCError.failed("GID \(gid) is ambiguous") }
            found = t
        }
        guard let found else { throw RPCError.failed("GID \(gid) is not found") }
        return (found, list.isTrashed(found.id))
    }

    /// Runs a command as the CLI would; a refusal is aria2's error 1 with the ledger's one-line reason, or with
    /// `unchanged` when the command had nothing to do and the method words that itself.
    @discardableResult
    func execute(_ command: Command, unchanged: String? = nil) throws -> Outcome {
        do {
            return try ledger.execute(command, origin: Self.origin)
        } catch LedgerError.nothingToDo(let reason) {
            throw RPCError.failed(unchanged ?? reason)
        } catch {
            throw Self.refusal(error)
        }
    }

    /// Runs `commands` all or nothing, as one transaction: the first refusal answers and nothing is appended. A
    /// command with nothing to do is left out, as aria2 answers a change to what already is: "OK".
    func execute(all commands: [Command]) throws {
        var commands = commands
        while !commands.isEmpty {
            do {
                if commands.count == 1 {
                    try ledger.execute(commands[0], origin: Self.origin)
                } else {
                    try ledger.execute(all: commands, origin: Self.origin)
                }
                return
            } catch LedgerError.nothingToDo {
                return
            } catch let refused as BatchRefused {
                guard case .nothingToDo? = refused.error as? LedgerError else {
                    throw Self.refusal(refused.error)
                }
                commands.remove(at: refused.done)
            } catch {
                throw Self.refusal(error)
            }
        }
    }

    /// A command's refusal as the RPC answers it: the ledger's reason as error 1; a store's error as it is.
    private static func refusal(_ error: any Error) -> any Error {
        switch error {
        case let e as LedgerError: return RPCError.failed(e.description)
        case let e as NothingAdded: return RPCError.failed(e.description)
        default: return error
        }
    }

    /// A command over every task: "OK", also when there was nothing to do (as aria2 answers).
    func all(_ command: Command) throws -> RPCValue {
        try execute(all: [command])
        return .string("OK")
    }
}
