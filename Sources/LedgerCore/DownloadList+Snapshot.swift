/// A snapshot that cannot be read: the caller replays from zero instead.
public struct SnapshotError: Error, Sendable, CustomStringConvertible {
    public var description: String { "unreadable snapshot" }
}

extension DownloadList {
    private static let snapshotMagic: [UInt8] = Array("DLS3".utf8)

    /// The whole projection as compact bytes: the snapshot cache. Reading it back gives an equal list.
    /// - Complexity: O(tasks + sections + trash).
    public func snapshotBytes() -> [UInt8] {
        var w = BinaryWriter()
        w.bytes.reserveCapacity(64 + tasks.count * 96)
        w.bytes.append(contentsOf: Self.snapshotMagic)
        w.int(head)
        w.int(headTime)
        w.int(nextID)
        w.string(directory)
        w.int(maxDownloads)
        w.int(speedLimit)
        w.string(sortMode.rawValue)
        w.bool(sortDescending)
        w.bool(autoRemoveEmptySections)
        // Download directories repeat across tasks: written once, referred to by number.
        var directories: [String: Int] = [:]
        for (_, t) in tasks where directories[t.directory] == nil {
            directories[t.directory] = directories.count
        }
        w.int(directories.count)
        for (dir, _) in directories.sorted(by: { $0.value < $1.value }) { w.string(dir) }
        w.int(tasks.count)
        for (_, t) in tasks { write(t, directory: directories[t.directory]!, &w) }
        w.int(sections.count)
        for s in sections {
            w.string(s.title)
            w.int(s.tasks.count)
            for id in s.tasks { w.int(id) }
        }
        w.int(trash.count)
        for e in trash {
            w.int(e.id)
            w.string(e.mode.rawValue)
            w.string(e.sectionTitle)
            w.int(e.section)
            w.int(e.index)
            w.int(e.deleted)
        }
        for stack in [undoStack, redoStack] {
            w.int(stack.count)
            for step in stack {
                w.int(step.seq)
                w.string(step.kind)
                for event in [step.inverse, step.action] {
                    w.string(event.kind)
                    w.raw(Entry(event).encodedPayload())
                }
            }
        }
        return w.bytes
    }

    private func write(_ t: DownloadTask, directory: Int, _ w: inout BinaryWriter) {
        w.int(t.id)
        w.string(t.url)
        w.string(t.displayName)
        w.bool(t.nameIsUserChosen)
        w.optional(t.fileName)
        w.int(directory)
        w.optional(t.expectedSHA256)
        w.int(TaskState.allCases.firstIndex(of: t.state)!)
        w.int(t.bytes)
        w.optional(t.size)
        w.bool(t.failure != nil)
        if let f = t.failure {
            w.string(f.code)
            w.string(f.detail)
            w.bool(f.retryable)
        }
        w.int(t.attempts)
        w.int(t.added)
        w.optional(t.finished)
        w.optional(t.validator)
        w.optional(t.sha256)
        w.int(t.resets)
    }

    /// Reads a snapshot written by `snapshotBytes()`.
    /// - Throws: `SnapshotError` for anything else.
    public init(snapshot bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { try DownloadList(snapshot: $0) }
    }

    /// Reads a snapshot written by `snapshotBytes()` in place (the bytes are not copied).
    /// - Throws: `SnapshotError` for anything else.
    public init(snapshot bytes: UnsafeRawBufferPointer) throws {
        guard bytes.starts(with: Self.snapshotMagic) else { throw SnapshotError() }
        var r = BinaryReader(bytes: bytes, offset: Self.snapshotMagic.count)
        do {
            self.init()
            head = try r.int()
            headTime = try r.int()
            nextID = try r.int()
            directory = try r.string()
            maxDownloads = Int(try r.int())
            speedLimit = try r.int()
            guard let mode = SortMode(rawValue: try r.string()) else { throw SnapshotError() }
            sortMode = mode
            sortDescending = try r.bool()
            autoRemoveEmptySections = try r.bool()
            var directories: [String] = []
            for _ in 0..<(try r.count()) { directories.append(try r.string()) }
            let taskCount = try r.count()
            tasks.reserveCapacity(taskCount)
            for _ in 0..<taskCount { try Self.readTask(&r, directories: directories, into: &tasks) }
            for _ in 0..<(try r.count()) {
                var s = Section(title: try r.string())
                let n = try r.count()
                s.tasks.reserveCapacity(n)
                for _ in 0..<n { s.tasks.append(try r.int()) }
                sections.append(s)
            }
            for _ in 0..<(try r.count()) {
                let id = try r.int()
                guard let mode = DeleteMode(rawValue: try r.string()) else { throw SnapshotError() }
                trash.append(
                    TrashEntry(
                        id: id, mode: mode, sectionTitle: try r.string(), section: Int(try r.int()),
                        index: Int(try r.int()), deleted: try r.int()))
                trashed.insert(id)
            }
            undoStack = try Self.readSteps(&r)
            redoStack = try Self.readSteps(&r)
            guard r.offset == bytes.count else { throw SnapshotError() }
        } catch {
            throw SnapshotError()
        }
    }

    private static func readSteps(_ r: inout BinaryReader) throws -> [UndoStep] {
        var steps: [UndoStep] = []
        for _ in 0..<(try r.count()) {
            let seq = try r.int()
            let kind = try r.string()
            let inverse = try Entry.decode(kind: try r.raw(), payload: try r.raw()).event
            let action = try Entry.decode(kind: try r.raw(), payload: try r.raw()).event
            steps.append(UndoStep(seq: seq, kind: kind, inverse: inverse, action: action))
        }
        return steps
    }

    @inline(__always)
    private static func readTask(_ r: inout BinaryReader, directories: [String], into tasks: inout TaskTable)
        throws
    {
        // Every field read straight into one initialiser: the task is built once, in place.
        try tasks.insert(
            DownloadTask(
                id: r.int(), url: r.string(), displayName: r.string(), nameIsUserChosen: r.bool(),
                fileName: r.optionalString(), directory: element(of: directories, at: r.int()),
                expectedSHA256: r.optionalString(), state: element(of: TaskState.allCases, at: r.int()),
                bytes: r.int(), size: r.optionalInt(),
                failure: r.bool()
                    ? TaskFailure(code: r.string(), detail: r.string(), retryable: r.bool()) : nil,
                attempts: Int(r.int()), added: r.int(), finished: r.optionalInt(),
                validator: r.optionalString(),
                sha256: r.optionalString(), resets: Int(r.int())))
    }

    private static func element<C: RandomAccessCollection>(of c: C, at i: Int64) throws -> C.Element
    where C.Index == Int {
        guard i >= 0, i < c.count else { throw SnapshotError() }
        return c[c.startIndex + Int(i)]
    }
}
