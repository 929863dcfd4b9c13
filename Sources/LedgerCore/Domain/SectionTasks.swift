/// The ids of a section's tasks in manual order, kept in chunks of a few hundred so that a move costs what a chunk
/// costs, not what the section does (issue 24 §1).
///
/// A plain array of 100,000 ids shifts up to 800 KB for every insert and removal near its front, and a search for an
/// id reads up to the whole of it: folding 1,500 moves after a snapshot of 100,000 tasks took a reader 0.1–0.4 s.
/// Here an insert or a removal shifts one chunk (at most ``chunkLimit`` ids) and updates one count per chunk, and a
/// search reads only the chunks whose range of ids can hold the id (each chunk keeps a low and a high bound of its
/// ids: ids added in order fill chunks of narrow, disjoint ranges, so a search reads one or two chunks besides the
/// ones moves have widened). A section sorted by name has wide ranges everywhere and is searched whole, as before.
///
/// A value type with an array's behaviour: equal when the ids are equal in order, whatever the chunks;
/// ``Section/tasks`` is one. Copying one copies its chunk references, not its ids.
public struct SectionTasks: Sendable {
    /// Every chunk holds at least one id (none when the section is empty).
    private var chunks: [[TaskID]] = []
    /// `ends[k]`: how many ids chunks 0 through `k` hold.
    private var ends: [Int] = []
    /// Bounds of each chunk's ids: every id in chunk `k` is in `lows[k]...highs[k]` (kept wide, never narrowed
    /// by a removal: only the chunks a search must read depend on them).
    private var lows: [TaskID] = []
    private var highs: [TaskID] = []
    /// Bounds of each group of ``groupSize`` chunks (group `g`: chunks `g * groupSize` up to the next group's): every
    /// id of those chunks is in `groupLows[g]...groupHighs[g]`. A search reads a group's chunk bounds only when the
    /// group's hold its id: a section of 100,000 ids has 400 chunks and 25 groups, and a move searches it two or
    /// three times (its id, then a second of it, which a damaged log may hold).
    private var groupLows: [TaskID] = []
    private var groupHighs: [TaskID] = []

    /// The ids a chunk is filled with when a section is built or a chunk split.
    static let chunkSize = 256
    /// A chunk that grows past this is split.
    static let chunkLimit = 4 * chunkSize
    /// Chunks whose bounds a group's bounds hold.
    static let groupSize = 16

    public init() {}

    /// The ids of `ids`, in order.
    public init(_ ids: [TaskID]) {
        var i = 0
        self.init(count: ids.count) {
            defer { i += 1 }
            return ids[i]
        }
    }

    /// `count` ids, each the next `next` gives, in order: cut into chunks of ``chunkSize`` as they come (as
    /// appending them one by one would), with no array of them all (a snapshot's section of 100,000).
    public init(count: Int, _ next: () throws -> TaskID) rethrows {
        let chunkCount = (count + Self.chunkSize - 1) / Self.chunkSize
        chunks.reserveCapacity(chunkCount)
        ends.reserveCapacity(chunkCount)
        lows.reserveCapacity(chunkCount)
        highs.reserveCapacity(chunkCount)
        var start = 0
        while start < count {
            let end = Swift.min(start + Self.chunkSize, count)
            var chunk: [TaskID] = []
            chunk.reserveCapacity(end - start)
            var (low, high) = (TaskID.max, TaskID.min)
            for _ in start..<end {
                let id = try next()
                chunk.append(id)
                low = Swift.min(low, id)
                high = Swift.max(high, id)
            }
            chunks.append(chunk)
            ends.append(end)
            lows.append(low)
            highs.append(high)
            start = end
        }
        regroup(from: 0)
    }

    /// The chunks (tests: that searches and moves keep them within their limits).
    var chunkCounts: [Int] { chunks.map(\.count) }

    /// The chunk holding position `i` (`0 ..< count`).
    @inline(__always)
    private func chunk(containing i: Int) -> Int {
        var lo = 0
        var hi = ends.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if ends[mid] > i { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    @inline(__always)
    private func start(of k: Int) -> Int { k == 0 ? 0 : ends[k - 1] }

    /// Recounts `ends` from chunk `k` on.
    private mutating func recount(from k: Int) {
        var total = start(of: k)
        for j in k..<chunks.count {
            total += chunks[j].count
            ends[j] = total
        }
    }

    private static func bounds(_ ids: some Sequence<TaskID>) -> (TaskID, TaskID) {
        var low = TaskID.max
        var high = TaskID.min
        for id in ids {
            low = Swift.min(low, id)
            high = Swift.max(high, id)
        }
        return (low, high)
    }

    /// Puts `pieces` in place of chunk `k` (none: removes it), recounting from there.
    private mutating func replaceChunk(_ k: Int, with pieces: [[TaskID]]) {
        chunks.replaceSubrange(k...k, with: pieces)
        let b = pieces.map { Self.bounds($0) }
        lows.replaceSubrange(k...k, with: b.map(\.0))
        highs.replaceSubrange(k...k, with: b.map(\.1))
        ends.replaceSubrange(k...k, with: repeatElement(0, count: pieces.count))
        recount(from: Swift.min(k, Swift.max(0, chunks.count - 1)))
        if chunks.isEmpty { ends = [] }
        regroup(from: k)
    }

    /// Widens chunk `k`'s bounds, and its group's, to hold `low...high`.
    @inline(__always)
    private mutating func widen(_ k: Int, _ low: TaskID, _ high: TaskID) {
        lows[k] = Swift.min(lows[k], low)
        highs[k] = Swift.max(highs[k], high)
        let g = k / Self.groupSize
        groupLows[g] = Swift.min(groupLows[g], low)
        groupHighs[g] = Swift.max(groupHighs[g], high)
    }

    /// Works the groups' bounds out again from the group of chunk `k` on: chunks were put in or taken out there,
    /// so every later chunk moved (a chunk's split or removal, a few times per thousand moves).
    private mutating func regroup(from k: Int) {
        let first = Swift.min(k / Self.groupSize, groupLows.count)
        groupLows.removeSubrange(first...)
        groupHighs.removeSubrange(first...)
        var g = first
        while g * Self.groupSize < chunks.count {
            var (low, high) = (TaskID.max, TaskID.min)
            for j in (g * Self.groupSize)..<Swift.min(chunks.count, (g + 1) * Self.groupSize) {
                low = Swift.min(low, lows[j])
                high = Swift.max(high, highs[j])
            }
            groupLows.append(low)
            groupHighs.append(high)
            g += 1
        }
    }

    /// Whether every chunk's bounds are within its group's, and every chunk in a group (tests).
    var groupsHoldTheirChunks: Bool {
        guard groupLows.count == (chunks.count + Self.groupSize - 1) / Self.groupSize,
            groupHighs.count == groupLows.count
        else { return false }
        return chunks.indices.allSatisfy { k in
            groupLows[k / Self.groupSize] <= lows[k] && highs[k] <= groupHighs[k / Self.groupSize]
        }
    }

    /// The chunks from `first` on whose bounds (and their group's) hold `id`, in order, until `visit` says stop.
    @inline(__always)
    private func eachChunk(holding id: TaskID, from first: Int, _ visit: (Int) -> Bool) {
        var g = first / Self.groupSize
        while g < groupLows.count {
            if groupLows[g] <= id && id <= groupHighs[g] {
                let end = Swift.min(chunks.count, (g + 1) * Self.groupSize)
                for k in Swift.max(first, g * Self.groupSize)..<end where lows[k] <= id && id <= highs[k] {
                    if !visit(k) { return }
                }
            }
            g += 1
        }
    }

    /// Splits chunk `k` when it outgrew ``chunkLimit``; removes it when it is empty.
    private mutating func settle(_ k: Int) {
        let n = chunks[k].count
        if n == 0 {
            replaceChunk(k, with: [])
        } else if n > Self.chunkLimit {
            let chunk = chunks[k]
            let pieces = stride(from: 0, to: n, by: Self.chunkSize).map {
                Array(chunk[$0..<Swift.min(n, $0 + Self.chunkSize)])
            }
            replaceChunk(k, with: pieces)
        } else {
            // Only this chunk's count changed: every end from here moves by as much (no chunk read).
            let delta = n - (ends[k] - start(of: k))
            guard delta != 0 else { return }
            // Wrapping adds, which the compiler vectorises (an end is at most the section's count, far from
            // overflowing): checked ones cost a branch each, on every move, for each chunk after this one.
            ends.withUnsafeMutableBufferPointer { ends in
                for j in k..<ends.count { ends[j] &+= delta }
            }
        }
    }

    /// The position of the first `id`, or nil: only the chunks whose bounds hold it are read.
    /// - Complexity: O(chunks) plus the ids of the chunks read.
    public func firstIndex(of id: TaskID) -> Int? { firstIndex(of: id, from: 0) }

    /// The position of the first `id` at or after `from`, or nil: ``firstIndex(of:)`` from there (a search for
    /// the next of an id just removed at `from` reads no chunk before it again).
    public func firstIndex(of id: TaskID, from: Int) -> Int? {
        guard from < count else { return nil }
        var found: Int?
        eachChunk(holding: id, from: from <= 0 ? 0 : chunk(containing: from)) { k in
            let start = start(of: k)
            guard let j = Self.position(of: id, in: chunks[k], from: Swift.max(0, from - start)) else {
                return true
            }
            found = start + j
            return false
        }
        return found
    }

    /// The first position of `id` in `chunk` at or after `skip`, eight ids compared at a time: a fold of moves
    /// after a snapshot searches the chunks moves have widened for every id it moves (issue 24 §1).
    @inline(__always)
    private static func position(of id: TaskID, in chunk: [TaskID], from skip: Int) -> Int? {
        chunk.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            var j = skip
            let wanted = SIMD8<TaskID>(repeating: id)
            while j + 8 <= buffer.count {
                if any(UnsafeRawPointer(base + j).loadUnaligned(as: SIMD8<TaskID>.self) .== wanted) { break }
                j += 8
            }
            while j < buffer.count {
                if base[j] == id { return j }
                j += 1
            }
            return nil
        }
    }

    /// How many times `id` is here: only the chunks whose bounds hold it are read.
    public func occurrences(of id: TaskID) -> Int {
        var n = 0
        eachChunk(holding: id, from: 0) { k in
            // Eight ids compared at a time, as a search does: `stats` counts each task a tail names before and
            // after the tail, in every chunk moves widened to hold it.
            var j = Self.position(of: id, in: chunks[k], from: 0)
            while let found = j {
                n += 1
                j = Self.position(of: id, in: chunks[k], from: found + 1)
            }
            return true
        }
        return n
    }

    /// Whether `id` is here (``firstIndex(of:)``).
    public func contains(_ id: TaskID) -> Bool { firstIndex(of: id) != nil }

    /// Removes and returns the id at `i`: one chunk shifts.
    @discardableResult
    public mutating func remove(at i: Int) -> TaskID {
        precondition(i >= 0 && i < count, "index out of range")
        let k = chunk(containing: i)
        let id = chunks[k].remove(at: i - start(of: k))
        settle(k)
        return id
    }

    /// Inserts `ids` before position `i` (`0 ... count`): one chunk grows (and is split when it outgrows its limit).
    public mutating func insert(contentsOf ids: some Collection<TaskID>, at i: Int) {
        precondition(i >= 0 && i <= count, "index out of range")
        guard !ids.isEmpty else { return }
        if i == count {
            append(contentsOf: ids)
            return
        }
        let k = chunk(containing: i)
        chunks[k].insert(contentsOf: ids, at: i - start(of: k))
        let (low, high) = Self.bounds(ids)
        widen(k, low, high)
        settle(k)
    }

    public mutating func insert(_ id: TaskID, at i: Int) { insert(contentsOf: CollectionOfOne(id), at: i) }

    /// Appends `ids` to the last chunk, then in new chunks of ``chunkSize``.
    public mutating func append(contentsOf ids: some Sequence<TaskID>) {
        for id in ids { append(id) }
    }

    public mutating func append(_ id: TaskID) {
        if let k = chunks.indices.last, chunks[k].count < Self.chunkSize {
            chunks[k].append(id)
            ends[k] += 1
            widen(k, id, id)
        } else {
            var chunk: [TaskID] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunk.append(id)
            chunks.append(chunk)
            ends.append(count + 1)
            lows.append(id)
            highs.append(id)
            if (chunks.count - 1) / Self.groupSize == groupLows.count {
                groupLows.append(id)
                groupHighs.append(id)
            } else {
                widen(chunks.count - 1, id, id)
            }
        }
    }

    /// Removes every id `remove` accepts, chunk by chunk.
    public mutating func removeAll(where remove: (TaskID) throws -> Bool) rethrows {
        var changed = false
        for k in chunks.indices {
            let before = chunks[k].count
            try chunks[k].removeAll(where: remove)
            changed = changed || chunks[k].count != before
        }
        guard changed else { return }
        let kept = chunks.filter { !$0.isEmpty }
        self = SectionTasks()
        for chunk in kept { append(contentsOf: chunk) }
    }

    public mutating func reserveCapacity(_ n: Int) {
        chunks.reserveCapacity(n / Self.chunkSize + 1)
    }
}

extension SectionTasks: RandomAccessCollection, MutableCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.last ?? 0 }
    public var count: Int { ends.last ?? 0 }
    public var isEmpty: Bool { chunks.isEmpty }

    public subscript(i: Int) -> TaskID {
        get {
            precondition(i >= 0 && i < count, "index out of range")
            let k = chunk(containing: i)
            return chunks[k][i - start(of: k)]
        }
        set {
            precondition(i >= 0 && i < count, "index out of range")
            let k = chunk(containing: i)
            chunks[k][i - start(of: k)] = newValue
            widen(k, newValue, newValue)
        }
    }

    /// Reads chunk by chunk: no search per id.
    public struct Iterator: IteratorProtocol {
        fileprivate var chunks: [[TaskID]]
        fileprivate var k = 0
        fileprivate var j = 0

        public mutating func next() -> TaskID? {
            while k < chunks.count {
                if j < chunks[k].count {
                    defer { j += 1 }
                    return chunks[k][j]
                }
                k += 1
                j = 0
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    public var underestimatedCount: Int { count }
}

extension SectionTasks: RangeReplaceableCollection {
    /// The general case, for a range across chunks: the section is rebuilt (O(ids)). Inserts and removals of one
    /// place take the chunk-local paths above.
    public mutating func replaceSubrange<C: Collection<TaskID>>(_ range: Range<Int>, with ids: C) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range out of bounds")
        if range.isEmpty {
            insert(contentsOf: ids, at: range.lowerBound)
            return
        }
        let k = chunk(containing: range.lowerBound)
        let s = start(of: k)
        if range.upperBound <= ends[k] {
            chunks[k].replaceSubrange((range.lowerBound - s)..<(range.upperBound - s), with: ids)
            let (low, high) = Self.bounds(ids)
            widen(k, low, high)
            settle(k)
            return
        }
        var all = Array(self)
        all.replaceSubrange(range, with: ids)
        self = SectionTasks(all)
    }
}

extension SectionTasks: Equatable {
    /// Equal when they hold the same ids in the same order, however they are chunked.
    public static func == (a: SectionTasks, b: SectionTasks) -> Bool {
        guard a.count == b.count else { return false }
        if a.ends == b.ends { return a.chunks == b.chunks }
        return a.elementsEqual(b)
    }
}

extension SectionTasks: ExpressibleByArrayLiteral {
    public init(arrayLiteral ids: TaskID...) { self.init(ids) }
}

extension SectionTasks: CustomStringConvertible, CustomDebugStringConvertible {
    /// As an array of the same ids prints.
    public var description: String { Array(self).description }
    public var debugDescription: String { description }
}
