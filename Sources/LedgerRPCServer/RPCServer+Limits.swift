import CWebSockets
import Foundation

/// What no client may take from others: descriptors (a connection limit, the longest idle making room) and time
/// (deadlines for a request's head and body as a whole, and for replies a client does not read).
extension RPCServer {
    /// How often the deadlines are looked at, in microseconds.
    static let sweepInterval: Int64 = 500_000

    /// A connection that never completed a request may make room once it is this old (seconds); one that did,
    /// once idle ``servedIdle``. Younger ones stay, over the limit for a while: evicting (or refusing) a
    /// connection the moment another came made a flood that reconnects at once churn as fast as the server could
    /// accept, and the server thread did little else (`ledger-bench rpc-abuse`).
    static let freshIdle = 1.0
    static let servedIdle = 10.0

    /// A connection lws just accepted: counted, and past ``connectionLimit`` the connections idle long enough
    /// make room (``makeRoom(_:lookingAtAll:)``). When none is, the new one stays for now: lws accepts at most
    /// 16 past the limit (``RPCServer/init(service:configuration:)``), further ones wait in the kernel's queue,
    /// and the sweep makes room as the connections age.
    func admit(_ wsi: OpaquePointer) -> Int32 {
        if drainingSeen { return -1 }
        fresh.append((wsi, openConnection(wsi).serial))
        makeRoom(Self.now(), lookingAtAll: false)
        return 0
    }

    /// Closes connections, the longest idle first, while more than ``connectionLimit`` are open and some are idle
    /// long enough (``evictionCandidate(_:lookingAtAll:)``). On each arrival only the oldest that never completed
    /// a request are looked at (a step each); the sweep looks at all.
    func makeRoom(_ now: Double, lookingAtAll: Bool) {
        while liveConnections > connectionLimit,
            let victim = evictionCandidate(now, lookingAtAll: lookingAtAll)
        {
            drop(victim)
        }
    }

    /// The connection to close to make room: one that never completed a request (at least ``freshIdle`` old)
    /// before one that did (idle at least ``servedIdle``), then the one idle the longest; never one with a call
    /// under way or a reply being written.
    ///
    /// Those that never completed a request are taken from ``fresh`` in the order they came (those that have
    /// since completed one or closed skipped), so a flood costs a step per connection, not a look at every one;
    /// only when its oldest is too young, and `lookingAtAll`, are all looked at.
    func evictionCandidate(_ now: Double, lookingAtAll: Bool) -> OpaquePointer? {
        while freshHead < fresh.count {
            let (wsi, serial) = fresh[freshHead]
            guard let conn = connections[wsi], conn.serial == serial, !conn.closing, conn.evictionRank == 0
            else {
                freshHead += 1
                continue
            }
            if now - conn.since < Self.freshIdle { break }
            freshHead += 1
            if freshHead > 1024 && freshHead * 2 > fresh.count {
                fresh.removeFirst(freshHead)
                freshHead = 0
            }
            return wsi
        }
        guard lookingAtAll else { return nil }
        var best: (wsi: OpaquePointer, rank: Int, since: Double)?
        for (wsi, conn) in connections where !conn.closing {
            guard let rank = conn.evictionRank,
                now - conn.since >= (rank == 0 ? Self.freshIdle : Self.servedIdle)
            else { continue }
            if let b = best, (b.rank, b.since) <= (rank, conn.since) { continue }
            best = (wsi, rank, conn.since)
        }
        return best?.wsi
    }

    /// Closes a connection from the server thread (lws closes it on its next pass); it no longer counts.
    func drop(_ wsi: OpaquePointer) {
        if let conn = connections[wsi], !conn.closing {
            conn.closing = true
            liveConnections -= 1
        }
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }

    /// Closes the connections past their deadlines (called every ``sweepInterval`` on the server thread):
    /// - a request's head not complete ``Configuration/requestTimeout`` seconds after the connection opened
    ///   (``Configuration/idleTimeout`` after the last reply, on a keep-alive connection);
    /// - a POST body or WebSocket message (or frame) not complete ``Configuration/requestTimeout`` seconds after it began;
    /// - a reply the client has not read in ``Configuration/idleTimeout`` seconds;
    /// - a WebSocket that never sent a message, silent for ``Configuration/idleTimeout`` seconds, while the
    ///   connections fill more than half of ``connectionLimit`` (front ends that only listen for notifications
    ///   keep theirs otherwise).
    func sweep() {
        let now = Self.now()
        let request = Double(configuration.requestTimeout)
        let idle = Double(configuration.idleTimeout)
        let crowded = liveConnections * 2 > connectionLimit
        var expired: [OpaquePointer] = []
        for (wsi, conn) in connections where !conn.closing {
            let waited = now - conn.since
            switch conn.phase {
            case .head:
                if waited > (conn.served > 0 ? idle : request) { expired.append(wsi) }
            case .body:
                if waited > request { expired.append(wsi) }
            case .writing:
                if waited > idle { expired.append(wsi) }
            case .working:
                break
            case .webSocket:
                if let start = conn.messageSince {
                    if now - start > request { expired.append(wsi) }
                } else if !conn.working && waited > request && Self.received(wsi, within: waited - 0.1) {
                    // lws reports a frame only when it is whole: bytes that came after the last message, and no
                    // message for the request time, are a message sent too slowly.
                    expired.append(wsi)
                } else if crowded && conn.served == 0 && !conn.working && waited > idle {
                    expired.append(wsi)
                }
            }
        }
        expired.forEach(drop)
        makeRoom(now, lookingAtAll: true)
        // Below the limit nothing is taken from `fresh`: what it holds for connections gone or served is let go.
        if fresh.count - freshHead > 2 * connections.count + 64 {
            fresh = fresh[freshHead...].filter { wsi, serial in
                connections[wsi].map { $0.serial == serial && $0.evictionRank == 0 } ?? false
            }
            freshHead = 0
        }
    }

    /// Whether the connection's socket received data in the last `seconds` (the kernel's TCP_INFO).
    static func received(_ wsi: OpaquePointer, within seconds: Double) -> Bool {
        let fd = lws_get_socket_fd(wsi)
        guard fd >= 0 else { return false }
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return false }
        return Double(info.tcpi_last_data_recv) / 1000 < seconds
    }
}
