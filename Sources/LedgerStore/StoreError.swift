/// What can go wrong with a ledger file, in words a user can act on.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not SQLite, or is SQLite without the DownloadLedger application id.
    case notALedger(String)
    /// SQLite found the file damaged (truncated, overwritten...).
    case corrupt(String, String)
    /// Another connection kept the ledger locked longer than the busy timeout (5 s by default).
    case locked(String)
    /// The ledger was written by a newer DownloadLedger whose schema this build does not know.
    case newerSchema(found: Int, supported: Int)
    /// Another writer appended first: nothing was appended; `head` is the current last seq.
    case conflict(head: Int64)
    /// The ledger was opened read-only (or the file cannot be written) and a write was asked.
    case readOnly
    /// The file cannot be opened or created (missing, permission, directory...).
    case cannotOpen(String, String)
    /// A backup cannot be written at the destination (something is there, no such folder, the disk is full);
    /// nothing is left there.
    case cannotBackUp(String, String)
    /// Reading or writing the disk failed (disk full, I/O error).
    case io(String, String)
    /// A snapshot was offered for a seq the log does not have yet.
    case snapshotBeyondHead(seq: Int64, head: Int64)
    /// Any other SQLite failure (a bug rather than a user problem).
    case database(DatabaseError)
    /// A ledger location that cannot be used as written (a malformed `postgresql://` URI, a bad `ledger=` name);
    /// the text names the problem, with any password masked.
    case badLocation(String)
    /// The PostgreSQL server cannot be reached or refused the login: the URI (password masked) and libpq's reason.
    case cannotConnect(String, String)
    /// The PostgreSQL server failed a statement: the URI (password masked), the SQLSTATE and the server's message.
    case server(String, String, String)

    public var description: String {
        switch self {
        case .notALedger(let path): "\(path) is not a DownloadLedger ledger"
        case .corrupt(let path, let detail): "ledger \(path) is damaged: \(detail)"
        case .locked(let path): "ledger \(path) is locked by another process (gave up after waiting)"
        case .newerSchema(let found, let supported):
            "ledger schema version \(found) is newer than this build supports (\(supported)): upgrade DownloadLedger"
        case .conflict(let head): "the ledger moved on (head is now \(head)): nothing was appended"
        case .readOnly: "the ledger is open read-only"
        case .cannotOpen(let path, let reason): "cannot open ledger \(path): \(reason)"
        case .cannotBackUp(let path, let reason): "cannot back up to \(path): \(reason)"
        case .io(let path, let detail): "disk error on ledger \(path): \(detail)"
        case .snapshotBeyondHead(let seq, let head): "snapshot at seq \(seq) is beyond the head (\(head))"
        case .database(let error): error.description
        case .badLocation(let detail): "bad ledger location: \(detail)"
        case .cannotConnect(let uri, let reason): "cannot connect to ledger \(uri): \(reason)"
        case .server(let uri, let state, let message): "ledger \(uri): PostgreSQL error \(state): \(message)"
        }
    }

    /// Translates a SQLite failure on the ledger at `path` into the user-facing error.
    init(_ error: DatabaseError, path: String) {
        switch error.code {
        case .busy, .locked: self = .locked(path)
        case .notADatabase: self = .notALedger(path)
        case .corrupt: self = .corrupt(path, error.message)
        case .readOnly: self = .readOnly
        case .cantOpen: self = .cannotOpen(path, error.message)
        case .permission: self = .cannotOpen(path, error.message)
        case .ioError, .full: self = .io(path, error.message)
        default: self = .database(error)
        }
    }
}
