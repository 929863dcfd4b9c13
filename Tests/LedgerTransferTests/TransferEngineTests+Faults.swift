import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

extension TransferEngineTests {
    @Test func retriesTwo503sThenSucceeds() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.failFirst = 2
        faults.failStatus = 503
        let resource = Resource(size: 50_000, seed: 1, faults: faults)
        h.server.serve("/a.bin", resource)

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.events.startedAttempts(1) == [1, 2, 3])
        #expect(h.holds(name, resource.body.allBytes))
        // Each retry is reported with its reason and delay, between the attempts.
        let kinds = h.events.of(1).map { event -> String in
            switch event {
            case .started: "started"
            case .retrying(_, let reason, _, let delay):
                "retrying \(reason.code) \(reason.detail) \(delay > 0)"
            default: "other"
            }
        }
        #expect(
            kinds.filter { $0 != "other" } == [
                "started", "retrying http 503 true", "started", "retrying http 503 true", "started",
            ])
    }

    @Test func waitsForRetryAfterOn429() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.failFirst = 1
        faults.failStatus = 429
        faults.retryAfter = 1
        h.server.serve("/a.bin", Resource(size: 10_000, seed: 1, faults: faults))

        let began = Date()
        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.events.startedAttempts(1) == [1, 2])
        // The backoff alone would be about 20 ms; only Retry-After makes it wait a second.
        #expect(Date().timeIntervalSince(began) >= 0.95)
    }

    @Test func givesUpAfterMaxRetries() async throws {
        var config = Harness.fastConfig
        config.maxRetries = 2
        let h = try Harness(config: config)
        defer { h.close() }
        var faults = Faults()
        faults.failFirst = 10
        faults.failStatus = 500
        h.server.serve("/a.bin", Resource(size: 10_000, seed: 1, faults: faults))

        let event = await h.run(h.request(1, "/a.bin"))

        #expect(event == .failed(id: 1, reason: .http(500), retryable: true, bytes: 0))
        #expect(h.events.startedAttempts(1) == [1, 2, 3])
    }

    @Test func failsA404AtOnceWithoutWritingTheErrorBody() async throws {
        let h = try Harness()
        defer { h.close() }

        let event = await h.run(h.request(1, "/missing.bin"))

        #expect(event == .failed(id: 1, reason: .http(404), retryable: false, bytes: 0))
        #expect(h.events.startedAttempts(1) == [1])
        #expect(h.server.requests("/missing.bin").count == 1)
        #expect(!h.partialExists(1))
        #expect(h.visibleFiles().isEmpty)
    }

    @Test func checksumMismatchLeavesNoFinalFileAndNoPartial() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.serve("/a.bin", Resource(size: 30_000, seed: 1))
        let wrong = String(repeating: "0", count: 64)

        let event = await h.run(h.request(1, "/a.bin", sha256: wrong))

        guard case .failed(_, .checksumMismatch(let expected, _), let retryable, 30_000) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(expected == wrong)
        #expect(!retryable)
        #expect(h.visibleFiles().isEmpty)
        #expect(!h.partialExists(1))
    }

    @Test func cancelsAStalledTransferAndKeepsItsBytes() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.stallAfterBytes = 64_000
        h.server.serve("/a.bin", Resource(size: 1_000_000, seed: 1, faults: faults))

        h.engine.start(h.request(1, "/a.bin"))
        #expect(await Harness.eventually { h.partialSize(1) == 64_000 })
        h.engine.cancel(id: 1)
        let event = await h.events.terminal(1)

        #expect(event == .stopped(id: 1, bytes: 64_000))
        #expect(h.partialSize(1) == 64_000)
        #expect(h.engine.running.isEmpty)
    }

    @Test func failsWithDiskFullOnATinyFileSystem() async throws {
        let h = try Harness()
        defer { h.close() }
        guard getuid() == 0 else {
            print("skipped: mounting a tmpfs needs root")
            return
        }
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=256k", "tmpfs", h.directory]
        mount.standardError = FileHandle.nullDevice
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            print("skipped: cannot mount a tmpfs here")
            return
        }
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [h.directory]
            try? umount.run()
            umount.waitUntilExit()
        }
        h.server.serve("/a.bin", Resource(size: 1_000_000, seed: 1))

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .failed(_, .diskFull, false, let bytes) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(bytes < 1_000_000)
        // The bytes reported are the bytes in the partial file: a chunk cut short by the full disk counts what made it.
        #expect(bytes == 0 ? !h.partialExists(1) : h.partialSize(1) == bytes)
        #expect(h.events.startedAttempts(1) == [1])
        #expect(h.visibleFiles().isEmpty)
    }

    @Test func speedLimitSlowsTransfersAndCanBeLifted() async throws {
        var config = Harness.fastConfig
        config.speedLimit = 1_000_000
        let h = try Harness(config: config)
        defer { h.close() }
        h.server.serve("/a.bin", Resource(size: 750_000, seed: 1))
        h.server.serve("/b.bin", Resource(size: 750_000, seed: 2))
        h.server.serve("/c.bin", Resource(size: 20_000_000, seed: 3))

        let began = Date()
        h.engine.start(h.request(1, "/a.bin"))
        h.engine.start(h.request(2, "/b.bin"))
        _ = await h.events.terminal(1)
        _ = await h.events.terminal(2)
        // 1.5 MB at 1 MB/s shared takes about 1.5 s; unlimited, a few milliseconds. Only a loose lower bound.
        #expect(Date().timeIntervalSince(began) >= 0.9)

        // 20 MB at 100 KB/s would take 200 s: lifting the limit must reach the running transfer.
        h.engine.setSpeedLimit(100_000)
        h.engine.start(h.request(3, "/c.bin"))
        #expect(await Harness.eventually { h.partialSize(3) > 0 })
        h.engine.setSpeedLimit(0)
        let event = await h.events.terminal(3, timeout: 30)
        guard case .completed(_, 20_000_000, _, _) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
    }
}
