import Glibc

/// Errors of the engine's own plumbing, turned into ``FailureReason`` at the edge.
enum TransferError: Error, CustomStringConvertible {
    case fileSystem(String)
    case diskFull
    case curl(String)

    var reason: FailureReason {
        switch self {
        case .fileSystem(let message): .fileSystem(message)
        case .diskFull: .diskFull
        case .curl(let message): .connection(message)
        }
    }

    var description: String { reason.description }

    /// A refused or failed folder operation: ENOSPC and EDQUOT become ``diskFull``.
    init(_ error: FolderError) {
        self = error.code == ENOSPC || error.code == EDQUOT ? .diskFull : .fileSystem(error.message)
    }
}

/// Thrown by ``TransferEngine/init(config:)`` when libcurl cannot be set up.
public struct TransferEngineError: Error, CustomStringConvertible {
    /// What failed.
    public var message: String
    public var description: String { "transfer engine: \(message)" }
}
