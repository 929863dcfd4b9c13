import LedgerCore
import LedgerTransfer

/// `I`: one task's details in a pane under the list, read from the list shown and the live activity (what
/// `dledger info ID` prints): state, bytes, file and folder, URL, options with credentials redacted, the last
/// failure, the checksum and the place in the list.
extension UIModel {
    /// The pane's lines, `label  value` (the label padded to 11 columns).
    func detailLines(_ id: TaskID, file onDisk: Bool?) -> [String] {
        let list = shownList
        guard let t = list.tasks[id] else { return ["#\(id) is not in the list shown"] }
        func row(_ label: String, _ value: String) -> String {
            label + String(repeating: " ", count: max(1, 11 - TextWidth.width(label))) + value
        }
        var out: [String] = []
        var state = t.state.rawValue
        if t.attempts > 0 { state += " (attempt \(t.attempts))" }
        out.append(row("state", state))
        if t.state == .downloading, history == nil, let a = activity[id] {
            var bytes = a.detail
            if let e = a.expected, e > 0 { bytes += " (\(Int(min(1, Double(a.bytes) / Double(e)) * 100))%)" }
            bytes += ", \(Units.rate(a.speed))" + (a.eta.map { ", ETA \(Units.duration($0))" } ?? "")
            out.append(row("bytes", bytes))
            if a.connections > 1 { out.append(row("connections", "\(a.connections)")) }
            if let retry = a.retry { out.append(row("retry", retry.line(now: Double(now) / 1000))) }
        } else {
            out.append(row("bytes", TransferActivity.detail(bytes: t.bytes, expected: t.size)))
        }
        if let name = t.fileName {
            let where_ = onDisk.map { $0 ? " (on disk)" : " (not on disk)" } ?? ""
            out.append(row("file", t.directory + "/" + name + where_))
        } else {
            out.append(row("file", "none yet: the bytes go to .dledger/partial/\(id).part"))
        }
        out.append(row("folder", t.directory))
        if let host = t.host {
            // A shared ledger: whose disk the file or partial is on, and whether that host transfers it now.
            let claim = t.liveHolder(at: now) == host ? " (claimed, transferring)" : ""
            out.append(row("host", host + claim))
        }
        out.append(row("URL", Self.redactingUserinfo(t.url)))
        let options = t.options.redactedLines
        if options.isEmpty {
            out.append(row("options", "none (the ledger's defaults)"))
        } else {
            for (i, o) in options.enumerated() {
                out.append(row(i == 0 ? "options" : "", o.key + " " + o.value))
            }
        }
        if let f = t.failure { out.append(row("failure", Units.failure(f))) }
        var sums: [String] = []
        if let s = t.sha256 { sums.append("sha256 \(s)") }
        if let e = t.expectedSHA256 {
            sums.append("expected \(e)" + (t.sha256.map { $0 == e ? " (matches)" : "" } ?? ""))
        }
        out.append(row("checksum", sums.isEmpty ? "none yet" : sums.joined(separator: ", ")))
        if let entry = list.trash.first(where: { $0.id == id }) {
            out.append(
                row(
                    "location",
                    "the to-delete list (\(entry.mode == .all ? "record and file" : "record only")), from "
                        + "\(entry.section):\(entry.index) '\(entry.sectionTitle)'"))
        } else if let place = list.location(of: id) {
            out.append(
                row("location", "\(place.section):\(place.index) in '\(list.sections[place.section].title)'"))
        }
        var times = "added " + formatTime(t.added)
        if let done = t.finished { times += ", finished " + formatTime(done) }
        out.append(row("time", times))
        return out
    }

    /// A URL with any `user:password@` shown as `[redacted]@`.
    public static func redactingUserinfo(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + TaskOptions.redaction + String(url[at...])
    }
}
