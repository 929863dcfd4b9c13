import Synchronization

/// One user action that can be undone or redone: the seq it was logged at, the event that undoes it (on the undo
/// stack) and the action itself, which redo appends again (on the redo stack, `inverse` is the action too).
///
/// The action is always the event logged at `seq` (the action itself, or the redo that appended it again), so a
/// snapshot saves it as a reference to that seq, read back from the log when redo needs it: the step of an add of
/// a million URLs is not 100 MB of JSON in every snapshot. The inverse of a step on the undo stack is saved as its
/// kind and payload, decoded the first time it is needed.
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

    /// Why the step cannot be taken although nothing it names moved: a snapshot's bytes for its events do not
    /// decode, or the logged event it refers to is gone or changed. Nil when it can. Only what undo or redo of
    /// this step appends is read for it (the inverse).
    public var problem: String? {
        inverseEvent.problem ?? (actionEvent.reference == nil ? actionEvent.problem : nil)
    }

    /// False when ``problem`` names one.
    public var isReadable: Bool { problem == nil }

    /// The tasks the step's events name (its inverse and its action), without reading back an event held by
    /// reference.
    public var tasksNamed: [TaskID] { inverseEvent.taskIDs + actionEvent.taskIDs }

    public static func == (a: UndoStep, b: UndoStep) -> Bool {
        a.seq == b.seq && a.kind == b.kind && a.blocker == b.blocker
            && a.inverseEvent.same(as: b.inverseEvent)
            && a.actionEvent.same(as: b.actionEvent)
    }
}

/// Reads back the event logged at a seq, as its kind and payload; nil when the log has no such event, or its
/// link in the hash chain does not hold. Undo steps that a snapshot holds by reference use it on first need.
public struct LoggedEventReader: Sendable {
    let read: @Sendable (Int64) -> (kind: [UInt8], payload: [UInt8])?

    public init(_ read: @escaping @Sendable (Int64) -> (kind: [UInt8], payload: [UInt8])?) {
        self.read = read
    }
}

/// An event of an undo step: decoded, the kind and payload it was saved as in a snapshot (decoded on first use),
/// or a reference to the event logged at a seq (read back from the log on first use); once resolved, copies of
/// the step share it.
final class StepEvent: Sendable {
    private enum Form {
        case decoded(Event)
        case encoded(kind: [UInt8], payload: [UInt8])
        /// The event logged at `reference`, not read yet.
        case logged(LoggedEventReader?)
        /// The saved bytes or the logged event could not be had, for this reason; the saved bytes are kept, to be
        /// saved again as they were (never as the stand-in event, which a later read would take for the step's).
        case unreadable(String, saved: (kind: [UInt8], payload: [UInt8])?)
    }

    private let form: Mutex<Form>
    /// The event's seq in the log when it is held by reference, with its kind and the tasks it names (known
    /// without reading it: a purge asks every step which tasks it names).
    let reference: Int64?
    private let referenceKind: String
    private let referenceTasks: [TaskID]

    init(_ event: Event) {
        form = Mutex(.decoded(event))
        reference = nil
        referenceKind = ""
        referenceTasks = []
    }

    init(kind: [UInt8], payload: [UInt8]) {
        form = Mutex(.encoded(kind: kind, payload: payload))
        reference = nil
        referenceKind = ""
        referenceTasks = []
    }

    /// The event logged at `seq`, of `kind`, naming `tasks`, read through `reader` when first needed.
    init(loggedAt seq: Int64, kind: String, tasks: [TaskID], reader: LoggedEventReader?) {
        form = Mutex(.logged(reader))
        reference = seq
        referenceKind = kind
        referenceTasks = tasks
    }

    /// Stands for nothing when the event cannot be had (`problem` says why, and undo refuses the step).
    private static let nothing = Event.tasksRemoved(ids: [], removingSections: [])

    var event: Event { resolved() ?? Self.nothing }

    /// The event, decoding or reading it back (through the reader it was made with) the first time. The reading
    /// is done outside this event's lock: a reader may wait for the store's owner.
    private func resolved() -> Event? {
        let reader: LoggedEventReader? =
            if case .logged(let reader) = form.withLock({ $0 }) { reader } else { nil }
        return resolved { reader?.read($0) }
    }

    /// Reads an event held by reference back through `read` (the store's holder, before a decision needs it), unless
    /// it was read already.
    func resolve(_ read: (Int64) -> (kind: [UInt8], payload: [UInt8])?) {
        _ = resolved(reading: read)
    }

    private func resolved(reading read: (Int64) -> (kind: [UInt8], payload: [UInt8])?) -> Event? {
        let current = form.withLock { $0 }
        let outcome: Form
        switch current {
        case .decoded(let event): return event
        case .unreadable: return nil
        case .encoded(let kind, let payload):
            let decoded = kind.withUnsafeBytes { kind in
                payload.withUnsafeBytes { try? Entry.decode(kind: kind, payload: $0).event }
            }
            outcome =
                decoded.map(Form.decoded)
                ?? .unreadable("its events cannot be read back from the snapshot", saved: (kind, payload))
        case .logged:
            let decoded = read(reference!).flatMap { kind, payload -> Event? in
                guard kind.elementsEqual(referenceKind.utf8) else { return nil }
                let event = kind.withUnsafeBytes { kind in
                    payload.withUnsafeBytes { try? Entry.decode(kind: kind, payload: $0).event }
                }
                return event?.taskIDs == referenceTasks ? event : nil
            }
            outcome =
                decoded.map(Form.decoded)
                ?? .unreadable(
                    "its event #\(reference!) cannot be read back from the log (missing or changed)",
                    saved: nil)
        }
        form.withLock { $0 = outcome }
        if case .decoded(let event) = outcome { return event }
        return nil
    }

    /// Why the event cannot be had, or nil when it can (reading it back if need be).
    var problem: String? {
        _ = resolved()
        return form.withLock { if case .unreadable(let why, _) = $0 { why } else { nil } }
    }

    /// The event's kind and the tasks it names; for a reference, without reading it.
    var kind: String { reference != nil ? referenceKind : event.kind }
    var taskIDs: [TaskID] { reference != nil ? referenceTasks : event.taskIDs }

    /// The kind and payload to save inline: the saved bytes themselves while the event was never decoded, or when
    /// they do not decode (the step stays one that undo refuses).
    func encoded() -> (kind: [UInt8], payload: [UInt8]) {
        switch form.withLock({ $0 }) {
        case .encoded(let kind, let payload), .unreadable(_, (let kind, let payload)?): return (kind, payload)
        default: break
        }
        let event = self.event
        return (Array(event.kind.utf8), Entry(event).encodedPayload())
    }

    /// Whether two step events are the same. One held by reference is the event logged at its step's seq (the
    /// steps' seqs are compared first): it is the same as another of the same kind naming the same tasks.
    func same(as other: StepEvent) -> Bool {
        guard reference == nil, other.reference == nil else {
            return kind == other.kind && taskIDs == other.taskIDs
        }
        return event == other.event
    }
}
