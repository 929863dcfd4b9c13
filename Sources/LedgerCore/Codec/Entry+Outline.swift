extension Entry {
    /// Decodes a logged payload for one task's sake (`dledger audit ID`, `log --task ID`): an add (`tasksAdded`,
    /// `groupsAdded`) keeps only the entries of task `only` (none when it adds other tasks), and comes with its
    /// ``AddOutline``, which says it in words as the whole add would; any other event is decoded whole, without
    /// an outline.
    ///
    /// The other tasks of an add are read past, not made: no string for their URLs, names or directories, so an add
    /// of 100,000 URLs costs a scan of its bytes. They are refused exactly where ``decode(kind:payload:)`` refuses
    /// them (a task without its id, URL or directory, a bad string, options that do not read, bytes after the
    /// payload), so a damaged add is unreadable either way. Such an entry is one to look at, never one to fold into
    /// a list that decides commands.
    /// - Throws: `PayloadError` when the bytes are not a payload this version understands.
    public static func decode(
        kind: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, keepingOnly only: TaskID
    ) throws -> (entry: Entry, outline: AddOutline?) {
        let k = EventKind(bytes: kind.bindMemory(to: UInt8.self))
        guard let k, k == .tasksAdded || k == .groupsAdded else {
            return (try decode(kind: kind, payload: payload), nil)
        }
        var r = JSONReader(payload)
        var f = PayloadFields()
        // The last of a repeated key counts, as in `decode(kind:payload:)`.
        var added = OutlinedTasks()
        var groupIDs: [[TaskID]] = []
        var groupOptions = AddOutline.Options()
        try r.object { r, key in
            if key.equals("tasks") {
                added = try outlineTasks(&r, keeping: only)
                f.tasks = added.kept
            } else if key.equals("groups") {
                (groupIDs, groupOptions) = ([], AddOutline.Options())
                f.groups = try list(&r) { r in
                    let (group, tasks) = try outlineGroup(&r, keeping: only)
                    groupIDs.append(tasks.ids)
                    groupOptions.add(tasks.options)
                    return group
                }
            } else {
                try read(key, into: &f, &r)
            }
        }
        guard r.atEnd() else { throw r.fail("bytes after the payload") }
        let (undoes, redoes, origin) = (f.undoes, f.redoes, f.origin)
        let event = try event(kind: k, consume f, r)
        let outline: AddOutline
        switch event {
        case .tasksAdded(_, let section, let index, let title):
            outline = AddOutline(
                isGroups: false,
                groups: [
                    AddOutline.Group(ids: added.ids, section: section, index: index, newSectionTitle: title)
                ],
                options: added.options)
        case .groupsAdded(let groups):
            outline = AddOutline(
                isGroups: true,
                groups: zip(groups, groupIDs).map { g, ids in
                    AddOutline.Group(
                        ids: ids, section: g.section, index: g.index, newSectionTitle: g.newSectionTitle)
                },
                options: groupOptions)
        default:
            throw r.fail("not an add")
        }
        return (Entry(event, undoes: undoes, redoes: redoes, origin: origin), outline)
    }

    /// The tasks of one list of an add, read for one task's sake.
    struct OutlinedTasks {
        /// The entries of the kept task (one, unless a damaged log names it twice).
        var kept: [NewTask] = []
        var ids: [TaskID] = []
        var options = AddOutline.Options()
    }

    private static func outlineTasks(_ r: inout JSONReader, keeping only: TaskID) throws -> OutlinedTasks {
        var tasks = OutlinedTasks()
        try r.array { r in try outlineTask(&r, keeping: only, into: &tasks) }
        return tasks
    }

    /// One task of an add, read as `readTask` reads it and refused where it refuses; made (and kept) only when it
    /// is `only`. Nothing as large as a task or its options is returned or copied for the others.
    static func outlineTask(
        _ r: inout JSONReader, keeping only: TaskID, into tasks: inout OutlinedTasks
    )
        throws
    {
        var id: Int64?
        // Strings are read past; where they start is kept, to read the kept task's.
        var url: Int?
        var name: Int?
        var sha: Int?
        var dir: Int?
        // Most tasks have none: no options value is made, copied or released for them.
        var options: TaskOptions?
        var hasOptions = false
        try r.object { r, k in
            if k.equals("id") {
                id = try r.int()
            } else if k.equals("url") {
                url = try r.skipString()
            } else if k.equals("name") {
                name = try r.skipString()
            } else if k.equals("sha256") {
                sha = try r.skipString()
            } else if k.equals("dir") {
                dir = try r.skipString()
            } else if k.equals("options") {
                options = try TaskOptions(reading: &r)
                hasOptions = true
            } else {
                try r.skip()
            }
        }
        guard let id, let url, let dir else { throw r.fail("task without id, url or dir") }
        tasks.ids.append(id)
        if hasOptions { tasks.options.add(options) } else { tasks.options.addNone() }
        guard id == only else { return }
        tasks.kept.append(
            NewTask(
                id: id, url: try r.string(at: url), name: try name.map { try r.string(at: $0) },
                sha256: try sha.map { try r.string(at: $0) }, directory: try r.string(at: dir),
                options: options ?? TaskOptions()))
    }

    /// One group of a `groupsAdded`, read as `readGroup` reads it and refused where it refuses.
    private static func outlineGroup(_ r: inout JSONReader, keeping only: TaskID) throws -> (
        TaskGroup, OutlinedTasks
    ) {
        var tasks: OutlinedTasks?
        var section: Int64?
        var index: Int64?
        var title: String?
        try r.object { r, k in
            if k.equals("tasks") {
                tasks = try outlineTasks(&r, keeping: only)
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
        return (
            TaskGroup(tasks: tasks.kept, section: Int(section), index: Int(index), newSectionTitle: title),
            tasks
        )
    }
}
