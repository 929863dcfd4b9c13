/// Every field any payload may have, filled in one pass over the JSON; all optional, so a payload that has few of
/// them costs few releases when it goes (arrays included: an absent list is nil, not an empty array to release).
struct PayloadFields {
    var id: Int64?
    var ids: [TaskID]?
    var tasks: [NewTask]?
    var groups: [TaskGroup]?
    var placements: [Placement]?
    var entries: [TrashEntry]?
    var positions: [Int]?
    var sections: [Int]?
    var recreate: [Int]?
    var section: Int64?
    var index: Int64?
    var from: Int64?
    var toIndex: Int64?
    var to: Location?
    var title: String?
    var newSection: String?
    var name: String?
    var file: String?
    var dir: String?
    var max: Int64?
    var mode: String?
    var modes: [String]?
    var states: [String]?
    var bytes: Int64?
    var seconds: Int64?
    var size: Int64?
    // transferStarted's, which `progressFact` reads: here they are only checked to be numbers.
    var attempt: Int64?
    var offset: Int64?
    var sha256: String?
    var serverName: String?
    var validator: String?
    var restarted: String?
    var code: String?
    var detail: String?
    var flag: Bool?
    var delayMs: Int64?
    var connections: Int64?
    var options: TaskOptions?
    var kept: [TaskID]?
    var dev: Int64?
    var ino: Int64?
    var mtime: Int64?
    var hook: String?
    var command: String?
    var exit: Int64?
    var signal: Int64?
    var timeoutMs: Int64?
    var spawnError: String?
    var line: String?
    var host: String?
    var leaseMs: Int64?
    var expired: String?
    var setting: String?
    var value: Int64?
    var undoes: Int64?
    var redoes: Int64?
    var origin: String?
}

extension Entry {
    /// Decodes a logged payload of the given kind.
    /// - Throws: `PayloadError` when the bytes are not a payload this version understands.
    /// - Complexity: O(payload size); no intermediate tree.
    public static func decode(kind: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) throws -> Entry {
        var r = JSONReader(payload)
        let name = kind.bindMemory(to: UInt8.self)
        guard let k = EventKind(bytes: name) else {
            throw r.fail("unknown event kind '\(String(decoding: name, as: UTF8.self))'")
        }
        if k == .transferStarted || k == .transferPaused {
            return try progressFact(started: k == .transferStarted, &r)
        }
        if let setting = k.setting { return try settingFact(setting, &r) }
        var f = PayloadFields()
        try r.object { r, key in try read(key, into: &f, &r) }
        guard r.atEnd() else { throw r.fail("bytes after the payload") }
        let (undoes, redoes, origin) = (f.undoes, f.redoes, f.origin)
        // The fields are handed over, not copied: their strings and lists move into the event.
        return Entry(try event(kind: k, consume f, r), undoes: undoes, redoes: redoes, origin: origin)
    }

    /// A value setting's change: its one field (the table's key), checked against the setting's range.
    private static func settingFact(_ setting: Setting, _ r: inout JSONReader) throws -> Entry {
        let spec = setting.spec
        var value: SettingValue?
        var undoes: Int64?
        var redoes: Int64?
        var origin: String?
        try r.object { r, key in
            if key.equals(spec.key) {
                value = spec.isText ? .text(try r.string()) : .number(try r.int())
            } else if key.equals("undoes") {
                undoes = try r.int()
            } else if key.equals("redoes") {
                redoes = try r.int()
            } else if key.equals("origin") {
                origin = try r.string()
            } else {
                try r.skip()
            }
        }
        guard r.atEnd() else { throw r.fail("bytes after the payload") }
        guard let value else { throw r.fail("missing '\(spec.key)'") }
        guard spec.isValid(value) else { throw r.fail("bad \(spec.subject)") }
        return Entry(.settingChanged(setting, value), undoes: undoes, redoes: redoes, origin: origin)
    }

    /// The two facts a download logs most (started, paused: most of a long log), read into a few integers
    /// instead of the table of every field.
    private static func progressFact(started: Bool, _ r: inout JSONReader) throws -> Entry {
        var id: Int64?
        var attempt: Int64?
        var offset: Int64?
        var bytes: Int64?
        var undoes: Int64?
        var redoes: Int64?
        try r.object { r, key in
            if key.equals("id") {
                id = try r.int()
            } else if key.equals("attempt") {
                attempt = try r.int()
            } else if key.equals("offset") {
                offset = try r.int()
            } else if key.equals("bytes") {
                bytes = try r.int()
            } else if key.equals("undoes") {
                undoes = try r.int()
            } else if key.equals("redoes") {
                redoes = try r.int()
            } else {
                try r.skip()
            }
        }
        guard r.atEnd() else { throw r.fail("bytes after the payload") }
        let event: Event =
            started
            ? .transferStarted(id: try need(id, "id", r), attempt: Int(attempt ?? 1), offset: offset ?? 0)
            : .transferPaused(id: try need(id, "id", r), bytes: bytes ?? 0)
        return Entry(event, undoes: undoes, redoes: redoes)
    }

    /// Decodes from Swift values (tests, tools).
    public static func decode(kind: String, payload: [UInt8]) throws -> Entry {
        var kindBytes = Array(kind.utf8)
        return try kindBytes.withUnsafeMutableBytes { k in
            try payload.withUnsafeBytes { p in try decode(kind: UnsafeRawBufferPointer(k), payload: p) }
        }
    }

    static func read(
        _ key: UnsafeBufferPointer<UInt8>, into f: inout PayloadFields, _ r: inout JSONReader
    )
        throws
    {
        if key.equals("id") {
            f.id = try r.int()
        } else if key.equals("ids") {
            f.ids = try list(&r) { r in try r.int() }
        } else if key.equals("tasks") {
            f.tasks = try readTasks(&r)
        } else if key.equals("groups") {
            f.groups = try list(&r) { r in try readGroup(&r) }
        } else if key.equals("section") {
            f.section = try r.int()
        } else if key.equals("index") {
            f.index = try r.int()
        } else if key.equals("bytes") {
            f.bytes = try r.int()
        } else if key.equals("seconds") {
            f.seconds = try r.int()
        } else if key.equals("attempt") {
            f.attempt = try r.int()
        } else if key.equals("offset") {
            f.offset = try r.int()
        } else if key.equals("size") {
            f.size = try r.int()
        } else if key.equals("sha256") {
            f.sha256 = try r.string()
        } else if key.equals("file") {
            f.file = try r.string()
        } else if key.equals("title") {
            f.title = try r.string()
        } else if key.equals("newSection") {
            f.newSection = try r.string()
        } else if key.equals("name") {
            f.name = try r.string()
        } else if key.equals("dir") {
            f.dir = try r.string()
        } else if key.equals("max") {
            f.max = try r.int()
        } else if key.equals("mode") {
            f.mode = try r.string()
        } else if key.equals("modes") {
            f.modes = try list(&r) { r in try r.string() }
        } else if key.equals("states") {
            f.states = try list(&r) { r in try r.string() }
        } else if key.equals("from") {
            f.from = try r.int()
        } else if key.equals("toIndex") {
            f.toIndex = try r.int()
        } else if key.equals("host") {
            f.host = try r.string()
        } else if key.equals("leaseMs") {
            f.leaseMs = try r.int()
        } else if key.equals("expired") {
            f.expired = try r.string()
        } else if key.equals("setting") {
            f.setting = try r.string()
        } else if key.equals("value") {
            f.value = try r.int()
        } else {
            try readRare(key, into: &f, &r)
        }
    }

    /// The keys few payloads have, after ``read(_:into:_:)``'s common ones (the same order as one chain).
    private static func readRare(
        _ key: UnsafeBufferPointer<UInt8>, into f: inout PayloadFields, _ r: inout JSONReader
    ) throws {
        if key.equals("to") {
            var section: Int64?
            var index: Int64?
            try r.object { r, k in
                if k.equals("section") {
                    section = try r.int()
                } else if k.equals("index") {
                    index = try r.int()
                } else {
                    try r.skip()
                }
            }
            guard let section else { throw r.fail("'to' without a section") }
            f.to = Location(section: Int(section), index: index.map { Int($0) })
        } else if key.equals("placements") {
            f.placements = try list(&r) { r in try readPlacement(&r) }
        } else if key.equals("entries") {
            f.entries = try list(&r) { r in try readTrashEntry(&r) }
        } else if key.equals("positions") {
            f.positions = try list(&r) { r in Int(try r.int()) }
        } else if key.equals("sections") {
            f.sections = try list(&r) { r in Int(try r.int()) }
        } else if key.equals("recreate") {
            f.recreate = try list(&r) { r in Int(try r.int()) }
        } else if key.equals("serverName") {
            f.serverName = try r.string()
        } else if key.equals("validator") {
            f.validator = try r.string()
        } else if key.equals("restarted") {
            f.restarted = try r.string()
        } else if key.equals("code") {
            f.code = try r.string()
        } else if key.equals("detail") {
            f.detail = try r.string()
        } else if key.equals("retryable") || key.equals("acceptsRanges") || key.equals("descending")
            || key.equals("autoRemove") || key.equals("chosen") || key.equals("enabled")
        {
            f.flag = try r.bool()
        } else if key.equals("delayMs") {
            f.delayMs = try r.int()
        } else if key.equals("connections") {
            f.connections = try r.int()
        } else if key.equals("options") {
            f.options = try TaskOptions(reading: &r)
        } else if key.equals("kept") {
            f.kept = try list(&r) { r in try r.int() }
        } else if key.equals("dev") {
            f.dev = try r.int()
        } else if key.equals("ino") {
            f.ino = try r.int()
        } else if key.equals("mtime") {
            f.mtime = try r.int()
        } else if key.equals("hook") {
            f.hook = try r.string()
        } else if key.equals("command") {
            f.command = try r.string()
        } else if key.equals("exit") {
            f.exit = try r.int()
        } else if key.equals("signal") {
            f.signal = try r.int()
        } else if key.equals("timeoutMs") {
            f.timeoutMs = try r.int()
        } else if key.equals("spawnError") {
            f.spawnError = try r.string()
        } else if key.equals("line") {
            f.line = try r.string()
        } else if key.equals("undoes") {
            f.undoes = try r.int()
        } else if key.equals("redoes") {
            f.redoes = try r.int()
        } else if key.equals("origin") {
            f.origin = try r.string()
        } else {
            try r.skip()
        }
    }

    static func list<T>(_ r: inout JSONReader, _ element: (inout JSONReader) throws -> T) throws
        -> [T]
    {
        var out: [T] = []
        try r.array { r in out.append(try element(&r)) }
        return out
    }

    /// An add's tasks. Their download directory is nearly always the same: one string is shared by all the
    /// tasks that name it in a row, not one allocated per task.
    private static func readTasks(_ r: inout JSONReader) throws -> [NewTask] {
        var directory = ""
        return try list(&r) { r in try readTask(&r, previousDirectory: &directory) }
    }

    private static func readTask(_ r: inout JSONReader, previousDirectory: inout String) throws -> NewTask {
        var id: Int64?
        var url: String?
        var name: String?
        var sha: String?
        var dir: String?
        var options = TaskOptions()
        try r.object { r, k in
            if k.equals("id") {
                id = try r.int()
            } else if k.equals("url") {
                url = try r.string()
            } else if k.equals("name") {
                name = try r.string()
            } else if k.equals("sha256") {
                sha = try r.string()
            } else if k.equals("dir") {
                dir = try r.string(reusing: &previousDirectory)
            } else if k.equals("options") {
                options = try TaskOptions(reading: &r)
            } else {
                try r.skip()
            }
        }
        guard let id, let url, let dir else { throw r.fail("task without id, url or dir") }
        return NewTask(id: id, url: url, name: name, sha256: sha, directory: dir, options: options)
    }

    private static func readGroup(_ r: inout JSONReader) throws -> TaskGroup {
        var tasks: [NewTask]?
        var section: Int64?
        var index: Int64?
        var title: String?
        try r.object { r, k in
            if k.equals("tasks") {
                tasks = try readTasks(&r)
            } else if k.equals("section") {
                section = try r.int()
            } else if k.equals("index") {
                index = try r.int()
            } else if k.equals("newSection") {
                title = try r.string()
            } else {
                try r.skip()
            }
        }
        guard let tasks, let section, let index else { throw r.fail("incomplete group") }
        return TaskGroup(tasks: tasks, section: Int(section), index: Int(index), newSectionTitle: title)
    }

    private static func readPlacement(_ r: inout JSONReader) throws -> Placement {
        var id: Int64?
        var title: String?
        var section: Int64?
        var index: Int64?
        try r.object { r, k in
            if k.equals("id") {
                id = try r.int()
            } else if k.equals("title") {
                title = try r.string()
            } else if k.equals("section") {
                section = try r.int()
            } else if k.equals("index") {
                index = try r.int()
            } else {
                try r.skip()
            }
        }
        guard let id, let title, let section, let index else { throw r.fail("incomplete placement") }
        return Placement(id: id, sectionTitle: title, section: Int(section), index: Int(index))
    }

    private static func readTrashEntry(_ r: inout JSONReader) throws -> TrashEntry {
        var id: Int64?
        var mode: DeleteMode?
        var title: String?
        var section: Int64?
        var index: Int64?
        var deleted: Int64?
        var state: TaskState?
        try r.object { r, k in
            if k.equals("id") {
                id = try r.int()
            } else if k.equals("mode") {
                mode = DeleteMode(rawValue: try r.string())
            } else if k.equals("title") {
                title = try r.string()
            } else if k.equals("section") {
                section = try r.int()
            } else if k.equals("index") {
                index = try r.int()
            } else if k.equals("deleted") {
                deleted = try r.int()
            } else if k.equals("state") {
                guard let known = TaskState(rawValue: try r.string()) else { throw r.fail("bad state") }
                state = known
            } else {
                try r.skip()
            }
        }
        guard let id, let mode, let title, let section, let index, let deleted else {
            throw r.fail("incomplete to-delete entry")
        }
        return TrashEntry(
            id: id, mode: mode, sectionTitle: title, section: Int(section), index: Int(index),
            deleted: deleted, state: state)
    }

    private static func need<T>(_ value: T?, _ name: String, _ r: JSONReader) throws -> T {
        guard let value else { throw r.fail("missing '\(name)'") }
        return value
    }

    private static func modes(_ f: PayloadFields, _ r: JSONReader) throws -> [DeleteMode] {
        let raw = f.mode.map { [$0] } ?? (f.modes ?? [])
        let modes = raw.compactMap(DeleteMode.init(rawValue:))
        guard !modes.isEmpty, modes.count == raw.count, modes.count == 1 || modes.count == (f.ids ?? []).count
        else {
            throw r.fail("bad delete modes")
        }
        return modes
    }

    /// A completion's folder as logged: absolute; nil for none.
    private static func folder(_ path: String?, _ r: JSONReader) throws -> String? {
        guard let path else { return nil }
        guard path.hasPrefix("/") else { throw r.fail("bad dir") }
        return path
    }

    /// A host name as logged, checked (``Validation/isHostName(_:)``); nil for none.
    private static func host(_ name: String?, _ r: JSONReader) throws -> String? {
        guard let name else { return nil }
        guard Validation.isHostName(name) else { throw r.fail("bad host name") }
        return name
    }

    private static func hook(_ name: String?, _ r: JSONReader) throws -> Hook {
        guard let hook = name.flatMap(Hook.init(rawValue:)) else { throw r.fail("bad hook") }
        return hook
    }

    /// How a hook ended: exactly one of `exit`, `signal`, `timeoutMs`, `spawnError`.
    private static func hookResult(_ f: PayloadFields, _ r: JSONReader) throws -> HookResult {
        switch (f.exit, f.signal, f.timeoutMs, f.spawnError) {
        case (let n?, nil, nil, nil) where (0...255).contains(n): return .exited(Int(n))
        case (nil, let n?, nil, nil) where (1...255).contains(n): return .signalled(Int(n))
        case (nil, nil, let n?, nil) where n > 0: return .timedOut(limitMs: n)
        case (nil, nil, nil, let reason?): return .notStarted(reason)
        default: throw r.fail("bad hook result")
        }
    }

    /// The identity of a placed file, when all three of its fields were logged.
    private static func placedFile(_ dev: Int64?, _ ino: Int64?, _ mtime: Int64?) -> FileIdentity? {
        guard let dev, let ino, let mtime else { return nil }
        return FileIdentity(device: UInt64(bitPattern: dev), inode: UInt64(bitPattern: ino), modified: mtime)
    }

    static func event(kind k: EventKind, _ f: consuming PayloadFields, _ r: JSONReader) throws -> Event {
        // Strings and lists are taken out of the fields, not copied: nothing is retained twice and released.
        switch k {
        case .transferHeld, .transferContinued, .transferResolved, .transferCompleted, .transferFailed,
            .transferRetrying, .transferConnections, .hookFinished, .transferClaimed:
            return try fact(kind: k, f, r)
        case .ledgerCreated, .tasksAdded, .groupsAdded, .tasksRemoved, .tasksMoved, .tasksPlaced,
            .sectionInserted, .sectionRenamed, .sectionMoved, .sectionRemoved, .sectionSorted:
            return try listEvent(kind: k, f, r)
        case .tasksDeleted, .filesDeleted, .tasksRestored, .tasksTrashed, .trashPurged, .tasksErased,
            .tasksRedownloaded, .taskRenamed, .tasksPaused, .tasksResumed, .tasksStopped, .statesRestored:
            return try taskEvent(kind: k, f, r)
        case .directoryChanged, .taskOptionsChanged, .sortChanged, .emptySectionsPolicyChanged,
            .hostSettingChanged,
            .trashPolicyChanged, .hookChanged:
            return try preferenceEvent(kind: k, f, r)
        default:
            // transferStarted, transferPaused and the value settings (``Setting``): `progressFact` and
            // `settingFact` read them.
            throw r.fail("'\(k.rawValue)' read with the wrong fields")
        }
    }

    /// The downloader's facts (but the two `progressFact` reads).
    private static func fact(kind k: EventKind, _ f: consuming PayloadFields, _ r: JSONReader) throws -> Event
    {
        switch k {
        case .transferHeld:
            return .transferHeld(id: try need(f.id, "id", r), bytes: f.bytes ?? 0)
        case .transferContinued:
            return .transferContinued(id: try need(f.id, "id", r))
        case .transferResolved:
            return .transferResolved(
                id: try need(f.id, "id", r), size: f.size, serverName: f.serverName.take(),
                validator: f.validator.take(),
                acceptsRanges: f.flag ?? false, restartedFromZero: f.restarted.take())
        case .transferCompleted:
            return .transferCompleted(
                id: try need(f.id, "id", r), bytes: f.bytes ?? 0, sha256: f.sha256.take() ?? "",
                fileName: try need(f.file.take(), "file", r),
                placed: placedFile(f.dev, f.ino, f.mtime), host: try host(f.host.take(), r),
                directory: try folder(f.dir.take(), r))
        case .transferClaimed:
            let leaseMs = try need(f.leaseMs, "leaseMs", r)
            guard (1...86_400_000).contains(leaseMs) else { throw r.fail("bad leaseMs") }
            return .transferClaimed(
                id: try need(f.id, "id", r), host: try need(host(f.host.take(), r), "host", r),
                leaseMs: leaseMs, expired: try host(f.expired.take(), r))
        case .transferFailed:
            let failure = TaskFailure(
                code: f.code.take() ?? "unknown", detail: f.detail.take() ?? "", retryable: f.flag ?? false)
            return .transferFailed(id: try need(f.id, "id", r), failure: failure, bytes: f.bytes ?? 0)
        case .transferRetrying:
            let failure = TaskFailure(
                code: f.code.take() ?? "unknown", detail: f.detail.take() ?? "", retryable: true)
            return .transferRetrying(
                id: try need(f.id, "id", r), failure: failure, bytes: f.bytes ?? 0, delayMs: f.delayMs ?? 0)
        case .transferConnections:
            let connections = try need(f.connections, "connections", r)
            guard (1...1024).contains(connections) else { throw r.fail("bad connections") }
            return .transferConnections(
                id: try need(f.id, "id", r), connections: Int(connections), detail: f.detail.take() ?? "")
        case .hookFinished:
            return .hookFinished(
                id: try need(f.id, "id", r), hook: try hook(f.hook, r),
                command: try need(f.command.take(), "command", r), result: try hookResult(f, r),
                firstLine: f.line.take() ?? "")
        default:
            throw r.fail("'\(k.rawValue)' is not a downloader's fact")
        }
    }

    /// The events that add, remove or place tasks and sections.
    private static func listEvent(kind k: EventKind, _ f: consuming PayloadFields, _ r: JSONReader) throws
        -> Event
    {
        switch k {
        case .tasksAdded:
            return .tasksAdded(
                tasks: f.tasks.take() ?? [], section: Int(try need(f.section, "section", r)),
                index: Int(try need(f.index, "index", r)), newSectionTitle: f.newSection.take())
        case .ledgerCreated:
            return .ledgerCreated(
                directory: try need(f.dir, "dir", r), maxDownloads: Int(f.max ?? 0),
                autoRemoveEmptySections: f.flag ?? false)
        case .tasksRemoved:
            return .tasksRemoved(
                ids: f.ids ?? [], removingSections: f.section.map { [Int($0)] } ?? f.sections ?? [])
        case .groupsAdded:
            return .groupsAdded(f.groups.take() ?? [])
        case .tasksMoved:
            return .tasksMoved(
                ids: f.ids ?? [], section: Int(try need(f.section, "section", r)),
                index: Int(try need(f.index, "index", r)))
        case .tasksPlaced:
            return .tasksPlaced(f.placements ?? [], recreating: f.recreate ?? [])
        case .sectionInserted:
            return .sectionInserted(
                index: Int(try need(f.index, "index", r)), title: try need(f.title, "title", r))
        case .sectionRenamed:
            return .sectionRenamed(
                index: Int(try need(f.index, "index", r)), title: try need(f.title, "title", r))
        case .sectionMoved:
            return .sectionMoved(
                from: Int(try need(f.from, "from", r)), to: Int(try need(f.toIndex, "toIndex", r)))
        case .sectionRemoved:
            return .sectionRemoved(index: Int(try need(f.index, "index", r)))
        case .sectionSorted:
            return .sectionSorted(index: Int(try need(f.index, "index", r)), order: f.ids ?? [])
        default:
            throw r.fail("'\(k.rawValue)' is not a list event")
        }
    }

    /// The events that delete, restore, rename or change the state of tasks.
    private static func taskEvent(kind k: EventKind, _ f: consuming PayloadFields, _ r: JSONReader) throws
        -> Event
    {
        switch k {
        case .tasksErased:
            return .tasksErased(ids: f.ids ?? [], modes: try modes(f, r), kept: f.kept ?? [])
        case .tasksDeleted:
            return .tasksDeleted(ids: f.ids ?? [], modes: try modes(f, r))
        case .filesDeleted:
            return .filesDeleted(ids: f.ids ?? [], kept: f.kept ?? [])
        case .tasksRestored:
            return .tasksRestored(ids: f.ids ?? [], to: f.to, recreating: f.recreate ?? [])
        case .tasksTrashed:
            guard (f.positions ?? []).count == (f.entries ?? []).count else {
                throw r.fail("positions do not match entries")
            }
            return .tasksTrashed(
                f.entries ?? [], positions: f.positions ?? [], removingSections: f.sections ?? [])
        case .trashPurged:
            return .trashPurged(ids: f.ids ?? [], kept: f.kept ?? [])
        case .tasksRedownloaded:
            return .tasksRedownloaded(ids: f.ids ?? [], kept: f.kept ?? [])
        case .taskRenamed:
            return .taskRenamed(
                id: try need(f.id, "id", r), name: try need(f.name, "name", r), fileName: f.file,
                userChosen: f.flag ?? true)
        case .tasksPaused:
            return .tasksPaused(ids: f.ids ?? [])
        case .tasksResumed:
            return .tasksResumed(ids: f.ids ?? [])
        case .tasksStopped:
            return .tasksStopped(ids: f.ids ?? [])
        case .statesRestored:
            let states = (f.states ?? []).compactMap(TaskState.init(rawValue:))
            guard states.count == (f.ids ?? []).count, (f.states ?? []).count == states.count else {
                throw r.fail("bad states")
            }
            return .statesRestored(ids: f.ids ?? [], states: states)
        default:
            throw r.fail("'\(k.rawValue)' is not a task event")
        }
    }

    /// The ledger's other settings and a task's options.
    private static func preferenceEvent(kind k: EventKind, _ f: consuming PayloadFields, _ r: JSONReader)
        throws
        -> Event
    {
        switch k {
        case .directoryChanged:
            let path = try need(f.dir, "dir", r)
            guard Validation.isNormalDirectory(path) else { throw r.fail("bad download folder") }
            return .directoryChanged(path)
        case .hostSettingChanged:
            guard let setting = f.setting.flatMap(Setting.init(rawValue:)),
                DownloadList.hostSettable.contains(setting),
                f.value.map({ setting.spec.isValid(.number($0)) }) != false
            else { throw r.fail("bad host setting") }
            return .hostSettingChanged(
                host: try need(host(f.host.take(), r), "host", r), setting: setting, value: f.value)
        case .taskOptionsChanged:
            return .taskOptionsChanged(
                id: try need(f.id, "id", r), options: try need(f.options.take(), "options", r))
        case .sortChanged:
            guard let mode = f.mode.flatMap(SortMode.init(rawValue:)) else { throw r.fail("bad sort mode") }
            return .sortChanged(mode, descending: f.flag ?? false)
        case .emptySectionsPolicyChanged:
            return .emptySectionsPolicyChanged(autoRemove: try need(f.flag, "autoRemove", r))
        case .trashPolicyChanged:
            return .trashPolicyChanged(enabled: try need(f.flag, "enabled", r))
        case .hookChanged:
            return .hookChanged(hook: try hook(f.hook, r), command: f.command.take())
        default:
            throw r.fail("'\(k.rawValue)' is not a preference")
        }
    }
}
