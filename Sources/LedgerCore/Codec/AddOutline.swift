/// An add (`tasksAdded`, `groupsAdded`) as its words need it: the ids of its tasks group by group, where each group
/// went, and whether the tasks share their options; not their URLs.
///
/// Built from a decoded add (``init(_:)``), or while reading the payload of one for a single task's sake
/// (``Entry/decode(kind:payload:keepingOnly:)``), without a string for any other task: both give the same outline,
/// so an add of 100,000 tasks is said the same way whether it was read whole or not.
public struct AddOutline: Sendable, Equatable {
    /// One group of the add: a `tasksAdded` is one group.
    public struct Group: Sendable, Equatable {
        public var ids: [TaskID]
        public var section: Int
        public var index: Int
        public var newSectionTitle: String?

        public init(ids: [TaskID], section: Int, index: Int, newSectionTitle: String?) {
            self.ids = ids
            self.section = section
            self.index = index
            self.newSectionTitle = newSectionTitle
        }
    }

    /// True for a `groupsAdded`, false for a `tasksAdded`.
    public var isGroups: Bool
    public var groups: [Group]
    /// The options of the add's first task; nil when it has no task.
    public var firstOptions: TaskOptions?
    /// Whether every task's options show as the first task's do (the same lines, credentials redacted: each task's
    /// are sealed under its own key). True when the first task has none: then nothing is said of options.
    public var optionsShared: Bool

    /// The outline of `event`; nil for any event but an add.
    public init?(_ event: Event) {
        var options = Options()
        switch event {
        case .tasksAdded(let tasks, let section, let index, let title):
            for t in tasks { options.add(t.options) }
            isGroups = false
            groups = [Group(ids: tasks.map(\.id), section: section, index: index, newSectionTitle: title)]
        case .groupsAdded(let added):
            for t in added.lazy.flatMap(\.tasks) { options.add(t.options) }
            isGroups = true
            groups = added.map {
                Group(
                    ids: $0.tasks.map(\.id), section: $0.section, index: $0.index,
                    newSectionTitle: $0.newSectionTitle)
            }
        default:
            return nil
        }
        (firstOptions, optionsShared) = (options.first, options.shared)
    }

    init(isGroups: Bool, groups: [Group], options: Options) {
        self.isGroups = isGroups
        self.groups = groups
        (firstOptions, optionsShared) = (options.first, options.shared)
    }

    /// The section each group ends in once the whole add is applied: a later group's new section inserted at or
    /// before an earlier group's section moves that one down.
    public var finalSections: [Int] {
        Self.finalSections(groups.map { ($0.section, $0.newSectionTitle != nil) })
    }

    /// The final section of each of `groups` (where it was inserted, and whether it inserted a new section).
    public static func finalSections(_ groups: [(section: Int, insertsSection: Bool)]) -> [Int] {
        var placed: [Int] = []
        for g in groups {
            if g.insertsSection { placed = placed.map { $0 >= g.section ? $0 + 1 : $0 } }
            placed.append(g.section)
        }
        return placed
    }

    /// Whether the tasks of an add share their options, task by task in the add's order.
    struct Options {
        private(set) var first: TaskOptions?
        private(set) var shared = true
        private var shown: [(key: String, value: String)] = []

        /// Whether a task was added, and whether the first has options: only then are the others compared with it
        /// (flags, so that the next task is not held against a copy of the first's options).
        private var started = false
        private var compared = false

        /// The next task's options (nil: none).
        mutating func add(_ options: TaskOptions?) {
            guard started else {
                (started, first) = (true, options ?? TaskOptions())
                shown = options?.redactedLines ?? []
                compared = !(options?.isEmpty ?? true)
                return
            }
            // Nothing is said of options when the first task has none; the others are then not compared.
            guard shared, compared else { return }
            shared = (options?.redactedLines ?? []).elementsEqual(shown) { $0 == $1 }
        }

        /// The next task has no options (most tasks): ``add(_:)`` with nil, without passing an options value.
        mutating func addNone() {
            if started && !(shared && compared) { return }
            add(nil)
        }

        /// The tasks of `other` after these (a group after the groups before it).
        mutating func add(_ other: Options) {
            guard other.started else { return }
            guard started else {
                self = other
                return
            }
            guard shared, compared else { return }
            shared = other.shown.elementsEqual(shown) { $0 == $1 } && (!other.compared || other.shared)
        }
    }
}
