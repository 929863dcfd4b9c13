import DownloadLedger
import Foundation
import LedgerFrontEnd

/// The shapes the tool prints: task and list JSON (stable key order, documented in docs/cli.md) and the
/// human table of `ls`.
enum Output {
    /// One task. `section`/`index` are its place in the manual list (null in the to-delete list).
    /// With `interrupted`, a downloading task shows as `interrupted`: no downloader holds the run lock, so its
    /// transfer stopped without saying so (a kill); the next run resumes it.
    /// `connections`: the transfer's connection count, when it runs and the log recorded one
    /// (``Ledger/loggedConnections(of:)``).
    /// `trash`: the list's ``trashIndex(_:)`` when many tasks are printed (else the to-delete list is searched).
    static func task(
        _ t: DownloadTask, place: (section: Int, index: Int)?, list: DownloadList, interrupted: Bool = false,
        connections: Int? = nil, trash index: [TaskID: TrashEntry]? = nil, live: TransferActivity? = nil
    ) -> JSONValue {
        let trash = index.map { $0[t.id] } ?? list.trash.first { $0.id == t.id }
        let json = JSONValue.obj([
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
        guard case .object(var fields) = json else { return json }
        // On a shared ledger, the host that has the task's file or partial (and holds its claim while it runs);
        // absent for a task no host claimed, so a SQLite ledger's output is as before.
        if let host = t.host { fields.append(("host", .string(host))) }
        // A running transfer's live figures, after the task's own (a list no downloader runs is as before).
        guard let live, t.state == .downloading else { return .object(fields) }
        return .object(fields + liveFields(live))
    }

    /// A view of the list (`ls`, `replay`): the same document for the same list, written task by task.
    static func view(
        _ groups: [ViewGroup], of list: DownloadList, sort: SortMode, descending: Bool, filter: String,
        interrupted: Bool = false, connections: [TaskID: Int] = [:], onDisk: Bool = false,
        live: [TaskID: TransferActivity] = [:], into s: inout JSONStream
    ) {
        let places = list.locations(of: Set(groups.flatMap(\.ids)))
        let trash = trashIndex(list)
        s.object { s in
            s.field("seq", .int(list.head))
            s.field("time", list.head > 0 ? .string(Format.iso(list.headTime)) : .null)
            s.field("sort", .string(sort.rawValue))
            s.field("descending", .bool(descending))
            s.field("filter", .string(filter))
            s.array("sections") { s in
                for g in groups {
                    s.object { s in
                        s.field("index", g.index.map { .int($0) } ?? .null)
                        s.field("title", .string(g.title))
                        s.array("tasks") { s in
                            for id in g.ids {
                                guard let t = shown(id, in: list, onDisk: onDisk, live: live[id]) else {
                                    continue
                                }
                                s.item(
                                    task(
                                        t, place: places[id], list: list, interrupted: interrupted,
                                        connections: live[id]?.connections ?? connections[id], trash: trash,
                                        live: live[id]))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The to-delete list by task id (the first entry of each), to look tasks up in; nil when it is empty.
    static func trashIndex(_ list: DownloadList) -> [TaskID: TrashEntry]? {
        list.trash.isEmpty ? nil : Dictionary(list.trash.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The task as `ls` shows it, for the text and the JSON alike (progress is not logged): a downloading task's
    /// bytes are those its downloader published as received (`live`, ``Ledger/liveActivity()``); without it, with
    /// `onDisk`, what its partial file holds now: a split file's written pieces (its piece map), not its length.
    static func shown(
        _ id: TaskID, in list: DownloadList, onDisk: Bool, live: TransferActivity? = nil
    ) -> DownloadTask? {
        guard let t = list.tasks[id] else { return nil }
        return shown(t, onDisk: onDisk, live: live)
    }

    /// `t` as `ls` shows it (``shown(_:in:onDisk:live:)``).
    static func shown(_ task: DownloadTask, onDisk: Bool, live: TransferActivity?) -> DownloadTask {
        var t = task
        guard t.state == .downloading else { return t }
        if let live {
            t.bytes = live.bytes
            if t.size == nil { t.size = live.expected }
        } else if onDisk, let kept = partialBytes(t.partialPath) {
            t.bytes = kept
        }
        return t
    }

    /// The bytes the partial file at `path` holds: its piece map's written ranges, else its size (a transfer on
    /// one connection appends). Not following a link.
    static func partialBytes(_ path: String) -> Int64? {
        if let pieces = PartialPieces.read(path: path) {
            return pieces.written.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// What a task's JSON adds from its downloader's live activity: the speed, the connections, and the wait
    /// before the next attempt, when it waits.
    static func liveFields(_ live: TransferActivity?) -> [(String, JSONValue)] {
        guard let live else { return [] }
        let retry: JSONValue =
            live.retry.map { r in
                .obj([
                    "attempt": .int(Int64(r.attempt)), "of": .opt(r.of.map(Int64.init)),
                    "at": .string(Format.iso(Int64((r.at * 1000).rounded()))),
                    "reason": .string(FailureReason.sentence(code: r.code, detail: r.detail)),
                    "text": .string(r.line(now: RetryWait.wallClock())),
                ])
            } ?? .null
        return [("speed", .int(Int64(live.speed))), ("retry", retry)]
    }

    /// The whole projection (`export --json`), written task by task.
    static func export(_ list: DownloadList, into s: inout JSONStream) {
        let places = list.locations(of: Set(list.tasks.keys))
        let trash = trashIndex(list)
        s.object { s in
            s.field("seq", .int(list.head))
            s.field("time", list.head > 0 ? .string(Format.iso(list.headTime)) : .null)
            s.field(
                "settings",
                .obj([
                    "directory": .string(list.directory),
                    "maxDownloads": .int(list.maxDownloads),
                    "speedLimit": .int(list.speedLimit),
                    "connectionsPerServer": .int(list.connectionsPerServer),
                    "minSplitSize": .int(list.minSplitSize),
                    "pauseHold": .int(list.pauseHold),
                    "sort": .string(list.sortMode.rawValue),
                    "descending": .bool(list.sortDescending),
                    "autoRemoveEmptySections": .bool(list.autoRemoveEmptySections),
                    "trash": .bool(list.trashEnabled),
                ]))
            s.field("nextId", .int(list.nextID))
            s.array("sections") { s in
                for (i, section) in list.sections.enumerated() {
                    s.object { s in
                        s.field("index", .int(i))
                        s.field("title", .string(section.title))
                        s.array("tasks") { s in
                            for id in section.tasks {
                                guard let t = list.tasks[id] else { continue }
                                s.item(task(t, place: places[id], list: list, trash: trash))
                            }
                        }
                    }
                }
            }
            s.array("trash") { s in
                for entry in list.trash {
                    guard let t = list.tasks[entry.id] else { continue }
                    s.item(task(t, place: nil, list: list, trash: trash))
                }
            }
            s.field(
                "undo",
                .array(
                    list.undoStack.reversed().map { .obj(["seq": .int($0.seq), "kind": .string($0.kind)]) }))
            s.field(
                "redo",
                .array(
                    list.redoStack.reversed().map { .obj(["seq": .int($0.seq), "kind": .string($0.kind)]) }))
        }
    }
}
