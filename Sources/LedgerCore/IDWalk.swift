/// A set of task ids asked about in increasing order (a snapshot's records): each question moves a cursor along
/// the ids sorted, so reading 100,000 records past a few kept ones costs a comparison each, not a hash. An id lower
/// than the one asked before (a foreign or damaged snapshot) is searched for from the start, by halves.
struct IDWalk {
    private let sorted: [TaskID]
    /// Every id before it is lower than the id asked last.
    private var cursor = 0

    init(_ ids: Set<TaskID>) {
        sorted = ids.sorted()
    }

    /// Whether the set holds `id`.
    @inline(__always)
    mutating func holds(_ id: TaskID) -> Bool {
        if cursor > 0, sorted[cursor - 1] >= id {
            var low = 0
            var high = cursor - 1
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < id { low = middle + 1 } else { high = middle }
            }
            cursor = low
        }
        while cursor < sorted.count, sorted[cursor] < id { cursor += 1 }
        return cursor < sorted.count && sorted[cursor] == id
    }
}
