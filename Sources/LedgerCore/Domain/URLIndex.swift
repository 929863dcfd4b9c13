import Synchronization

/// URL identity → task over the list and the to-delete list (``Validation/identity(_:)``: two URLs that differ
/// only in scheme or host case, a default port or an empty path are one task): derived from the tasks, built on
/// first use, then kept up to date. Opening a ledger, from a snapshot or by folding adds, does not pay for it:
/// only deciding a new add (its duplicate check) and looking a task up by URL do.
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

    /// The built index, and whether two tasks were found sharing a URL identity while it was built or kept (a
    /// damaged or foreign log: a logged add is folded as it was logged, not checked again).
    private struct Built {
        var index: [Key: TaskID]
        var sharesURLs = false
    }

    private final class Box: Sendable {
        let built: Mutex<Built?>
        init(_ built: Built?) { self.built = Mutex(built) }
    }

    private var box = Box(nil)

    /// Builds the index from the tasks if no one has yet; `body` reads it under the lock.
    private func withIndex<T>(_ tasks: TaskTable, _ body: ([Key: TaskID]) -> T) -> T {
        box.built.withLock { built in
            if built == nil { built = Self.build(tasks) }
            return body(built!.index)
        }
    }

    /// Every task's URL identity, the lowest id for one that several tasks share.
    private static func build(_ tasks: TaskTable) -> Built {
        var fresh = Built(index: [:])
        fresh.index.reserveCapacity(tasks.count)
        for (id, task) in tasks { record(Key(task.url), id, in: &fresh) }
        return fresh
    }

    /// Records `id` for `key`; a key that already names a task keeps the lower id.
    @inline(__always)
    private static func record(_ key: Key, _ id: TaskID, in built: inout Built) {
        guard let previous = built.index.updateValue(id, forKey: key), previous != id else { return }
        built.sharesURLs = true
        if previous < id { built.index[key] = previous }
    }

    /// Whether the index has been built (by any copy sharing it).
    var isBuilt: Bool { box.built.withLock { $0 != nil } }

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
            box = Box(box.built.withLock { $0 })
        }
    }

    /// Makes this copy's index its own before its tasks change: true when it is built and must be kept (``add(_:)``),
    /// false when it will be built from the tasks when first used, so that their change costs it nothing.
    mutating func prepareToChange() -> Bool {
        makeUnique()
        return box.built.withLock { $0 != nil }
    }

    /// Records that the tasks `added` (id, URL) joined the tasks. Call after ``prepareToChange()`` said the index is
    /// built.
    mutating func add(_ added: [(id: TaskID, url: String)]) {
        makeUnique()
        box.built.withLock { built in
            guard built != nil else { return }
            for (id, url) in added { Self.record(Key(url), id, in: &built!) }
        }
    }

    /// Records that task `id`, whose URL was `url`, is gone. Call after the tasks changed.
    mutating func remove(_ url: String, _ id: TaskID) {
        makeUnique()
        box.built.withLock { built in
            guard built != nil else { return }
            if built!.sharesURLs {
                // Another task may hold the same URL: built again from the tasks when next used.
                built = nil
            } else if built!.index[Key(url)] == id {
                built!.index[Key(url)] = nil
            }
        }
    }

    /// Replaces the whole index (tests that state an expected list).
    mutating func replace(_ index: [String: TaskID]) {
        var built = Built(index: [:])
        for (url, id) in index { Self.record(Key(url), id, in: &built) }
        box = Box(built)
    }
}

extension URLIndex: Equatable {
    /// Always equal: the index is derived from the tasks, which the list compares.
    static func == (a: URLIndex, b: URLIndex) -> Bool { true }
}
