import Synchronization

/// URL identity → task over the list and the to-delete list (``Validation/identity(_:)``: two URLs that differ
/// only in scheme or host case, a default port or an empty path are one task): derived from the tasks, built on first use, then kept up
/// to date. Opening a ledger from a snapshot does not pay for it until a command needs it.
///
/// Copies of a list share the built index until one of them changes its URLs; a change first gives that copy
/// an index of its own (copy on write), so a shared index always matches the tasks of everyone sharing it.
struct URLIndex: Sendable {
    /// A URL with its hash computed once (seeded, like every Swift hash): growing the table and probing it compare
    /// and rehash eight bytes, never the URL's text in its own heap block.
    private struct Key: Hashable, Sendable {
        let url: String
        let hash: Int

        /// The key of `url`'s identity (``Validation/identity(_:)``).
        init(_ url: String) {
            self.init(identity: Validation.identity(url))
        }

        init(identity url: String) {
            self.url = url
            var hasher = Hasher()
            hasher.combine(url)
            hash = hasher.finalize()
        }

        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.url == b.url }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private final class Box: Sendable {
        let index: Mutex<[Key: TaskID]?>
        init(_ index: [Key: TaskID]?) { self.index = Mutex(index) }
    }

    private var box = Box(nil)

    /// Builds the index from the tasks if no one has yet; `body` reads it under the lock.
    private func withIndex<T>(_ tasks: TaskTable, _ body: ([Key: TaskID]) -> T) -> T {
        box.index.withLock { index in
            if index == nil { index = Self.build(tasks) }
            return body(index!)
        }
    }

    private static func build(_ tasks: TaskTable) -> [Key: TaskID] {
        var fresh: [Key: TaskID] = [:]
        fresh.reserveCapacity(tasks.count)
        for (id, task) in tasks { fresh[Key(task.url)] = id }
        return fresh
    }

    /// The task with this URL, if any.
    func task(for url: String, in tasks: TaskTable) -> TaskID? { withIndex(tasks) { $0[Key(url)] } }

    /// The whole index.
    func all(in tasks: TaskTable) -> [String: TaskID] {
        withIndex(tasks) { index in
            Dictionary(uniqueKeysWithValues: index.lazy.map { ($0.key.url, $0.value) })
        }
    }

    /// Gives this copy an index of its own before it changes one.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) {
            // Read the shared index only here: a copy held while mutating would force the dictionary to copy.
            box = Box(box.index.withLock { $0 })
        }
    }

    /// Records that `url` now names `id` (nil: no task). Call after the tasks changed.
    mutating func set(_ url: String, _ id: TaskID?) {
        makeUnique()
        box.index.withLock { index in
            guard index != nil else { return }
            index![Key(url)] = id
        }
    }

    /// Records `url` for task `id` unless another task has it already: true when recorded. One hash of the URL
    /// in the usual case (a new URL). Builds the index first if no one has.
    mutating func claim(_ url: String, for id: TaskID, in tasks: TaskTable) -> Bool {
        makeUnique()
        return box.index.withLock { index in
            if index == nil { index = Self.build(tasks) }
            let key = Key(url)
            guard let previous = index!.updateValue(id, forKey: key) else { return true }
            index![key] = previous
            return false
        }
    }

    /// Replaces the whole index (tests that state an expected list).
    mutating func replace(_ index: [String: TaskID]) {
        box = Box(Dictionary(index.map { (Key($0.key), $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}

extension URLIndex: Equatable {
    /// Always equal: the index is derived from the tasks, which the list compares.
    static func == (a: URLIndex, b: URLIndex) -> Bool { true }
}
