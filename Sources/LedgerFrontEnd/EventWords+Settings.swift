import DownloadLedger

extension EventWords {
    /// What a change of a setting or of a task's options did (nil for other events).
    static func settingText(_ event: Event) -> String? {
        switch event {
        case .settingChanged(let setting, let value):
            return Self.setting(setting, value)
        case .directoryChanged(let path):
            return "download folder set to \(path): for tasks added from now on"
        case .hostSettingChanged(let host, let setting, let value):
            guard let value else { return "host \(host): \(setting.spec.name) follows the ledger's again" }
            return "host \(host): " + Self.setting(setting, .number(value))
        case .taskOptionsChanged(let id, let options):
            return options.isEmpty
                ? "#\(id) options cleared" : "#\(id) options set: " + Self.options(options)
        case .sortChanged(let mode, let descending):
            return mode == .manual
                ? "back to the manual order" : "sorted by \(mode.rawValue)\(descending ? ", descending" : "")"
        case .emptySectionsPolicyChanged(let on):
            return on ? "empty sections are now removed automatically" : "empty sections are now kept"
        case .trashPolicyChanged(let on):
            return on
                ? "deletes go to the to-delete list again"
                : "the to-delete list is off: deletes erase at once"
        case .hookChanged(let hook, let command):
            return command.map { "\(hook.settingName) set to \($0)" } ?? "\(hook.settingName): none"
        default: return nil
        }
    }

    /// A value setting's change in words; a setting without words of its own here says its name and value.
    static func setting(_ setting: Setting, _ value: SettingValue) -> String {
        if let words = settingWords[setting] { return words(value.number) }
        let shown = value.isDefault ? "default" : setting.spec.isText ? value.text : "\(value.number)"
        return value.isDefault
            ? "\(setting.spec.name): \(shown)" : "\(setting.spec.name) set to \(printable(shown))"
    }

    /// The settings whose change says more than their name and value.
    private static let settingWords: [Setting: @Sendable (Int64) -> String] = [
        .maxDownloads: { n in
            n == 0
                ? "no limit on simultaneous downloads" : "at most \(n) download\(n == 1 ? "" : "s") at a time"
        },
        .speedLimit: { n in n == 0 ? "speed limit removed" : "speed limit set to \(Format.rate(Double(n)))" },
        .maxSize: { n in
            n == 0
                ? "max-size: the default (16 GiB for a body without a length, no maximum for an announced size)"
                : "max-size set to \(Format.bytes(n)): a larger file fails"
        },
        .connectionsPerServer: { n in
            n == 0
                ? "max-connection-per-server: the default (\(TransferConfig().connectionsPerServer))"
                : "max-connection-per-server set to \(n): at most \(n) connection\(n == 1 ? "" : "s") to one server"
        },
        .minSplitSize: { n in
            n == 0
                ? "min-split-size: the default (\(Format.binaryBytes(TransferConfig().minPieceSize)))"
                : "min-split-size set to \(Format.binaryBytes(n)): no piece smaller"
        },
        .connections: { n in
            n == 0
                ? "connections per download: the downloader decides" : "connections per download set to \(n)"
        },
        .pauseHold: { n in
            n == 0
                ? "pause-hold: the default (\(Int(TransferConfig().holdLimit)) s)"
                : "pause-hold set to \(n) s: a paused download keeps its connections that long"
        },
    ]
}
