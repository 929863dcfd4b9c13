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
        connections: Int? = nil, trash index: [TaskID: TrashEntry]? = nil
    ) -> JSONValue {
        let trash = index.map { $0[t.id] } ?? list.trash.first { $0.id == t.id }
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

    /// A view of the list (`ls`, `replay`): the same document for the same list, written task by task.
    static func view(
        _ groups: [ViewGroup], of list: DownloadList, sort: SortMode, descending: Bool, filter: String,
        interrupted: Bool = false, connections: [TaskID: Int] = [:], onDisk: Bool = false,
        into s: inout JSONStream
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
                                guard let t = shown(id, in: list, onDisk: onDisk) else { continue }
                                s.item(
                                    task(
                                        t, place: places[id], list: list, interrupted: interrupted,
                                        connections: connections[id], trash: trash))
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

    /// The task as `ls` shows it: with `onDisk`, a downloading task's bytes are what its partial file holds now
    /// (progress is not logged), for the text and the JSON alike.
    static func shown(_ id: TaskID, in list: DownloadList, onDisk: Bool) -> DownloadTask? {
        guard var t = list.tasks[id] else { return nil }
        if onDisk, t.state == .downloading, let size = partialSize(t.partialPath) {
            t.bytes = max(t.bytes, size)
        }
        return t
    }

    private static func partialSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
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
