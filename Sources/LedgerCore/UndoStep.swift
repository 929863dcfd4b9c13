import Synchronization

/// One user action that can be undone or redone: the seq it was logged at, the event that undoes it (on the undo
/// stack) and the action itself, which redo appends again (on the redo stack, `inverse` is the action too).
///
/// A step read from a snapshot keeps its two events as the payload bytes they were saved as, decoded the first
/// time they are needed: the step of an add of a million URLs is 100 MB of JSON that most commands never read.
public struct UndoStep: Sendable, Equatable {
    public var seq: Int64
    public var kind: String
    var inverseEvent: StepEvent
    var actionEvent: StepEvent
    /// Why the action can never be undone (a purge, a redownload, a file deletion, an erase): then `inverse` is
    /// the action itself and unused. Such a step stands on the undo stack so that `undo` refuses it instead of
    /// silently undoing an older action; `undoPast` passes over it.
    public var blocker: String?

    public init(seq: Int64, kind: String, inverse: Event, action: Event, blocker: String? = nil) {
        self.init(
            seq: seq, kind: kind, inverse: StepEvent(inverse), action: StepEvent(action), blocker: blocker)
    }

    init(seq: Int64, kind: String, inverse: StepEvent, action: StepEvent, blocker: String?) {
        self.seq = seq
        self.kind = kind
        inverseEvent = inverse
        actionEvent = action
        self.blocker = blocker
    }

    /// What undo appends (undo stack) or redo appends (redo stack).
    public var inverse: Event {
        get { inverseEvent.event }
        set { inverseEvent = StepEvent(newValue) }
    }

    /// The user's action as first logged.
    public var action: Event {
        get { actionEvent.event }
        set { actionEvent = StepEvent(newValue) }
    }

    /// False when a snapshot's bytes for its events do not decode (a damaged snapshot): the step cannot be taken.
    public var isReadable: Bool { inverseEvent.isReadable && actionEvent.isReadable }

    public static func == (a: UndoStep, b: UndoStep) -> Bool {
        a.seq == b.seq && a.kind == b.kind && a.blocker == b.blocker && a.inverse == b.inverse
            && a.action == b.action
    }
}

/// An event of an undo step: decoded, or the kind and payload it was saved as in a snapshot, decoded on first use
/// (once; copies of the step share it).
final class StepEvent: Sendable {
    private enum Form {
        case decoded(Event)
        case encoded(kind: [UInt8], payload: [UInt8])
        /// Decoded, with the payload it was logged as (a snapshot writes those bytes instead of encoding it again).
        case both(Event, payload: [UInt8])
        case unreadable
    }

    private let form: Mutex<Form>

    init(_ event: Event) { form = Mutex(.decoded(event)) }

    init(_ event: Event, payload: [UInt8]) { form = Mutex(.both(event, payload: payload)) }

    init(kind: [UInt8], payload: [UInt8]) { form = Mutex(.encoded(kind: kind, payload: payload)) }

    /// Stands for nothing when the saved bytes do not decode (`isReadable` says so, and undo refuses the step).
    private static let nothing = Event.tasksRemoved(ids: [], removingSections: [])

    var event: Event {
        form.withLock { form in
            switch form {
            case .decoded(let event), .both(let event, _): return event
            case .unreadable: return Self.nothing
            case .encoded(let kind, let payload):
                let decoded = kind.withUnsafeBytes { kind in
                    payload.withUnsafeBytes { try? Entry.decode(kind: kind, payload: $0).event }
                }
                form = decoded.map(Form.decoded) ?? .unreadable
                return decoded ?? Self.nothing
            }
        }
    }

    var isReadable: Bool {
        _ = event
        return form.withLock { if case .unreadable = $0 { false } else { true } }
    }

    /// The kind and payload to save: the saved bytes themselves while the event was never decoded.
    func encoded() -> (kind: [UInt8], payload: [UInt8]) {
        let saved: (kind: [UInt8], payload: [UInt8])? = form.withLock { form in
            switch form {
            case .encoded(let kind, let payload): return (kind, payload)
            case .both(let event, let payload): return (Array(event.kind.utf8), payload)
            default: return nil
            }
        }
        if let saved { return saved }
        let event = self.event
        return (Array(event.kind.utf8), Entry(event).encodedPayload())
    }
}

extension DownloadList {
    /// Gives the undo step of the action logged at `seq` the payload that action was logged with, so that a
    /// snapshot writes those bytes instead of encoding the event again (an add of a million URLs is 100 MB of
    /// JSON). Only an entry that is no undo or redo and has no origin is logged with the payload a step saves.
    public mutating func keepPayload(_ payload: [UInt8], of entry: Entry, loggedAt seq: Int64) {
        guard entry.undoes == nil, entry.redoes == nil, entry.origin == nil,
            let last = undoStack.indices.last,
            undoStack[last].seq == seq, undoStack[last].blocker == nil
        else { return }
        undoStack[last].actionEvent = StepEvent(entry.event, payload: payload)
    }
}
