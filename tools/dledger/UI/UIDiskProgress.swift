import DownloadLedger
import Foundation

/// The progress of the transfers another process runs (`watching: pid N downloads`), as far as the disk tells it
/// without events: the bytes in each shown task's partial file, `<directory>/.dledger/partial/<id>.part`, read
/// through ``DownloadFolder`` (the hidden folders and the file are opened without following a link; a link or
/// anything but a regular file is skipped), sampled a few times a second for the rows on screen only.
///
/// A transfer on one connection appends, so its file's size is its bytes; a transfer split into pieces writes at
/// offsets, and its bytes are what its piece map says is written. The writer flushes in pieces (256 KiB), so the
/// bytes lag and grow in steps: the speed is taken between the file's modification times at two steps at least
/// two seconds apart (within the last ten), and is zero until there are such steps or when they stop.
final class UIDiskProgress {
    /// A size the file was seen at, and its modification time then (ns since the epoch).
    private struct Step {
        var bytes: Int64
        var at: Int64
    }

    /// How often the files are looked at.
    static let interval: Duration = .milliseconds(250)
    /// The speed is taken over steps at least this far apart, and at most this far.
    static let minimumSpan: Int64 = 2_000_000_000
    static let window: Int64 = 10_000_000_000

    private var steps: [TaskID: [Step]] = [:]
    private var last: ContinuousClock.Instant?

    /// Whether a new look at the files is due at `now`.
    func isDue(_ now: ContinuousClock.Instant) -> Bool {
        last.map { now - $0 >= Self.interval } ?? true
    }

    /// Counts a look at `now` taken elsewhere (the downloader's published activity), for ``isDue(_:)``.
    func markSampled(_ now: ContinuousClock.Instant) {
        last = now
    }

    /// Forgets what was seen (the transfers are this process's again, or nobody's).
    func reset() {
        steps = [:]
        last = nil
    }

    /// The activity of tasks `ids` (downloading, on screen) of `list` as their partial files show it now.
    func sample(_ ids: [TaskID], in list: DownloadList, now: ContinuousClock.Instant) -> [TransferActivity] {
        last = now
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let nowNs = Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)
        var folders: [String: DownloadFolder?] = [:]
        var kept: [TaskID: [Step]] = [:]
        var out: [TransferActivity] = []
        for id in ids {
            guard let task = list.tasks[id] else { continue }
            if folders[task.directory] == nil {
                folders[task.directory] = .some(try? DownloadFolder(directory: task.directory))
            }
            guard let folder = folders[task.directory] ?? nil, let seen = Self.step(id, in: folder) else {
                continue
            }
            var history = steps[id] ?? []
            // Fewer bytes than before: the file started again from zero.
            if let previous = history.last, seen.bytes < previous.bytes { history = [] }
            if history.last?.bytes != seen.bytes { history.append(seen) }
            while history.count > 2, history[history.count - 1].at - history[0].at > Self.window {
                history.removeFirst()
            }
            kept[id] = history
            let speed = Self.speed(history, now: nowNs)
            let eta = task.size.flatMap { size in speed > 0 ? Double(max(0, size - seen.bytes)) / speed : nil
            }
            out.append(
                TransferActivity(id: id, bytes: seen.bytes, expected: task.size, speed: speed, eta: eta))
        }
        steps = kept
        return out
    }

    /// Bytes per second between the first and the last step, when they are far enough apart and the file still
    /// grows (the last step is not much older than the steps' usual spacing).
    private static func speed(_ history: [Step], now: Int64) -> Double {
        guard let first = history.first, let last = history.last, history.count >= 2 else { return 0 }
        let span = last.at - first.at
        let spacing = span / Int64(history.count - 1)
        guard span >= minimumSpan, now - last.at <= max(5_000_000_000, 2 * spacing) else { return 0 }
        return Double(last.bytes - first.bytes) / (Double(span) / 1e9)
    }

    /// The bytes of task `id`'s partial file (its piece map's written ranges, else its size) and its modification
    /// time. Nil when there is no regular file.
    private static func step(_ id: TaskID, in folder: DownloadFolder) -> Step? {
        guard let info = folder.partialStatus(id: id), info.st_mode & S_IFMT == S_IFREG else { return nil }
        let at = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        if let pieces = folder.partialPieces(id: id) {
            return Step(bytes: pieces.written.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }, at: at)
        }
        return Step(bytes: Int64(info.st_size), at: at)
    }
}
