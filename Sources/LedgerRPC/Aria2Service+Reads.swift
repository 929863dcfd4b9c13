extension Aria2Service {
    /// The methods answered from the list as last committed (``DownloadLedger/Ledger/latestList``) and the
    /// transfers' activity: they change nothing and never wait for a write, so a server may run them beside
    /// each other and beside a write that waits on its commit.
    public static let readMethods: Set<String> = [
        "aria2.tellStatus", "aria2.getUris", "aria2.getFiles", "aria2.getPeers", "aria2.getServers",
        "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped", "aria2.getGlobalStat",
        "aria2.getVersion", "aria2.getSessionInfo", "aria2.getOption", "aria2.getGlobalOption",
        "system.listMethods", "system.listNotifications", "dledger.sections",
    ]

    /// Whether `method` is one of ``readMethods``.
    public static func isRead(_ method: String) -> Bool { readMethods.contains(method) }

    /// Whether a request body (one call, a batch, or a `system.multicall`) only calls ``readMethods``. A body
    /// that does not parse is answered with an error, which reads nothing either.
    public static func onlyReads(_ body: [UInt8]) -> Bool {
        guard let document = RPCValue.parse(body) else { return true }
        return onlyReads(document)
    }

    private static func onlyReads(_ request: RPCValue) -> Bool {
        switch request {
        case .array(let requests):
            return requests.allSatisfy(onlyReads)
        default:
            guard case .string(let method)? = request["method"] else { return true }
            if method == "system.multicall" {
                guard case .array(let params)? = request["params"], let calls = params.last?.arrayValue else {
                    return true
                }
                return calls.allSatisfy { call in
                    guard case .string(let name)? = call["methodName"] else { return true }
                    return isRead(name)
                }
            }
            return isRead(method)
        }
    }
}
