/// A snapshot that cannot be read: the caller replays from zero instead.
public struct SnapshotError: Error, Sendable, CustomStringConvertible {
    public var description: String { "unreadable snapshot" }
}

extension DownloadList {
    /// `DLS18`: `DLS17` with an index of the task records (``SnapshotBlocks``) and a trailer that says where the
    /// records begin and end and where the index begins. `DLS17`, read through, is still read (the same reducer: a ledger of the
    /// last release keeps its snapshots).
    private static let snapshotMagic: [UInt8] = Array("DLS18".utf8)
    private static let sequentialMagic: [UInt8] = Array("DLS17".utf8)
    /// The trailer: where the index begins, where the records begin and end, and the whole length, 8 bytes each.
    static let trailerLength = 32

    /// An id no task has (ids start at 1): `keepingOnly` it keeps every task of a snapshot as its figures alone.
    public static let noTask: TaskID = 0

    /// The whole projection as compact bytes: the snapshot cache. Reading it back gives an equal list.
    /// - Complexity: O(tasks + sections + trash).
    public func snapshotBytes() -> [UInt8] {
        var w = BinaryWriter()
        w.bytes.reserveCapacity(64 + tasks.count * 96)
        write(to: &w)
        return w.bytes
    }

    /// The bytes of `snapshotBytes()`, handed to `piece` in order about 64 KB at a time and never held whole:
    /// what is hashed or compared as it is written (`verify` takes the digest of a list of 100,000 tasks without
    /// its 15 MB encoding). A piece is valid only while `piece` runs.
    public func snapshotBytes(inPieces piece: (UnsafeRawBufferPointer) -> Void) {
        withoutActuallyEscaping(piece) { piece in
            var w = BinaryWriter(sink: piece)
            w.bytes.reserveCapacity(BinaryWriter.pieceSize + 4096)
            write(to: &w)
            w.finish()
        }
    }

    /// The settings not at their default, each by name: a setting added later reads as its default.
    private func writeSettings(to w: inout BinaryWriter) {
        let changed = Setting.allCases.filter { !self[$0].isDefault }
        w.int(Int64(changed.count))
        for setting in changed {
            w.string(setting.rawValue)
            let value = self[setting]
            if value.isText { w.string(value.text) } else { w.int(value.number) }
        }
    }

    private func write(to w: inout BinaryWriter) {
        w.bytes.append(contentsOf: Self.snapshotMagic)
        w.int(head)
        w.int(headTime)
        w.int(nextID)
        w.string(directory)
        writeSettings(to: &w)
        w.string(sortMode.rawValue)
        w.bool(sortDescending)
        w.bool(autoRemoveEmptySections)
        w.bool(trashEnabled)
        w.int(hooks.count)
        for hook in Hook.allCases {
            guard let command = hooks[hook] else { continue }
            w.string(hook.rawValue)
            w.string(command)
        }
        w.int(hostSettings.count)
        for (host, values) in hostSettings.sorted(by: { $0.key < $1.key }) {
            w.string(host)
            w.int(values.count)
            for (setting, value) in values.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                w.string(setting.rawValue)
                w.int(value)
            }
        }
        // Download directories repeat across tasks: written once, referred to by number.
        var directories: [String: Int] = [:]
        for (_, t) in tasks where directories[t.directory] == nil {
            directories[t.directory] = directories.count
        }
        w.int(directories.count)
        for (dir, _) in directories.sorted(by: { $0.value < $1.value }) {
            w.string(dir)
            w.flushIfFull()
        }
        w.int(tasks.count)
        let recordsStart = w.position
        var blocks = SnapshotBlocks()
        var increasing = true
        var previousID: TaskID = 0
        var previousURL: [UInt8] = []
        for (n, (id, t)) in tasks.enumerated() {
            if n % SnapshotBlocks.spacing == 0 {
                // A block's first record shares no prefix with the one before: a block reads on its own.
                previousURL.removeAll(keepingCapacity: true)
                blocks.add(id: id, offset: w.position - recordsStart)
            }
            increasing = increasing && id > previousID
            previousID = id
            write(t, directory: directories[t.directory]!, previousURL: &previousURL, &w)
            w.flushIfFull()
        }
        let recordsEnd = w.position
        w.int(sections.count)
        for s in sections {
            w.string(s.title)
            w.int(s.tasks.count)
            for id in s.tasks {
                w.int(id)
                w.flushIfFull()
            }
        }
        w.int(trash.count)
        for e in trash {
            w.int(e.id)
            w.string(e.mode.rawValue)
            w.string(e.sectionTitle)
            w.int(e.section)
            w.int(e.index)
            w.int(e.deleted)
            w.int(e.state.map { TaskState.allCases.firstIndex(of: $0)! } ?? -1)
            w.flushIfFull()
        }
        for (onRedo, stack) in [(false, undoStack), (true, redoStack)] {
            w.int(stack.count)
            for step in stack {
                w.int(step.seq)
                w.string(step.kind)
                w.bool(step.blocker != nil)
                if let blocker = step.blocker { w.string(blocker) }
                // The inverse of a step on the undo stack: its bytes (those it was read as, while never used).
                // On the redo stack, and for a blocked step, the inverse is the action itself.
                if !onRedo && step.blocker == nil {
                    let (kind, payload) = step.inverseEvent.encoded()
                    w.raw(kind)
                    w.raw(payload)
                }
                // The action is the event logged at the step's seq: a reference to it, with its kind and tasks.
                w.string(step.actionEvent.kind)
                w.ids(step.actionEvent.taskIDs)
                w.flushIfFull()
            }
        }
        eventCounts.write(to: &w)
        let indexStart = w.position
        blocks.write(to: &w, increasing: increasing)
        w.fixed64(indexStart)
        w.fixed64(recordsStart)
        w.fixed64(recordsEnd)
        w.fixed64(w.position + 8)
    }

    /// One task: its URL shares a prefix with the previous task's (written as the shared length and the rest),
    /// SHA-256 digests take 32 bytes, a display name equal to the file name is not repeated.
    private func write(_ t: DownloadTask, directory: Int, previousURL: inout [UInt8], _ w: inout BinaryWriter)
    {
        var flags: TaskFlags = []
        if t.nameIsUserChosen { flags.insert(.nameIsUserChosen) }
        if let f = t.fileName {
            flags.insert(.fileName)
            if f == t.displayName { flags.insert(.displayNameIsFileName) }
        }
        let expected = t.expectedSHA256.map(Checksum.init)
        if let e = expected { flags.insert(e.isDigest ? .expectedSHA256 : .expectedSHA256IsText) }
        if let c = t.checksum { flags.insert(c.isDigest ? .sha256 : .sha256IsText) }
        if t.size != nil { flags.insert(.size) }
        if t.finished != nil { flags.insert(.finished) }
        if t.failure != nil { flags.insert(.failure) }
        if t.validator != nil { flags.insert(.validator) }
        if t.connectionKept { flags.insert(.connectionKept) }
        if t.hasOptions { flags.insert(.options) }
        if t.host != nil { flags.insert(.host) }
        if t.host != nil && t.leaseUntil != nil { flags.insert(.leaseUntil) }
        w.int(t.id)
        w.int(Int64(flags.rawValue))
        let url = Array(t.url.utf8)
        let shared = zip(url, previousURL).prefix { $0 == $1 }.count
        w.int(shared)
        w.raw(Array(url[shared...]))
        previousURL = url
        if !flags.contains(.displayNameIsFileName) { w.string(t.displayName) }
        if let f = t.fileName { w.string(f) }
        w.int(directory)
        w.checksum(expected)
        w.int(TaskState.allCases.firstIndex(of: t.state)!)
        w.int(t.bytes)
        if let size = t.size { w.int(size) }
        if let f = t.failure {
            w.string(f.code)
            w.string(f.detail)
            w.bool(f.retryable)
        }
        w.int(t.attempts)
        w.int(t.added)
        if let finished = t.finished { w.int(finished) }
        if let v = t.validator { w.string(v) }
        w.checksum(t.checksum)
        w.int(t.resets)
        if t.hasOptions { w.options(t.options) }
        if let host = t.host {
            w.string(host)
            if let until = t.leaseUntil { w.int(until) }
        }
    }

    /// Reads a snapshot written by `snapshotBytes()`.
    /// - Throws: `SnapshotError` for anything else.
    /// Undo steps read from it read their actions back through `reader` when first needed (without one, such
    /// a step cannot be redone: it is refused with a reason).
    public init(snapshot bytes: [UInt8], reader: LoggedEventReader? = nil) throws {
        self = try bytes.withUnsafeBytes { try DownloadList(snapshot: $0, reader: reader) }
    }

    /// Reads a snapshot written by `snapshotBytes()` in place (the bytes are not copied).
    ///
    /// With `keepingOnly`, for one task's sake (`audit`): every other task is read as its id and state alone (no
    /// URL, no name), so that folding the events after it gives that task, the sections, the to-delete list and
    /// the event counts exactly as the whole list would (the fold reads no other field of a task its event does
    /// not name). Such a list is one to look at, never one to decide commands on: without `keepingWhole`, its undo
    /// and redo stacks are read past (checked, not kept: empty). With `statesOf` as well, only the
    /// other tasks in it are kept so (the others are read past, refused where they would be): the tasks the events
    /// to be folded name are all a fold reads, none for a snapshot at the head (`tasks` then holds that task alone).
    /// With ``noTask`` (no task has that id), every task is kept as its figures (state, bytes, size): what `stats`
    /// counts again for the tasks a tail names. With `keepingWhole`, those tasks are read whole as well (`log`:
    /// the tasks the events it prints name, whose names its words may say).
    /// - Throws: `SnapshotError` for anything else.
    public init(
        snapshot bytes: UnsafeRawBufferPointer, reader: LoggedEventReader? = nil,
        keepingOnly only: TaskID? = nil, statesOf kept: Set<TaskID>? = nil,
        keepingWhole whole: Set<TaskID>? = nil
    ) throws {
        let indexed = bytes.starts(with: Self.snapshotMagic)
        guard indexed || bytes.starts(with: Self.sequentialMagic) else { throw SnapshotError() }
        var r = BinaryReader(bytes: bytes, offset: Self.snapshotMagic.count)
        // A list only counted or looked at for one task never reads its undo history (an add's step names every
        // task it added): read past, refused where reading it refuses, not kept.
        let history: LoggedEventReader?? = only == nil || whole != nil ? .some(reader) : .none
        do {
            self.init()
            try readHeader(&r)
            var directories: [String] = []
            for _ in 0..<(try r.count()) { directories.append(try r.string()) }
            let taskCount = try r.count()
            guard indexed else {
                try readTasks(
                    &r, count: taskCount, blocks: nil, directories: directories, only: only, kept: kept,
                    whole: whole)
                try readSectionsAndHistory(&r, history: history)
                guard r.offset == bytes.count else { throw SnapshotError() }
                return
            }
            // The parts after the records first, then the records: through all of them, or by the index to the
            // few a read for some tasks' sake keeps.
            let trailer = bytes.count - Self.trailerLength
            let indexStart = try r.fixed64(at: trailer)
            let recordsEnd = try r.fixed64(at: trailer + 16)
            // Where the records begin is where the fields before them end: a read of a few tasks reads no record
            // that would show those fields read to another length.
            guard try r.fixed64(at: trailer + 8) == r.offset, try r.fixed64(at: trailer + 24) == bytes.count,
                r.offset <= recordsEnd, recordsEnd <= indexStart, indexStart <= trailer
            else { throw SnapshotError() }
            var rest = BinaryReader(bytes: bytes, offset: recordsEnd)
            try readSectionsAndHistory(&rest, history: history)
            guard rest.offset == indexStart else { throw SnapshotError() }
            let blocks = try SnapshotBlocks.read(
                &rest, taskCount: taskCount, recordBytes: recordsEnd - r.offset)
            guard rest.offset == trailer else { throw SnapshotError() }
            var records = BinaryReader(
                bytes: UnsafeRawBufferPointer(rebasing: bytes[..<recordsEnd]), offset: r.offset)
            if let blocks, let only, let kept {
                try readTasksByIndex(
                    &records, count: taskCount, blocks: blocks, directories: directories, only: only,
                    kept: kept, whole: whole)
            } else {
                try readTasks(
                    &records, count: taskCount, blocks: blocks, directories: directories, only: only,
                    kept: kept, whole: whole)
                guard records.offset == recordsEnd else { throw SnapshotError() }
            }
        } catch {
            throw SnapshotError()
        }
    }

    /// The list's fields before its directories and tasks.
    private mutating func readHeader(_ r: inout BinaryReader) throws {
        head = try r.int()
        headTime = try r.int()
        nextID = try r.int()
        directory = try r.string()
        for _ in 0..<(try r.count()) {
            guard let setting = Setting(rawValue: try r.string()) else { throw SnapshotError() }
            let value: SettingValue = setting.spec.isText ? .text(try r.string()) : .number(try r.int())
            guard setting.spec.isValid(value) else { throw SnapshotError() }
            self[setting] = value
        }
        guard let mode = SortMode(rawValue: try r.string()) else { throw SnapshotError() }
        sortMode = mode
        sortDescending = try r.bool()
        autoRemoveEmptySections = try r.bool()
        trashEnabled = try r.bool()
        for _ in 0..<(try r.count()) {
            guard let hook = Hook(rawValue: try r.string()) else { throw SnapshotError() }
            hooks[hook] = try r.string()
        }
        for _ in 0..<(try r.count()) {
            let host = try r.string()
            guard Validation.isHostName(host) else { throw SnapshotError() }
            for _ in 0..<(try r.count()) {
                guard let setting = Setting(rawValue: try r.string()), Self.hostSettable.contains(setting)
                else { throw SnapshotError() }
                let value = try r.int()
                guard setting.spec.isValid(.number(value)) else { throw SnapshotError() }
                hostSettings[host, default: [:]][setting] = value
            }
        }
    }

    /// Reads the task records, every one of them: checked as building its task would check it, and, with
    /// `blocks`, against the index (ids increasing, each block where it says, its first URL whole).
    private mutating func readTasks(
        _ r: inout BinaryReader, count taskCount: Int, blocks: SnapshotBlocks?, directories: [String],
        only: TaskID?, kept: Set<TaskID>?, whole: Set<TaskID>?
    ) throws {
        if only == nil,
            let kept = try SnapshotTasks.read(&r, count: taskCount, directories: directories, blocks: blocks)
        {
            // Each task is built when it is read, all of them when the list first changes one.
            tasks = TaskTable(kept)
            return
        }
        if let kept {
            // A few tasks spread over the list: kept by id, with no slot for each id between them.
            tasks.reserveFar(
                Swift.min(kept.count + (whole?.count ?? 0) + 1, r.capacity(taskCount, bytesEach: 10)))
        } else {
            tasks.reserveCapacity(r.capacity(taskCount, bytesEach: 10))
        }
        var url = URLBuffer()
        defer { url.free() }
        var urlLength = 0
        // Looked up record by record in id order: a step along each sorted list, not a hash per record.
        var others = kept.map { IDWalk($0) }
        var wholes = whole.map { IDWalk($0) }
        let start = r.offset
        var last: TaskID = 0
        for n in 0..<taskCount {
            let at = r.offset - start
            if blocks != nil, n % SnapshotBlocks.spacing == 0 {
                url.reset()
                urlLength = 0
            }
            let id = try Self.readTask(
                &r, directories: directories, url: &url, urlLength: &urlLength, into: &tasks,
                only: only, others: &others, whole: &wholes)
            if let blocks {
                guard id > last else { throw SnapshotError() }
                last = id
                try blocks.check(record: n, offset: at, id: id)
            }
        }
    }

    /// Reads, by the index, only the records of the tasks in `kept` (each as its figures), `only` and `whole`
    /// (built): each block they lie in from its first record to theirs. The other records are not read: an edit
    /// to one of them is left to the snapshot's seal, which the store checks over every byte before this.
    private mutating func readTasksByIndex(
        _ r: inout BinaryReader, count taskCount: Int, blocks: SnapshotBlocks, directories: [String],
        only: TaskID, kept: Set<TaskID>, whole: Set<TaskID>?
    ) throws {
        var wanted = kept.union(whole ?? [])
        if only != Self.noTask { wanted.insert(only) }
        let ids = wanted.sorted()
        tasks.reserveFar(Swift.min(ids.count + 1, r.capacity(taskCount, bytesEach: 10)))
        var url = URLBuffer()
        defer { url.free() }
        let start = r.offset
        var i = 0
        var block = -1
        var left = 0
        var last: TaskID = 0
        while i < ids.count {
            if left == 0 || (block + 1 < blocks.count && ids[i] >= blocks.firstIDs[block + 1]) {
                // The next id lies past this block: on to the block that would hold it (never back).
                guard let next = blocks.block(holding: ids[i]), next != block else {
                    i += 1
                    continue
                }
                block = next
                r.offset = start + blocks.offsets[block]
                left = blocks.records(in: block, of: taskCount)
                last = 0
                url.reset()
            }
            let id = try r.int()
            guard id > last, last != 0 || id == blocks.firstIDs[block] else { throw SnapshotError() }
            last = id
            left -= 1
            let flags = TaskFlags(rawValue: UInt16(truncatingIfNeeded: try r.int()))
            try url.read(&r)
            while i < ids.count, ids[i] < id { i += 1 }
            guard i < ids.count, ids[i] == id else {
                _ = try SnapshotTasks.skipRest(&r, flags: flags, directories: directories.count)
                continue
            }
            i += 1
            if id == only || whole?.contains(id) == true {
                try tasks.insert(
                    SnapshotTasks.buildRest(
                        &r, id: id, flags: flags, url: url.string, directories: directories))
            } else {
                let (state, bytes, size) = try SnapshotTasks.skipRest(
                    &r, flags: flags, directories: directories.count)
                tasks.insertFar(DownloadTask.placeholder(id: id, state: state, bytes: bytes, size: size))
            }
        }
    }

    /// Sections, the to-delete list, the undo and redo stacks and the event counts. `history` nil: the stacks are
    /// read past (checked, not kept); else the reader their steps read their actions through.
    private mutating func readSectionsAndHistory(
        _ r: inout BinaryReader, history: LoggedEventReader??
    ) throws {
        for _ in 0..<(try r.count()) {
            var s = Section(title: try r.string())
            // A damaged count reserves no more than the bytes can hold; each id is read into its chunk.
            let n = try r.count()
            guard n == r.capacity(n, bytesEach: 1) else { throw SnapshotError() }
            s.tasks = try SectionTasks(count: n) { try r.int() }
            sections.append(s)
        }
        for _ in 0..<(try r.count()) {
            let id = try r.int()
            guard let mode = DeleteMode(rawValue: try r.string()) else { throw SnapshotError() }
            var entry = TrashEntry(
                id: id, mode: mode, sectionTitle: try r.string(), section: Int(try r.int()),
                index: Int(try r.int()), deleted: try r.int())
            let state = try r.int()
            if state >= 0 {
                guard state < TaskState.allCases.count else { throw SnapshotError() }
                entry.state = TaskState.allCases[Int(state)]
            }
            trash.append(entry)
            trashed.insert(id)
        }
        if let reader = history {
            undoStack = try Self.readSteps(&r, redo: false, head: head, nextID: nextID, reader: reader)
            redoStack = try Self.readSteps(&r, redo: true, head: head, nextID: nextID, reader: reader)
        } else {
            try Self.skipSteps(&r, redo: false, head: head, nextID: nextID)
            try Self.skipSteps(&r, redo: true, head: head, nextID: nextID)
        }
        eventCounts = try EventCounts(reading: &r)
    }

    private static func readSteps(
        _ r: inout BinaryReader, redo: Bool, head: Int64, nextID: TaskID, reader: LoggedEventReader?
    ) throws -> [UndoStep] {
        var steps: [UndoStep] = []
        for _ in 0..<(try r.count()) {
            let seq = try r.int()
            guard seq >= 1, seq <= head else { throw SnapshotError() }
            let kind = try r.string()
            let blocker = try r.bool() ? try r.string() : nil
            // Decoded when first needed: most commands never look at the events of the undo history.
            let inverse =
                redo || blocker != nil
                ? nil : StepEvent(kind: Array(try r.raw()), payload: Array(try r.raw()))
            let action = StepEvent(
                loggedAt: seq, kind: try r.string(), tasks: try r.ids(atMost: Int(clamping: nextID) + 64),
                reader: reader)
            steps.append(
                UndoStep(seq: seq, kind: kind, inverse: inverse ?? action, action: action, blocker: blocker))
        }
        return steps
    }

    /// Reads past an undo or redo stack as ``readSteps(_:redo:head:nextID:reader:)`` reads it, refusing where it
    /// refuses, keeping nothing.
    private static func skipSteps(_ r: inout BinaryReader, redo: Bool, head: Int64, nextID: TaskID) throws {
        for _ in 0..<(try r.count()) {
            let seq = try r.int()
            guard seq >= 1, seq <= head else { throw SnapshotError() }
            _ = try r.raw()
            let blocked = try r.bool()
            if blocked { _ = try r.raw() }
            if !redo && !blocked { _ = (try r.raw(), try r.raw()) }
            _ = try r.raw()
            try r.skipIDs(atMost: Int(clamping: nextID) + 64)
        }
    }

    @inline(__always)
    private static func readTask(
        _ r: inout BinaryReader, directories: [String], url: inout URLBuffer, urlLength: inout Int,
        into tasks: inout TaskTable, only: TaskID?, others: inout IDWalk?, whole: inout IDWalk?
    ) throws -> TaskID {
        let id = try r.int()
        let flags = TaskFlags(rawValue: UInt16(truncatingIfNeeded: try r.int()))
        if only == noTask, whole == nil {
            // No task is built: the URLs' lengths are all that their checks need.
            try SnapshotTasks.skipURL(&r, length: &urlLength)
        } else {
            try url.read(&r)
        }
        if let only, id != only, !(whole?.holds(id) ?? false) {
            // Kept: the task's id and state (and bytes and size), every other field read past and checked.
            let (state, bytes, size) = try SnapshotTasks.skipRest(
                &r, flags: flags, directories: directories.count)
            if others != nil {
                if others!.holds(id) {
                    tasks.insertFar(DownloadTask.placeholder(id: id, state: state, bytes: bytes, size: size))
                }
            } else {
                tasks.insert(DownloadTask.placeholder(id: id, state: state, bytes: bytes, size: size))
            }
            return id
        }
        try tasks.insert(
            SnapshotTasks.buildRest(
                &r, id: id, flags: flags, url: url.string, directories: directories)
        )
        return id
    }
}

extension BinaryWriter {
    /// A SHA-256 as its 32 bytes, or as text when it is not a digest; nothing for nil (the flags say which).
    fileprivate mutating func checksum(_ checksum: Checksum?) {
        switch checksum {
        case .text(let text)?: string(text)
        case let digest?: digest.appendBytes(to: &bytes)
        case nil: break
        }
    }
}

extension BinaryWriter {
    /// Task ids as runs of consecutive ids (an add's tasks are one run): the number of runs, then for each the
    /// distance from the end of the run before and its length.
    fileprivate mutating func ids(_ ids: [TaskID]) {
        var runs: [(start: TaskID, length: Int64)] = []
        for id in ids {
            if let last = runs.last, last.start &+ last.length == id {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((id, 1))
            }
        }
        int(runs.count)
        var end: TaskID = 0
        for run in runs {
            int(run.start &- end)
            int(run.length)
            end = run.start &+ run.length
        }
    }
}

extension BinaryReader {
    /// Ids written by `BinaryWriter.ids`, at most `limit` of them (an event names no task twice, and none that
    /// was never given an id: more is a damaged snapshot, refused before anything is allocated for it).
    fileprivate mutating func ids(atMost limit: Int) throws -> [TaskID] {
        let runs = try count()
        var lengths: [(start: TaskID, length: Int)] = []
        var total = 0
        var end: TaskID = 0
        for _ in 0..<runs {
            let start = end &+ (try int())
            let length = try int()
            guard length >= 1, length <= Int64(limit - total) else { throw SnapshotError() }
            total += Int(length)
            lengths.append((start, Int(length)))
            end = start &+ length
        }
        var ids: [TaskID] = []
        ids.reserveCapacity(total)
        for run in lengths {
            for n in 0..<run.length { ids.append(run.start &+ TaskID(n)) }
        }
        return ids
    }

    /// Reads past ids as ``ids(atMost:)`` reads them, refusing where it refuses, without making them.
    fileprivate mutating func skipIDs(atMost limit: Int) throws {
        let runs = try count()
        var total = 0
        for _ in 0..<runs {
            _ = try int()
            let length = try int()
            guard length >= 1, length <= Int64(limit - total) else { throw SnapshotError() }
            total += Int(length)
        }
    }
}
