import DownloadLedger
import Foundation

/// The shapes the tool prints: task and list JSON (stable key order, documented in docs/cli.md) and the
/// human table of `ls`.
enum Output {
    /// One task. `section`/`index` are its place in the manual list (null in the to-delete list).
    /// With `interrupted`, a downloading task shows as `interrupted`: no downloader holds the run lock, so its
    /// transfer stopped without saying so (a kill); the next run resumes it.
    /// `connections`: the transfer's connection count, when it runs and the log recorded one
    /// (``Ledger/loggedConnections(of:)``).
    static func task(
        _ t: DownloadTask, place: (section: Int, index: Int)?, list: DownloadList, interrupted: Bool = false,
        connections: Int? = nil
    ) -> JSON {
        let trash = list.trash.first { $0.id == t.id }
        return .obj([
            "id": .int(t.id),
            "url": .string(t.url),
            "name": .string(DownloadList.shownName(t)),
            "state": .string(interrupted && t.state == .downloading ? "interrupted" : t.state.rawValue),
            "section": place.map { .int($0.section) } ?? .null,
            "index": place.map { .int($0.index) } ?? .null,
            "bytes": .int(t.bytes),
            "size": .opt(t.size),
            "file": .opt(t.filePath),
            "directory": .string(t.directory),
            "sha256": .opt(t.sha256),
            "expectedSha256": .opt(t.expectedSHA256),
            "attempts": .int(t.attempts),
            "connectionKept": .bool(t.connectionKept),
            "connections": .opt(connections.map(Int64.init)),
            "options": options(t.options),
            "failure": t.failure.map {
                .obj([
                    "code": .string($0.code), "detail": .string($0.detail), "retryable": .bool($0.retryable),
                ])
            } ?? .null,
            "added": .string(Format.iso(t.added)),
            "finished": t.finished.map { .string(Format.iso($0)) } ?? .null,
            "deleted": trash.map {
                .obj([
                    "time": .string(Format.iso($0.deleted)), "mode": .string($0.mode.rawValue),
                    "section": .int($0.section), "index": .int($0.index),
                    "sectionTitle": .string($0.sectionTitle), "state": .opt($0.state?.rawValue),
                ])
            } ?? .null,
        ])
    }

    /// A view of the list (`ls`, `replay`): the same document for the same list.
    static func view(
        _ sections: [ViewSection], of list: DownloadList, sort: SortMode, descending: Bool, filter: String,
        interrupted: Bool = false, connections: [TaskID: Int] = [:]
    ) -> JSON {
        let places = list.locations(of: Set(sections.flatMap { $0.tasks.map(\.id) }))
        return .obj([
            "seq": .int(list.head),
            "time": list.head > 0 ? .string(Format.iso(list.headTime)) : .null,
            "sort": .string(sort.rawValue),
            "descending": .bool(descending),
            "filter": .string(filter),
            "sections": .array(
                sections.map { s in
                    .obj([
                        "index": s.index.map { .int($0) } ?? .null,
                        "title": .string(s.title),
                        "tasks": .array(
                            s.tasks.map {
                                task(
                                    $0, place: places[$0.id], list: list, interrupted: interrupted,
                                    connections: connections[$0.id])
                            }),
                    ])
                }),
        ])
    }

    /// The view with each downloading task's bytes read from its partial file (progress is not logged), for the
    /// text and the JSON of `ls` alike.
    static func withBytesOnDisk(_ section: ViewSection) -> ViewSection {
        var s = section
        for i in s.tasks.indices where s.tasks[i].state == .downloading {
            if let size = partialSize(s.tasks[i].partialPath) {
                s.tasks[i].bytes = max(s.tasks[i].bytes, size)
            }
        }
        return s
    }

    /// The human table of a view: a header per section, a line per task (with `urls`, the URL for the name).
    static func table(
        _ sections: [ViewSection], of list: DownloadList, console: Console, urls: Bool = false,
        interrupted: Bool = false, connections: [TaskID: Int] = [:]
    )
        -> [String]
    {
        guard !sections.isEmpty else {
            return ["The list is empty. Add a URL with 'dledger add URL'."]
        }
        let idWidth = max(3, (sections.flatMap { $0.tasks.map { "#\($0.id)".count } }.max() ?? 2))
        var lines: [String] = []
        for s in sections {
            let head = (s.index.map { "\($0) " } ?? "") + s.title
            let count = s.tasks.count
            lines.append(
                console.style(head, .bold) + console.style("  (\(count) task\(count == 1 ? "" : "s"))", .dim))
            for t in s.tasks {
                lines.append(
                    "  "
                        + row(
                            t, idWidth: idWidth, list: list, console: console, url: urls,
                            interrupted: interrupted, connections: connections[t.id]))
            }
        }
        return lines
    }

    private static func partialSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    private static func row(
        _ t: DownloadTask, idWidth: Int, list: DownloadList, console: Console, url: Bool, interrupted: Bool,
        connections: Int?
    ) -> String {
        let trash = list.trash.first { $0.id == t.id }
        // In the to-delete list, the state the task had when it was deleted (its transfer stopped then).
        let had = trash?.state ?? t.state
        let cut = interrupted && trash == nil && had == .downloading
        let state = Format.fit(cut ? "interrupted" : had.rawValue, 11)
        let styled: String
        switch had {
        case .downloading where cut: styled = console.style(state, .yellow)
        case .finished: styled = console.style(state, .green)
        case .failed: styled = console.style(state, .red)
        case .downloading: styled = console.style(state, .cyan)
        case .paused, .stopped: styled = console.style(state, .yellow)
        case .waiting: styled = state
        }
        var amount =
            t.bytes > 0 || t.size != nil ? TransferActivity.detail(bytes: t.bytes, expected: t.size) : "-"
        var percent = ""
        if let size = t.size, size > 0 { percent = "\(min(100, t.bytes * 100 / size))%" }
        if t.state == .finished {
            amount = Format.bytes(t.bytes)
            percent = "100%"
        }
        var line =
            Format.right("#\(t.id)", idWidth) + "  " + styled + " " + Format.right(amount, 19) + " "
            + Format.right(percent, 4) + "  " + (url ? t.url : DownloadList.shownName(t))
        if t.state == .paused, t.connectionKept { line += console.style("  (connection kept)", .dim) }
        // As the live lines show it: a split transfer's connections, none for one.
        if !cut, had == .downloading, let connections, connections > 1 {
            line += console.style("  ×\(connections)", .dim)
        }
        if let failure = t.failure, t.state == .failed {
            line += console.style("  (\(Format.failure(failure)))", .red)
        }
        if let trash {
            let mode = trash.mode == .all ? "record and file" : "record only"
            line += console.style(
                "  from \(trash.section):\(trash.index) '\(trash.sectionTitle)', \(mode)", .dim)
        }
        return line
    }

    /// The whole projection (`export --json`).
    static func export(_ list: DownloadList) -> JSON {
        let places = list.locations(of: Set(list.tasks.keys))
        return .obj([
            "seq": .int(list.head),
            "time": list.head > 0 ? .string(Format.iso(list.headTime)) : .null,
            "settings": .obj([
                "directory": .string(list.directory),
                "maxDownloads": .int(list.maxDownloads),
                "speedLimit": .int(list.speedLimit),
                "connectionsPerServer": .int(list.connectionsPerServer),
                "minSplitSize": .int(list.minSplitSize),
                "sort": .string(list.sortMode.rawValue),
                "descending": .bool(list.sortDescending),
                "autoRemoveEmptySections": .bool(list.autoRemoveEmptySections),
                "trash": .bool(list.trashEnabled),
            ]),
            "nextId": .int(list.nextID),
            "sections": .array(
                list.sections.enumerated().map { i, s in
                    .obj([
                        "index": .int(i), "title": .string(s.title),
                        "tasks": .array(
                            s.tasks.compactMap { list.tasks[$0] }.map {
                                task($0, place: places[$0.id], list: list)
                            }),
                    ])
                }),
            "trash": .array(
                list.trash.compactMap { list.tasks[$0.id] }.map { task($0, place: nil, list: list) }),
            "undo": .array(
                list.undoStack.reversed().map { .obj(["seq": .int($0.seq), "kind": .string($0.kind)]) }),
            "redo": .array(
                list.redoStack.reversed().map { .obj(["seq": .int($0.seq), "kind": .string($0.kind)]) }),
        ])
    }
}
