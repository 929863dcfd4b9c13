import Glibc

/// Errors of the engine's own plumbing, turned into ``FailureReason`` at the edge.
enum TransferError: Error, CustomStringConvertible {
    case fileSystem(String)
    case diskFull
    /// EMFILE or ENFILE: the process (or the system) has no descriptor left for now.
    case tooManyOpenFiles(String)
    case curl(String)

    var reason: FailureReason {
        switch self {
        case .fileSystem(let message): .fileSystem(message)
        case .diskFull: .diskFull
        case .tooManyOpenFiles(let message): .tooManyOpenFiles(message)
        case .curl(let message): .connection(message)
        }
    }

    var description: String { reason.description }

    /// A refused or failed folder operation: ENOSPC and EDQUOT become ``diskFull``, EMFILE and ENFILE
    /// ``tooManyOpenFiles``.
    init(_ error: FolderError) {
        switch error.code {
        case ENOSPC, EDQUOT: self = .diskFull
        case EMFILE, ENFILE: self = .tooManyOpenFiles(error.message)
        default: self = .fileSystem(error.message)
        }
    }
}

/// Thrown by ``TransferEngine/init(config:)`` when libcurl cannot be set up.
public struct TransferEngineError: Error, CustomStringConvertible {
    /// What failed.
    public var message: String
    public var description: String { "transfer engine: \(message)" }
}
