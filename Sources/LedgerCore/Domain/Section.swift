/// A titled group of tasks in manual order.
public struct Section: Sendable, Equatable {
    public var title: String
    /// Chunked (``SectionTasks``): a move in a section of 100,000 shifts a few hundred ids, not all of them.
    public var tasks: SectionTasks

    public init(title: String, tasks: [TaskID] = []) {
        self.title = title
        self.tasks = SectionTasks(tasks)
    }

    public init(title: String, tasks: SectionTasks) {
        self.title = title
        self.tasks = tasks
    }
}

/// A position in the manual list: section index and index inside it, both from 0.
/// A nil index means the end of the section.
public struct Location: Sendable, Equatable, CustomStringConvertible {
    public var section: Int
    public var index: Int?

    public init(section: Int, index: Int? = nil) {
        self.section = section
        self.index = index
    }

    public var description: String { index.map { "\(section):\($0)" } ?? "\(section)" }
}

/// How a delete treats the task's file.
public enum DeleteMode: String, Sendable, CaseIterable {
    /// Record and file: the task goes to the to-delete list; purging it removes its file.
    case all
    /// Only the record: the task goes to the to-delete list; purging it keeps a finished file on disk.
    case record
    /// Only the file: the file and partial data go now, the task stays in the list and waits again.
    case file
}

/// A task in the to-delete list, remembering where it was.
public struct TrashEntry: Sendable, Equatable {
    public var id: TaskID
    public var mode: DeleteMode
    public var sectionTitle: String
    public var section: Int
    public var index: Int
    /// Milliseconds since the Unix epoch.
    public var deleted: Int64
    /// The state the task had when it was deleted (a running transfer stops, so the task itself waits);
    /// nil in entries logged before it was recorded.
    public var state: TaskState?

    public init(
        id: TaskID, mode: DeleteMode, sectionTitle: String, section: Int, index: Int, deleted: Int64,
        state: TaskState? = nil
    ) {
        self.id = id
        self.mode = mode
        self.sectionTitle = sectionTitle
        self.section = section
        self.index = index
        self.deleted = deleted
        self.state = state
    }
}

/// Exact position of one task, used to put tasks back where they were.
public struct Placement: Sendable, Equatable {
    public var id: TaskID
    public var sectionTitle: String
    public var section: Int
    public var index: Int

    public init(id: TaskID, sectionTitle: String, section: Int, index: Int) {
        self.id = id
        self.sectionTitle = sectionTitle
        self.section = section
        self.index = index
    }
}
