/// Settings of one downloader's host on a shared ledger: its maximum download count and its speed limit, each
/// over the ledger's (``Event/hostSettingChanged(host:setting:value:)``).
extension DownloadList {
    /// The settings a host may have a value of its own for.
    public static let hostSettable: [Setting] = [.maxDownloads, .speedLimit]

    /// The host's own value of `setting`, if it has one.
    public func hostValue(_ setting: Setting, for host: String) -> Int64? {
        hostSettings[host]?[setting]
    }

    /// The maximum download count of `host`: its own, else the ledger's (0: no limit).
    public func maxDownloads(for host: String?) -> Int {
        host.flatMap { hostValue(.maxDownloads, for: $0) }.map { Int(clamping: $0) } ?? maxDownloads
    }

    /// The speed limit of `host`'s downloads together: its own, else the ledger's (0: none).
    public func speedLimit(for host: String?) -> Int64 {
        host.flatMap { hostValue(.speedLimit, for: $0) } ?? speedLimit
    }

    /// The event of `setForHost`.
    /// - Throws: `LedgerError.invalidValue` for a bad host name, a setting that is not per host, a value out of
    ///   range; `.nothingToDo` when the host has that value already.
    func decideHostSetting(_ host: String, _ setting: Setting, _ raw: Int64?) throws -> Decision {
        let host = try Validation.hostName(host)
        guard Self.hostSettable.contains(setting) else {
            throw LedgerError.invalidValue("\(setting.spec.subject) is the same for every host")
        }
        let value = try raw.map { try setting.spec.checked(.number($0)).number }
        let now = hostValue(setting, for: host)
        guard value != now else {
            let said = value.map { "\($0)" } ?? "the ledger's"
            throw LedgerError.nothingToDo("\(setting.spec.subject) of host \(host) is already \(said)")
        }
        return Decision(entry: Entry(.hostSettingChanged(host: host, setting: setting, value: value)))
    }
}
