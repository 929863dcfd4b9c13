import DownloadLedger
import Foundation

/// What a running downloader shows. On a terminal: one live line per running task (at most a screenful, then
/// "… and K more") and a total line, redrawn in place a few times per second; lines for starts, finishes and
/// failures scroll above them. Elsewhere: only those plain lines, no escape codes.
final class Progress: @unchecked Sendable {
    private let console: Console
    private let ledger: Ledger
    private let scheduler: Scheduler?
    private let scope: Set<TaskID>?
    /// With `--json`, stdout carries only the final document: the plain lines go to stderr, no live region.
    private let json: Bool
    private let lock = NSLock()
    private var states: [TaskID: TaskState] = [:]
    /// The list's head when `states` was last brought up to date.
    private var seenHead: Int64
    private var loop: Task<Void, Never>?
    /// Tasks that failed while this display ran.
    private(set) var failed: Set<TaskID> = []

    init(console: Console, ledger: Ledger, scheduler: Scheduler?, scope: Set<TaskID>?, json: Bool = false) {
        self.console = console
        self.json = json
        self.ledger = ledger
        self.scheduler = scheduler
        self.scope = scope
        let list = ledger.list
        for t in list.tasks.values where scope?.contains(t.id) != false { states[t.id] = t.state }
        seenHead = list.head
    }

    /// Starts drawing.
    func start() {
        let interval: Duration = console.isTTY ? .milliseconds(200) : .milliseconds(100)
        loop = Task { [self] in
            while !Task.isCancelled {
                tick()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Stops drawing, after reporting the last changes; the live region is removed.
    func stop() async {
        loop?.cancel()
        await loop?.value
        _ = try? ledger.refresh()
        tick(live: false)
        console.clearLive()
    }

    private func tick(live: Bool = true) {
        let list = ledger.list
        for line in transitions(list) where !console.quiet {
            if json { console.err(line) } else { console.out(line) }
        }
        guard console.isTTY, !console.quiet, !json, live else { return }
        console.setLive(liveLines(list, activity: scheduler?.currentActivity() ?? []))
    }

    /// Plain lines for the tasks whose state changed since the last tick, in list order.
    ///
    /// Only the tasks the events since the last tick name are looked at (a tick is then as cheap with a history of
    /// 100,000 tasks as with ten); when those events cannot be read, every task is.
    private func transitions(_ list: DownloadList) -> [String] {
        lock.withLock {
            guard list.head != seenHead else { return [] }
            var candidates: [DownloadTask]
            if list.head > seenHead,
                let entries = try? ledger.log(after: seenHead, limit: Int(list.head - seenHead))
            {
                let touched = Set(entries.lazy.filter { $0.seq <= list.head }.flatMap(\.entry.event.taskIDs))
                // Those in the list's sections, as `orderedTasks` would give them (not the to-delete list).
                let places = list.locations(of: touched)
                candidates = places.keys.compactMap { list.tasks[$0] }
                candidates.sort { Self.inListOrder($0.id, $1.id, places) }
            } else {
                candidates = list.orderedTasks
            }
            seenHead = list.head
            var lines: [String] = []
            for t in candidates where scope?.contains(t.id) != false {
                let old = states[t.id]
                states[t.id] = t.state
                guard old != t.state else { continue }
                let name = "#\(t.id) \(DownloadList.shownName(t))"
                switch t.state {
                case .downloading:
                    lines.append(
                        "started  \(name)" + (t.bytes > 0 ? " (resuming at \(Format.bytes(t.bytes)))" : ""))
                case .finished:
                    lines.append(console.style("finished", .green) + " \(name) (\(Format.bytes(t.bytes)))")
                case .failed:
                    failed.insert(t.id)
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
        let width = max(40, console.width - 1)
        let places = list.locations(of: Set(activity.map(\.id)))
        let running = activity.sorted { Self.inListOrder($0.id, $1.id, places) }
        let room = max(1, min(8, console.height - 3))
        var lines: [String] = []
        let shown = running.count > room ? room - 1 : running.count
        for a in running.prefix(shown) {
            let name = list.tasks[a.id].map(DownloadList.shownName) ?? ""
            lines.append(String(line(a, name: name, width: width).prefix(width)))
        }
        if running.count > shown { lines.append("  … and \(running.count - shown) more downloading") }
        lines.append(String(total(list, activity: activity).prefix(width)))
        return lines
    }

    private func line(_ a: TransferActivity, name: String, width: Int) -> String {
        let fraction = a.expected.map { $0 > 0 ? min(1, Double(a.bytes) / Double($0)) : 1 }
        let percent = fraction.map { "\(Int($0 * 100))%" } ?? ""
        let eta = a.eta.map { "ETA " + Format.duration($0) } ?? ""
        let tail =
            " " + Format.right(percent, 4) + "  " + Format.right(a.detail, 19) + "  "
            + Format.right(Format.rate(a.speed), 10) + "  " + Format.fit(eta, 9)
        let id = Format.right("#\(a.id)", 5)
        let barWidth = 20
        let nameWidth = max(8, width - id.count - barWidth - 4 - tail.count)
        return id + " " + Format.fit(name, nameWidth) + " " + bar(fraction, width: barWidth) + tail
    }

    private func bar(_ fraction: Double?, width: Int) -> String {
        guard let fraction else { return "[" + String(repeating: "·", count: width - 2) + "]" }
        let filled = Int((fraction * Double(width - 2)).rounded(.down))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - 2 - filled)
            + "]"
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
