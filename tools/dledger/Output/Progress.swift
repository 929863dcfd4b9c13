import DownloadLedger
import Foundation
import LedgerFrontEnd
import Synchronization

/// What a running downloader shows. On a terminal: one live line per running task (at most a screenful, then
/// "… and K more") and a total line, redrawn in place a few times per second; lines for starts, finishes and
/// failures scroll above them. Elsewhere: only those plain lines, no escape codes.
final class Progress: Sendable {
    private let console: Console
    private let ledger: Ledger
    private let scheduler: Scheduler?
    private let scope: Set<TaskID>?
    /// With `--json`, stdout carries only the final document: the plain lines go to stderr, no live region.
    private let json: Bool

    private struct State {
        var states: [TaskID: TaskState] = [:]
        /// Tasks known to be in the to-delete list, to say when one goes there or comes back.
        var inTrash: Set<TaskID> = []
        /// Paused tasks whose transfer keeps its connection, to say that a resume went on with it.
        var kept: Set<TaskID> = []
        /// The list's head when `states` was last brought up to date.
        var seenHead: Int64
        var loop: Task<Void, Never>?
        /// Tasks that failed while this display ran.
        var failed: Set<TaskID> = []
        /// While the ledger's database is out of reach: since when.
        var outageSince: ContinuousClock.Instant?
    }

    private let state: Mutex<State>

    /// Tasks that failed while this display ran.
    var failed: Set<TaskID> { state.withLock { $0.failed } }

    init(console: Console, ledger: Ledger, scheduler: Scheduler?, scope: Set<TaskID>?, json: Bool = false) {
        self.console = console
        self.json = json
        self.ledger = ledger
        self.scheduler = scheduler
        self.scope = scope
        let list = ledger.list
        var state = State(seenHead: list.head)
        for t in list.tasks.values where scope?.contains(t.id) != false { state.states[t.id] = t.state }
        state.inTrash = Set(list.trash.map(\.id))
        self.state = Mutex(state)
    }

    /// Starts drawing.
    func start() {
        let interval: Duration = console.isTTY ? .milliseconds(200) : .milliseconds(100)
        let loop = Task { [self] in
            while !Task.isCancelled {
                tick()
                try? await Task.sleep(for: interval)
            }
        }
        state.withLock { $0.loop = loop }
    }

    /// Stops drawing, after reporting the last changes; the live region is removed.
    func stop() async {
        let loop = state.withLock { $0.loop }
        loop?.cancel()
        await loop?.value
        _ = try? ledger.refresh()
        tick(live: false)
        console.clearLive()
    }

    private func tick(live: Bool = true) {
        let list = ledger.list
        let outage = scheduler?.outageStatus
        for line in transitions(list) + outageLines(outage) where !console.quiet {
            if json { console.err(line) } else { console.out(line) }
        }
        guard console.isTTY, !console.quiet, !json, live else { return }
        var lines = liveLines(list, activity: scheduler?.currentActivity() ?? [])
        if let outage { lines.append(console.style(outage.line(), .yellow)) }
        console.setLive(lines)
    }

    /// Plain lines for the tasks whose state changed since the last tick, in list order, and for those that went to
    /// the to-delete list, came back from it, or were removed.
    ///
    /// Only the tasks the events since the last tick name are looked at (a tick is then as cheap with a history of
    /// 100,000 tasks as with ten); when those events cannot be read, every task is.
    private func transitions(_ list: DownloadList) -> [String] {
        state.withLock { state in
            guard list.head != state.seenHead else { return [] }
            var touched: Set<TaskID>
            if list.head > state.seenHead,
                let entries = try? ledger.log(after: state.seenHead, limit: Int(list.head - state.seenHead))
            {
                touched = Set(entries.lazy.filter { $0.seq <= list.head }.flatMap(\.entry.event.taskIDs))
            } else {
                touched = Set(state.states.keys).union(list.tasks.keys)
            }
            state.seenHead = list.head
            touched = touched.filter { scope?.contains($0) != false }
            // In list order; tasks in the to-delete list or gone after them, by id.
            let places = list.locations(of: touched)
            var lines: [String] = []
            for id in touched.sorted(by: { Self.inListOrder($0, $1, places) }) {
                let old = state.states[id]
                let wasTrashed = state.inTrash.contains(id)
                guard let t = list.tasks[id] else {
                    // Purged, or deleted at once: the transfer, if any, stopped.
                    if old != nil {
                        lines.append(
                            console.style("removed ", .yellow)
                                + " #\(id): \(wasTrashed ? "purged" : "deleted at once, without the to-delete list")"
                        )
                    }
                    state.states[id] = nil
                    state.inTrash.remove(id)
                    continue
                }
                state.states[id] = t.state
                let name = "#\(t.id) \(DownloadList.shownName(t))"
                if list.isTrashed(id) {
                    if !wasTrashed {
                        state.inTrash.insert(id)
                        let verb = old == .downloading ? "stopped " : "deleted "
                        lines.append(console.style(verb, .yellow) + " \(name): moved to the to-delete list")
                    }
                    continue
                }
                if wasTrashed {
                    state.inTrash.remove(id)
                    lines.append("restored \(name): back in the list, \(t.state.rawValue)")
                    continue
                }
                let wasKept =
                    t.connectionKept ? !state.kept.insert(id).inserted : state.kept.remove(id) != nil
                guard old != t.state else { continue }
                switch t.state {
                case .downloading where wasKept:
                    lines.append("resumed  \(name) on the kept connection at \(Format.bytes(t.bytes))")
                case .downloading:
                    lines.append(
                        "started  \(name)" + (t.bytes > 0 ? " (resuming at \(Format.bytes(t.bytes)))" : ""))
                case .finished:
                    lines.append(console.style("finished", .green) + " \(name) (\(Format.bytes(t.bytes)))")
                case .failed:
                    state.failed.insert(t.id)
                    lines.append(
                        console.style("failed  ", .red) + " \(name): \(Format.failure(t.failure))")
                case .paused, .stopped:
                    lines.append(console.style(Format.fit(t.state.rawValue, 8), .yellow) + " \(name)")
                case .waiting:
                    if old == .downloading { lines.append("queued   \(name) at \(Format.bytes(t.bytes))") }
                }
            }
            return lines
        }
    }

    /// A plain line when the ledger's database goes out of reach (the live region then says how long until the next
    /// try), and one when it answers again.
    private func outageLines(_ outage: OutageStatus?) -> [String] {
        state.withLock { state in
            switch (state.outageSince, outage) {
            case (nil, let outage?):
                state.outageSince = outage.since
                return [console.style(outage.line(), .yellow) + ": " + outage.reason]
            case (let since?, nil):
                state.outageSince = nil
                let seconds = Int(since.duration(to: .now) / .seconds(1))
                return ["database reachable again after \(seconds) s: the facts that waited are recorded"]
            default:
                return []
            }
        }
    }

    /// Whether task `a` comes before `b` in the list, given their places (`locations(of:)`); a task with no place
    /// comes last, ties by id.
    private static func inListOrder(
        _ a: TaskID, _ b: TaskID, _ places: [TaskID: (section: Int, index: Int)]
    ) -> Bool {
        let pa = places[a] ?? (Int.max, 0)
        let pb = places[b] ?? (Int.max, 0)
        return (pa.section, pa.index, a) < (pb.section, pb.index, b)
    }

    private func liveLines(_ list: DownloadList, activity: [TransferActivity]) -> [String] {
        let width = max(20, console.width - 1)
        let places = list.locations(of: Set(activity.map(\.id)))
        let running = activity.sorted { Self.inListOrder($0.id, $1.id, places) }
        let room = max(1, min(8, console.height - 3))
        var lines: [String] = []
        let shown = running.count > room ? room - 1 : running.count
        let named = running.prefix(shown).map { a in (a, list.tasks[a.id].map(DownloadList.shownName) ?? "") }
        let layout = ProgressLine(width: width, longestName: named.map(\.1.count).max() ?? 0)
        for (a, name) in named {
            lines.append(String(layout.line(a, name: name).prefix(width)))
        }
        if running.count > shown { lines.append("  … and \(running.count - shown) more downloading") }
        lines.append(String(total(list, activity: activity).prefix(width)))
        return lines
    }

    private func total(_ list: DownloadList, activity: [TransferActivity]) -> String {
        var counts: [TaskState: Int] = [:]
        var bytes: Int64 = 0
        var size: Int64 = 0
        for t in list.orderedTasks where scope?.contains(t.id) != false {
            counts[t.state, default: 0] += 1
            if let s = t.size { size += s }
            bytes += t.state == .finished ? t.bytes : 0
        }
        bytes += activity.reduce(0) { $0 + $1.bytes }
        let speed = activity.reduce(0.0) { $0 + $1.speed }
        let parts = TaskState.allCases.compactMap { s in counts[s].map { "\($0) \(s.rawValue)" } }
        return console.style(
            "total: " + parts.joined(separator: ", ") + " · \(Format.bytes(bytes))"
                + (size > 0 ? " / \(Format.bytes(size))" : "") + " · \(Format.rate(speed))", .bold)
    }
}
