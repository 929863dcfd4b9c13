import Foundation
import PostgresSupport
import Testing

@testable import LedgerStore

/// The PostgreSQL store and run lock when the server goes away and comes back (a cluster of the test's own, stopped
/// and started again; the shared one stays up for the other tests).
struct PostgresOutageTests {
    /// While the server is stopped an append fails at once as a connection loss and the store says when it tries
    /// again; once it is back the store reconnects by itself, LISTENs again, re-reads the head, and the chain goes on
    /// without a gap.
    @Test func theStoreReconnectsAfterARestartAndTheChainGoesOn() throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let store = try PostgresEventStore(uri: cluster.ledger("store"))
        try store.setDurability(.facts)
        _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 10)
        let tokenBefore = try store.changeToken()
        #expect(store.outage == nil)

        try cluster.stopServer()
        let started = Date()
        var refused: (any Error)?
        do { _ = try store.append([sampleEvent(2)], expectingHead: 1, time: 11) } catch { refused = error }
        #expect(refused.map(StoreError.isConnectionLoss) == true, "\(String(describing: refused))")
        // The next calls: one try to reconnect (refused by the stopped server), then none before its time.
        for _ in 0..<3 { #expect(throws: StoreError.self) { _ = try store.head() } }
        #expect(Date().timeIntervalSince(started) < 3)
        let outage = try #require(store.outage)
        #expect(outage.nextTry != nil && outage.failedTries >= 1, "\(outage)")
        #expect(!outage.reason.isEmpty)

        try cluster.startServer()
        // Within the backoff's longest wait (5 s) and a bit.
        let deadline = Date().addingTimeInterval(15)
        var head: Int64?
        while head == nil && Date() < deadline {
            head = try? store.append([sampleEvent(2)], expectingHead: 1, time: 11)
            if head == nil { usleep(100_000) }
        }
        #expect(head == 2)
        #expect(store.outage == nil)
        #expect(try store.changeToken() != tokenBefore, "a reconnect changes the token")
        // The new session is set up as the old one was: its schema, and LISTEN (another writer's commit is seen).
        let other = try PostgresEventStore(uri: cluster.ledger("store"))
        let seen = try store.changeToken()
        _ = try other.append([sampleEvent(3)], expectingHead: 2, time: 12)
        var token = seen
        let until = Date().addingTimeInterval(5)
        while token == seen && Date() < until {
            usleep(2000)
            token = try store.changeToken()
        }
        #expect(token != seen)
        _ = try store.append([sampleEvent(4)], expectingHead: 3, time: 13)
        let report = try store.verifyChain()
        #expect(report.isValid && report.rowCount == 4 && report.head == 4, "\(report)")
    }

    /// The run lock's session dies with the server: `ensureHeld` takes the lock again on a new one, unless another
    /// session took it first, then it says so.
    @Test func theRunLockIsTakenAgainAfterARestartUnlessAnotherTookIt() throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let location = try PostgresLocation(cluster.ledger("lock"))
        let lock = try #require(try PostgresRunLock.acquire(location, host: "nas"))
        #expect(try lock.ensureHeld())
        #expect(try PostgresRunLock.acquire(location, host: "nas") == nil)

        try cluster.stopServer()
        #expect(throws: StoreError.self) { try lock.ensureHeld() }
        try cluster.startServer()
        var held: Bool?
        let deadline = Date().addingTimeInterval(15)
        while held == nil && Date() < deadline {
            held = try? lock.ensureHeld()
            if held == nil { usleep(100_000) }
        }
        #expect(held == true)
        #expect(try PostgresRunLock.acquire(location, host: "nas") == nil, "the lock was taken again")

        // Another downloader takes it while this one's session is gone.
        try cluster.stopServer()
        try cluster.startServer()
        let other = try #require(try PostgresRunLock.acquire(location, host: "nas"))
        defer { other.release() }
        #expect(try lock.ensureHeld() == false)
        #expect(try other.ensureHeld())
    }

    @Test func theBackoffDoublesToItsLongestWaitAndStartsOverAfterASuccess() {
        var backoff = ReconnectBackoff()
        let start = ContinuousClock.now
        #expect(backoff.mayTry(at: start))
        var now = start
        var waits: [Duration] = []
        for _ in 0..<7 {
            backoff.failed(at: now)
            let next = try! #require(backoff.nextTry)
            #expect(!backoff.mayTry(at: next - .milliseconds(1)))
            #expect(backoff.mayTry(at: next))
            waits.append(now.duration(to: next))
            now = next
        }
        #expect(
            waits == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5),
                .seconds(5),
            ])
        #expect(backoff.failures == 7)
        backoff.succeeded()
        #expect(backoff.nextTry == nil && backoff.failures == 0 && backoff.mayTry(at: now))
        backoff.failed(at: now)
        #expect(backoff.nextTry == now + .milliseconds(250))
    }
}
