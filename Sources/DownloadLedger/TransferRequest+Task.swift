import LedgerCore
import LedgerTransfer

extension TransferRequest {
    /// The request for a task as the log has it: its URL, name, checksum and generation, and its options (headers,
    /// user agent, referer, proxy, speed limit, connections, mirrors), with the list's defaults (connections,
    /// connections per server, minimum piece size, maximum size, user agent) for a task without its own.
    ///
    /// A credential's value is sealed in the log; `unseal` opens it for the place it is used
    /// (``Ledger/CredentialPlace``). One that cannot be opened fails the request: it is never sent wrong, nor
    /// left out (the server would answer someone else's request).
    /// - Throws: what `unseal` throws (`VaultError`).
    init(task t: DownloadTask, in list: DownloadList, unseal: (SealedValue, _ place: String) throws -> String)
        throws
    {
        self.init(
            id: t.id, url: t.url, directory: t.directory,
            preferredName: t.nameIsUserChosen ? t.displayName : nil,
            expectedSHA256: t.expectedSHA256, validator: t.validator, generation: t.resets)
        // A size resolved by this generation's attempts (a redownload forgets them, not the size).
        expectedSize = t.attempts > 0 ? t.size : nil
        connections = list.connections > 0 ? list.connections : nil
        connectionsPerServer = list.connectionsPerServer > 0 ? list.connectionsPerServer : nil
        minPieceSize = list.minSplitSize > 0 ? list.minSplitSize : nil
        maxSize = list.maxSize > 0 ? list.maxSize : nil
        let agent = list[.userAgent].text
        userAgent = agent.isEmpty ? nil : agent
        guard t.hasOptions else { return }
        let o = t.options
        headers = try o.headers.map { h in
            switch h.value {
            case .plain(let text): return "\(h.name): \(text)"
            case .sealed(let sealed):
                return "\(h.name): " + (try unseal(sealed, Ledger.CredentialPlace.header(h.name)))
            }
        }
        if let own = o.userAgent { userAgent = own }
        referer = o.referer == "*" ? t.url : o.referer
        func open(_ value: HeaderValue?, _ place: String) throws -> String? {
            switch value {
            case .plain(let text)?: text
            case .sealed(let sealed)?: try unseal(sealed, place)
            case nil: nil
            }
        }
        userinfo = try open(o.userinfo, Ledger.CredentialPlace.url)
        // The referer's login, sealed apart, goes back into the URL for the request only.
        if let referer, let login = try open(o.refererUserinfo, Ledger.CredentialPlace.referer),
            let (scheme, rest) = Validation.splitScheme(referer)
        {
            self.referer = "\(scheme)://\(login)@\(rest)"
        }
        if let proxy = o.proxy {
            let userinfo = try open(o.proxyUserinfo, Ledger.CredentialPlace.proxy)
            if let userinfo, let (scheme, rest) = Validation.splitScheme(proxy) {
                self.proxy = "\(scheme)://\(userinfo)@\(rest)"
            } else {
                self.proxy = proxy
            }
        }
        maxSpeed = o.maxSpeed
        if let own = o.maxSize { maxSize = own }
        if let own = o.connections { connections = own }
        if let own = o.connectionsPerServer { connectionsPerServer = own }
        if let own = o.minSplitSize { minPieceSize = own }
        mirrors = o.mirrors
    }
}
