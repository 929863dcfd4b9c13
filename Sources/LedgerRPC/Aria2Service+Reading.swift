import DownloadLedger

extension Aria2Service {
    /// The running transfers' progress by task id.
    func activityByID() -> [TaskID: TransferActivity] {
        var byID: [TaskID: TransferActivity] = [:]
        for a in activity() { byID[a.id] = a }
        return byID
    }

    func keys(_ params: RPCParams, at i: Int) throws -> Set<String>? {
        guard let keys = try params.strings(i), !keys.isEmpty else { return nil }
        return Set(keys)
    }

    func tellStatus(_ p: RPCParams) throws -> RPCValue {
        let (task, trashed) = try task(try p.string(0))
        let keys = try keys(p, at: 1)
        return Aria2Status.object(task, trashed: trashed, activity: activityByID()[task.id], keys: keys)
    }

    /// The three queues aria2 has, from the list: active and waiting in list order; stopped (finished and failed
    /// tasks in list order, then the to-delete list, oldest deletion first). Nothing is ever dropped from it.
    struct Queues {
        var active: [DownloadTask] = []
        var waiting: [DownloadTask] = []
        var stopped: [(task: DownloadTask, trashed: Bool)] = []
    }

    func queues(_ list: DownloadList) -> Queues {
        var q = Queues()
        for section in list.sections {
            for id in section.tasks {
                guard let t = list.tasks[id] else { continue }
                switch t.state {
                case .downloading: q.active.append(t)
                case .waiting, .paused, .stopped: q.waiting.append(t)
                case .finished, .failed: q.stopped.append((t, false))
                }
            }
        }
        for entry in list.trash.reversed() {
            if let t = list.tasks[entry.id] { q.stopped.append((t, true)) }
        }
        return q
    }

    func tellActive(_ p: RPCParams) throws -> RPCValue {
        let keys = try keys(p, at: 0)
        let activity = activityByID()
        return .array(
            queues(ledger.latestList).active.map {
                Aria2Status.object($0, trashed: false, activity: activity[$0.id], keys: keys)
            })
    }

    func tellWaiting(_ p: RPCParams) throws -> RPCValue {
        let (range, reversed) = try page(p, count: { $0.waiting.count })
        let keys = try keys(p, at: 2)
        let waiting = range.queues.waiting
        var items = range.indices.map {
            Aria2Status.object(waiting[$0], trashed: false, activity: nil, keys: keys)
        }
        if reversed { items.reverse() }
        return .array(items)
    }

    func tellStopped(_ p: RPCParams) throws -> RPCValue {
        let (range, reversed) = try page(p, count: { $0.stopped.count })
        let keys = try keys(p, at: 2)
        let stopped = range.queues.stopped
        var items = range.indices.map {
            Aria2Status.object(stopped[$0].task, trashed: stopped[$0].trashed, activity: nil, keys: keys)
        }
        if reversed { items.reverse() }
        return .array(items)
    }

    /// `offset` and `num` as aria2 reads them: a negative offset counts from the end (-1 is the last) and the
    /// page is then returned last first.
    func page(_ p: RPCParams, count: (Queues) -> Int) throws -> (
        (queues: Queues, indices: Range<Int>), reversed: Bool
    ) {
        let offset = try p.int(0)
        let num = try p.int(1, in: 0...Int64(Int32.max))
        let queues = queues(ledger.latestList)
        let range = Self.pagination(offset: offset, num: num, size: Int64(count(queues)))
        return ((queues, range), offset < 0)
    }

    /// aria2's pagination (RpcMethodImpl getPaginationRange) over a queue of `size`.
    public static func pagination(offset: Int64, num: Int64, size: Int64) -> Range<Int> {
        var offset = offset
        var num = num
        if offset < 0 {
            let fromEnd = offset + size
            guard fromEnd >= 0, num > 0 else { return 0..<0 }
            offset = fromEnd - (num - 1)
            if offset < 0 {
                offset = 0
                num = fromEnd + 1
            }
        } else if offset >= size {
            return 0..<0
        }
        let n = min(size - offset, num)
        return Int(offset)..<Int(offset + n)
    }

    func getUris(_ p: RPCParams) throws -> RPCValue {
        let (task, _) = try task(try p.string(0))
        guard case .array(let files) = Aria2Status.files(task, activityByID()[task.id]),
            let uris = files.first?["uris"]
        else { return .array([]) }
        return uris
    }

    func getFiles(_ p: RPCParams) throws -> RPCValue {
        let (task, _) = try task(try p.string(0))
        return Aria2Status.files(task, activityByID()[task.id])
    }

    func getServers(_ p: RPCParams) throws -> RPCValue {
        let gid = try p.string(0)
        let (task, _) = try task(gid)
        guard let a = activityByID()[task.id] else {
            throw RPCError.failed("No active download for GID#\(GID.of(task.id))")
        }
        let server = RPCValue.object([
            ("currentUri", .string(task.url)), ("downloadSpeed", .number(Int64(a.speed))),
            ("uri", .string(task.url)),
        ])
        return .array([.object([("index", .string("1")), ("servers", .array([server]))])])
    }

    func globalStat() -> RPCValue {
        let q = queues(ledger.latestList)
        let speed = activity().reduce(0.0) { $0 + $1.speed }
        return .object([
            ("downloadSpeed", .number(Int64(speed))),
            ("numActive", .number(Int64(q.active.count))),
            ("numStopped", .number(Int64(q.stopped.count))),
            ("numStoppedTotal", .number(Int64(q.stopped.count))),
            ("numWaiting", .number(Int64(q.waiting.count))),
            ("uploadSpeed", .string("0")),
        ])
    }
}
