import DownloadLedger
import LedgerFrontEnd

extension Output {
    /// The state word of a row, padded to 11 characters (`Format.fit($0.rawValue, 11)`), as bytes of the program.
    private static func stateWord(_ state: TaskState) -> StaticString {
        switch state {
        case .waiting: return "waiting    "
        case .downloading: return "downloading"
        case .paused: return "paused     "
        case .stopped: return "stopped    "
        case .finished: return "finished   "
        case .failed: return "failed     "
        }
    }

    /// The word of a transfer no downloader runs.
    private static let interruptedWord: StaticString = "interrupted"

    /// The human table of a view, into `w`: a header per group, a line per task (with `urls`, the URL for the
    /// name), or `empty` when there is no group. Rows are written as bytes straight into the buffer, each task read
    /// once, in place of a line string. With `hosts` (a shared ledger), a row names the host that has the task
    /// (`on HOST`).
    static func table(
        _ groups: [ViewGroup], of list: DownloadList, into w: inout ConsoleLines,
        empty: String = "The list is empty. Add a URL with 'dledger add URL'.", urls: Bool = false,
        interrupted: Bool = false, connections: [TaskID: Int] = [:], onDisk: Bool = false,
        live: [TaskID: TransferActivity] = [:], hosts: Bool = false
    ) {
        guard !groups.isEmpty else {
            w.text(empty)
            return w.newline()
        }
        var widest = 2
        for g in groups {
            for id in g.ids { widest = max(widest, ConsoleLines.digits(id) + 1) }
        }
        let idWidth = max(3, widest)
        let trash = trashIndex(list)
        for g in groups {
            let count = g.ids.count
            w.styled((g.index.map { "\($0) " } ?? "") + g.title, .bold)
            w.styled("  (\(count) task\(count == 1 ? "" : "s"))", .dim)
            w.newline()
            for id in g.ids {
                let deleted = trash.map { $0[id] } ?? nil
                if onDisk, list.tasks.state(of: id) == .downloading {
                    guard let t = shown(id, in: list, onDisk: onDisk, live: live[id]) else { continue }
                    row(
                        t, idWidth: idWidth, trash: deleted, into: &w, url: urls, interrupted: interrupted,
                        connections: live[id]?.connections ?? connections[id], retry: live[id]?.retry,
                        hosts: hosts)
                } else {
                    // Lent in place, not copied: a row retains none of the task's strings. (Only a running
                    // transfer has connections: most rows hash no id.)
                    list.tasks.read(id) { t in
                        row(
                            t, idWidth: idWidth, trash: deleted, into: &w, url: urls,
                            interrupted: interrupted,
                            connections: connections.isEmpty ? nil : connections[id], hosts: hosts)
                    }
                }
            }
        }
    }

    private static func row(
        _ t: borrowing DownloadTask, idWidth: Int, trash: TrashEntry?, into w: inout ConsoleLines, url: Bool,
        interrupted: Bool, connections: Int?, retry: RetryWait? = nil, hosts: Bool = false
    ) {
        // The task's state now, as the JSON says it (a deleted download's transfer stopped: it waits); the
        // state it had when deleted follows the row's 'from' note.
        let had = t.state
        let cut = interrupted && trash == nil && had == .downloading
        let state = cut ? interruptedWord : stateWord(had)
        w.spaces(2)
        w.right("#", t.id, idWidth)
        w.spaces(2)
        switch had {
        case .downloading where cut: w.styled(state, .yellow)
        case .finished: w.styled(state, .green)
        case .failed: w.styled(state, .red)
        case .downloading: w.styled(state, .cyan)
        case .paused, .stopped: w.styled(state, .yellow)
        case .waiting: w.word(state)
        }
        w.spaces(1)
        if t.state == .finished {
            w.rightBytes(t.bytes, 19)
            w.word(" 100%")
        } else {
            if t.bytes > 0 || t.size != nil {
                w.rightBytes(t.bytes, of: t.size, 19)
            } else {
                w.spaces(18)
                w.word("-")
            }
            w.spaces(1)
            if let size = t.size, size > 0 {
                let (scaled, over) = t.bytes.multipliedReportingOverflow(by: 100)
                w.right("", over ? 100 : min(100, scaled / size), 3)
                w.text("%")
            } else {
                w.spaces(4)
            }
        }
        w.spaces(2)
        w.text(url ? t.url : DownloadList.shownName(t))
        if t.state == .paused, t.connectionKept { w.styled("  (connection kept)", .dim) }
        if hosts, let host = t.host { w.styled("  on \(host)", .dim) }
        // As the live lines show it: a split transfer's connections, none for one.
        if !cut, had == .downloading, let connections, connections > 1 {
            w.styled("  ×\(connections)", .dim)
        }
        if !cut, had == .downloading, let retry {
            w.styled("  \(retry.line(now: RetryWait.wallClock()))", .yellow)
        }
        if let failure = t.failure, t.state == .failed {
            w.styled("  (\(Format.failure(failure)))", .red)
        }
        if let trash {
            let mode = trash.mode == .all ? "record and file" : "record only"
            let was = trash.state.map { $0 == t.state ? "" : ", was \($0.rawValue)" } ?? ""
            w.styled("  from \(trash.section):\(trash.index) '\(trash.sectionTitle)', \(mode)\(was)", .dim)
        }
        w.newline()
    }
}
