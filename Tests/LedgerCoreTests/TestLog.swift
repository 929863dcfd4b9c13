import Testing

@testable import LedgerCore

/// A log in memory: decides commands against the live list, appends what they decide with increasing seq and a
/// fake clock (one second per entry), and folds each entry in, like the store and facade will.
struct TestLog {
    static let start: Int64 = 1_700_000_000_000
    static let directory = "/dl"

    private(set) var list = DownloadList()
    private(set) var entries: [LoggedEntry] = []
    var now: Int64 = TestLog.start

    init(maxDownloads: Int = 3) {
        append(Entry(.ledgerCreated(directory: Self.directory, maxDownloads: maxDownloads)))
    }

    /// Reads the entries logged so far back as a store would, for the undo steps a snapshot holds by reference.
    var reader: LoggedEventReader {
        let entries = self.entries
        return LoggedEventReader { seq in
            entries.first { $0.seq == seq }.map {
                (Array($0.entry.event.kind.utf8), $0.entry.encodedPayload())
            }
        }
    }

    /// Appends an entry as a store would: next seq, the clock's time.
    mutating func append(_ entry: Entry) {
        now += 1000
        let logged = LoggedEntry(seq: list.head + 1, time: now, entry: entry)
        entries.append(logged)
        list.apply(logged)
    }

    /// Appends a downloader fact.
    mutating func fact(_ event: Event) {
        precondition(event.isTransferFact)
        append(Entry(event))
    }

    /// Decides and appends a command that must succeed; records an issue (and returns nil) when it throws.
    @discardableResult
    mutating func run(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) -> Decision? {
        do {
            let decision = try list.decide(command)
            append(decision.entry)
            return decision
        } catch {
            Issue.record("\(command) threw \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Decides and appends a command that must succeed; rethrows its error, which fails the test.
    @discardableResult
    mutating func must(_ command: Command) throws -> Decision {
        let decision = try list.decide(command)
        append(decision.entry)
        return decision
    }

    /// Adds URLs at the end of the first section and returns their ids.
    @discardableResult
    mutating func add(
        _ urls: String..., to placement: AddPlacement = .end,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [TaskID] {
        run(
            .add(urls: urls, placement: placement, name: nil, sha256: nil, directory: nil),
            sourceLocation: sourceLocation)?
            .added ?? []
    }

    /// Checks that a command is refused with the given error and that nothing changed.
    func refuses(
        _ command: Command, with expected: LedgerError, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = list
        #expect(throws: expected, sourceLocation: sourceLocation) { try list.decide(command) }
        #expect(list == before, sourceLocation: sourceLocation)
    }

    /// The error a command throws, if any.
    func error(of command: Command) -> Error? {
        do {
            _ = try list.decide(command)
            return nil
        } catch {
            return error
        }
    }

    /// The list folded again from the first entry.
    func replayed(upTo count: Int? = nil) -> DownloadList {
        var fresh = DownloadList()
        for logged in entries.prefix(count ?? entries.count) { fresh.apply(logged) }
        return fresh
    }

    /// The ids of each section, for short assertions.
    var layout: [[TaskID]] { list.sections.map { Array($0.tasks) } }
    var titles: [String] { list.sections.map(\.title) }
}

extension DownloadList {
    /// The user-visible state: everything but the log position and the undo history.
    var contents: DownloadList {
        var copy = self
        copy.head = 0
        copy.headTime = 0
        copy.undoStack = []
        copy.redoStack = []
        copy.eventCounts = EventCounts()
        return copy
    }

    /// Replaces the to-delete list (keeps the membership set in step), for building expected states.
    mutating func setTrash(_ entries: [TrashEntry]) {
        trash = entries
        trashed = Set(entries.map(\.id))
    }

    /// A new task as an add at `time` creates it, for building expected states.
    static func task(
        _ id: TaskID, _ url: String, name: String? = nil, sha256: String? = nil, at time: Int64
    ) -> DownloadTask {
        DownloadTask(
            id: id, url: url, displayName: name ?? defaultName(forURL: url), nameIsUserChosen: name != nil,
            directory: TestLog.directory, expectedSHA256: sha256, added: time)
    }
}

/// `https://example.com/<name>` for short test URLs.
func u(_ name: String) -> String { "https://example.com/\(name)" }

/// Records an issue naming only the fields where two lists differ (whole-list dumps are unreadable).
func expectEqual(
    _ actual: DownloadList, _ expected: DownloadList, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard actual != expected else { return }
    var lines: [String] = []
    for (a, e) in zip(Mirror(reflecting: actual).children, Mirror(reflecting: expected).children) {
        let (sa, se) = (String(describing: a.value), String(describing: e.value))
        guard sa != se else { continue }
        if let ta = a.value as? [TaskID: DownloadTask], let te = e.value as? [TaskID: DownloadTask] {
            for id in Set(ta.keys).union(te.keys).sorted() where ta[id] != te[id] {
                lines.append(
                    "task \(id): \(ta[id].map { "\($0)" } ?? "nil")\n    expected \(te[id].map { "\($0)" } ?? "nil")"
                )
            }
        } else {
            lines.append("\(a.label ?? "?"): \(sa)\n    expected \(se)")
        }
    }
    if lines.isEmpty { lines.append("(unordered collections equal as text but not as values)") }
    let message = "\(what) differs:\n  " + lines.joined(separator: "\n  ")
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

extension DownloadList {
    /// The contents without the times an action records (`added`, `deleted`): a redo happens later than the action.
    var timeless: DownloadList {
        var copy = contents
        for id in copy.tasks.keys { copy.tasks[id]!.added = 0 }
        copy.trash = copy.trash.map {
            var e = $0
            e.deleted = 0
            return e
        }
        return copy
    }
}

extension DownloadList {
    /// Downloading shown as waiting: an action that stops a transfer (pause, delete) is undone to waiting, and the
    /// downloader starts it again; the running transfer itself is not part of what undo restores.
    var stoppedTransfers: DownloadList {
        var copy = self
        for (id, t) in copy.tasks where t.state == .downloading { copy.tasks[id]!.state = .waiting }
        copy.trash = copy.trash.map {
            var e = $0
            if e.state == .downloading { e.state = .waiting }
            return e
        }
        return copy
    }
}

/// Sections "Downloads" [1 a, 2 b, 3 c] and "B" [4 d, 5 e], built by commands: where most tests start.
func fixture() -> TestLog {
    var log = TestLog()
    log.add(u("a"), u("b"), u("c"))
    log.run(.insertSection(title: "B", at: nil))
    log.add(u("d"), u("e"), to: .titled("B"))
    return log
}
