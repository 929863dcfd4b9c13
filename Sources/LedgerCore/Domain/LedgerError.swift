/// Why a command was refused. Every case reads as one line naming the bad thing; nothing was appended.
public enum LedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchTask(TaskID)
    case taskInTrash(TaskID)
    case taskNotInTrash(TaskID)
    case noSuchSection(Int, count: Int)
    case indexOutOfRange(Int, section: Int, count: Int)
    case invalidURL(String, reason: String)
    case invalidName(String, reason: String)
    case invalidTitle(String)
    case invalidChecksum(String)
    case invalidValue(String)
    case sectionNotEmpty(Int, tasks: Int)
    case needsManualSort(SortMode)
    case nothingToDo(String)
    case nothingToUndo
    case nothingToRedo
    case cannotUndo(seq: Int64, kind: String, reason: String)
    case fileExists(String)
    case fileSystem(String)

    public var description: String {
        switch self {
        case .noSuchTask(let id): return "no task #\(id)"
        case .taskInTrash(let id): return "task #\(id) is in the to-delete list (restore it first)"
        case .taskNotInTrash(let id): return "task #\(id) is not in the to-delete list"
        case .noSuchSection(let i, let count):
            return count == 0
                ? "section index \(i) out of range (the list has no sections)"
                : "section index \(i) out of range (0..\(count - 1))"
        case .indexOutOfRange(let i, let s, let count):
            return "index \(i) out of range for section \(s) (0..\(count))"
        case .invalidURL(let url, let reason): return "not a URL: \(url) (\(reason))"
        case .invalidName(let name, let reason): return "invalid name '\(name)': \(reason)"
        case .invalidTitle(let reason): return "invalid section title: \(reason)"
        case .invalidChecksum(let s): return "not a SHA-256 hex digest: \(s)"
        case .invalidValue(let s): return s
        case .sectionNotEmpty(let i, let n):
            return "section \(i) is not empty (\(n) task\(n == 1 ? "" : "s")): move or delete them first"
        case .needsManualSort(let mode):
            return
                "positions need the manual sort (the list is sorted by \(mode.rawValue)): run 'sort manual' first"
        case .nothingToDo(let s): return s
        case .nothingToUndo: return "nothing to undo"
        case .nothingToRedo: return "nothing to redo"
        case .cannotUndo(let seq, let kind, let reason): return "cannot undo #\(seq) (\(kind)): \(reason)"
        case .fileExists(let path): return "a file already exists at \(path)"
        case .fileSystem(let s): return s
        }
    }
}
