import Foundation
import LedgerTransfer
import LoopbackHTTP
import Synchronization
import Testing

/// A request's own headers, user agent, referer, proxy and speed limit, as the server sees them.
@Suite(.serialized) struct RequestOptionsTests {
    @Test func headersUserAgentAndRefererGoWithEveryRequestOfEveryConnection() async throws {
        let h = try Harness(config: SegmentTests.config(connections: 4))
        defer { h.close() }
        let resource = Resource(size: 1_000_000, seed: 61, faults: Faults(throttleBytesPerSecond: 2_000_000))
        h.server.serve("/h.bin", resource)
        var request = h.request(1, "/h.bin")
        request.connections = 4
        request.headers = ["X-Session: abc 123", "Accept-Language: fr"]
        request.userAgent = "Mozilla/5.0 (X11; Linux x86_64) test"
        request.referer = "https://example.org/page"

        let event = await h.run(request)

        guard case .completed(_, 1_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.holds(name, resource.body.allBytes))
        let seen = h.server.requests("/h.bin")
        #expect(seen.count >= 4)
        for r in seen {
            #expect(r.headers["x-session"] == "abc 123")
            #expect(r.headers["accept-language"] == "fr")
            #expect(r.headers["user-agent"] == "Mozilla/5.0 (X11; Linux x86_64) test")
            #expect(r.headers["referer"] == "https://example.org/page")
        }
    }

    /// A redirect to another origin (here another port) gets the plain headers but not the credentials: a
    /// browser extension's cookie or bearer token for one site must not reach the site it redirects to. libcurl
    /// (7.83 and later) drops custom `Authorization` and `Cookie` headers when the host, port or scheme
    /// changes; this checks that it still does for the requests we build.
    @Test func credentialsDoNotFollowARedirectToAnotherOrigin() async throws {
        let h = try Harness(config: Harness.fastConfig)
        defer { h.close() }
        let other = try LoopbackServer()
        defer { other.stop() }
        let resource = Resource(size: 100_000, seed: 65)
        other.serve("/moved.bin", resource)
        h.server.serve("/start.bin", Resource(redirect: (302, "http://127.0.0.1:\(other.port)/moved.bin")))
        h.server.serve("/same.bin", Resource(redirect: (302, "/here.bin")))
        h.server.serve("/here.bin", resource)
        var request = h.request(4, "/start.bin")
        request.headers = ["Authorization: Bearer S3CR3T-TOKEN", "Cookie: sid=S3CR3T-COOKIE", "X-Plain: yes"]

        guard case .completed(_, 100_000, _, _) = await h.run(request) else {
            Issue.record("the redirected download did not complete")
            return
        }
        let first = try #require(h.server.requests("/start.bin").first)
        #expect(first.headers["authorization"] == "Bearer S3CR3T-TOKEN")
        #expect(first.headers["cookie"] == "sid=S3CR3T-COOKIE")
        let moved = other.requests("/moved.bin")
        #expect(!moved.isEmpty)
        for r in moved {
            #expect(r.headers["authorization"] == nil)
            #expect(r.headers["cookie"] == nil)
            #expect(r.headers["x-plain"] == "yes")
        }

        // The same origin keeps them: the redirect stays with the site the user gave them for.
        var same = h.request(5, "/same.bin")
        same.headers = request.headers
        guard case .completed(_, 100_000, _, _) = await h.run(same) else {
            Issue.record("the same-origin redirect did not complete")
            return
        }
        #expect(h.server.requests("/here.bin").first?.headers["authorization"] == "Bearer S3CR3T-TOKEN")
    }

    /// LoopbackHTTP answers an absolute-form target (`GET http://host/path`) as a forward proxy does: the host
    /// `files.invalid` cannot be resolved, so the file can only come through the proxy.
    @Test func aProxyCarriesTheRequests() async throws {
        let h = try Harness(config: Harness.fastConfig)
        defer { h.close() }
        let resource = Resource(size: 200_000, seed: 62)
        h.server.serve("/p.bin", resource)
        var request = TransferRequest(id: 2, url: "http://files.invalid/p.bin", directory: h.directory)
        request.proxy = "http://127.0.0.1:\(h.server.port)"

        let event = await h.run(request)

        guard case .completed(_, 200_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.holds(name, resource.body.allBytes))
        #expect(h.server.requests("/p.bin").map(\.path) == ["http://files.invalid/p.bin"])
        #expect(h.server.requests("/p.bin").first?.headers["host"] == "files.invalid")

        var direct = TransferRequest(id: 3, url: "http://files.invalid/p.bin", directory: h.directory)
        direct.proxy = nil
        guard case .failed = await h.run(direct) else {
            Issue.record("a host that cannot be resolved was downloaded without the proxy")
            return
        }
    }

    /// Two transfers under a shared 2 MB/s: the one limited to 500 KB/s keeps to it, the other gets the rest.
    @Test func aTransfersOwnLimitHoldsWithinTheSharedOne() async throws {
        var config = Harness.fastConfig
        config.speedLimit = 2_000_000
        config.connectionsPerTask = 1
        let h = try Harness(config: config)
        defer { h.close() }
        h.server.serve("/slow.bin", Resource(size: 1_500_000, seed: 63))
        h.server.serve("/fast.bin", Resource(size: 4_500_000, seed: 64))
        let samples = Mutex<[(time: Date, slow: Int64, fast: Int64)]>([])
        let updates = h.engine.activityUpdates
        let watcher = Task {
            for await snapshot in updates {
                guard snapshot.count == 2 else { continue }
                let bytes = Dictionary(uniqueKeysWithValues: snapshot.map { ($0.id, $0.bytes) })
                samples.withLock { $0.append((Date(), bytes[1] ?? 0, bytes[2] ?? 0)) }
            }
        }
        var slow = h.request(1, "/slow.bin")
        slow.maxSpeed = 500_000
        h.engine.start(slow)
        h.engine.start(h.request(2, "/fast.bin"))
        _ = await h.events.terminal(1, timeout: 30)
        _ = await h.events.terminal(2, timeout: 30)
        watcher.cancel()

        let steady = samples.withLock { $0 }
        try #require(steady.count >= 5)
        let first = steady[1]
        let last = steady[steady.count - 1]
        let seconds = last.time.timeIntervalSince(first.time)
        let slowRate = Double(last.slow - first.slow) / seconds
        let fastRate = Double(last.fast - first.fast) / seconds
        #expect(slowRate >= 425_000 && slowRate <= 575_000, "\(slowRate) B/s")
        #expect(fastRate >= 1_275_000 && fastRate <= 1_725_000, "\(fastRate) B/s")
    }

    @Test func aTransfersOwnLimitChangesWhileItRuns() async throws {
        let h = try Harness(config: Harness.fastConfig)
        defer { h.close() }
        h.server.serve("/c.bin", Resource(size: 20_000_000, seed: 65))
        var request = h.request(4, "/c.bin")
        request.maxSpeed = 100_000
        h.engine.start(request)
        #expect(await Harness.eventually { h.partialSize(4) > 0 })
        // 20 MB at 100 KB/s would take 200 s.
        h.engine.setSpeedLimit(nil, id: 4)
        guard case .completed(_, 20_000_000, _, _) = await h.events.terminal(4, timeout: 30) else {
            Issue.record("the lifted limit did not reach the running transfer")
            return
        }
    }
}
