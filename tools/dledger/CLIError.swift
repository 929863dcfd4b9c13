import DownloadLedger
import LedgerFrontEnd

/// Why a command failed, with its exit status. Printed as one line: `error: ...`.
enum CLIError: Error, CustomStringConvertible {
    /// The command line is wrong (exit 64, with a hint to `--help`).
    case usage(String)
    /// The command line names something that is not there or not valid: an id, a section, a URL (exit 64).
    case invalid(String)
    /// The ledger file is not a ledger, damaged, or from a newer version (exit 65).
    case badLedger(String)
    /// The command was understood but could not be done (exit 1).
    case failed(String)

    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usageStatus: Int32 = 64
    static let dataStatus: Int32 = 65
    static let interrupted: Int32 = 130

    var exitCode: Int32 {
        switch self {
        case .usage, .invalid: return Self.usageStatus
        case .badLedger: return Self.dataStatus
        case .failed: return Self.failure
        }
    }

    var description: String {
        switch self {
        case .usage(let s), .invalid(let s), .badLedger(let s), .failed(let s): return s
        }
    }

    /// Classifies any error thrown by the library or the tool.
    init(_ error: Error) {
        switch error {
        case let e as CLIError:
            self = e
        case let e as InputError:
            self = .usage(e.message)
        case let e as LedgerError:
            switch e {
            case .noSuchTask, .taskInTrash, .taskNotInTrash, .noSuchSection, .indexOutOfRange, .invalidURL,
                .invalidName, .invalidTitle, .invalidChecksum, .invalidValue, .needsManualSort:
                self = .invalid(e.description)
            case .sectionNotEmpty, .nothingToDo, .nothingToUndo, .nothingToRedo, .cannotUndo, .fileExists,
                .fileSystem:
                self = .failed(e.description)
            }
        case let e as StoreError:
            switch e {
            case .notALedger, .corrupt, .newerSchema, .cannotConnect: self = .badLedger(e.description)
            case .badLocation: self = .invalid(e.description)
            default: self = .failed(e.description)
            }
        case let e as LedgerOpenError:
            if case .unreadableEvent = e {
                self = .badLedger(e.description)
            } else {
                self = .failed(e.description)
            }
        case let e as NothingAdded:
            self = .failed(e.description)
        default:
            self = .failed("\(error)")
        }
    }
}
