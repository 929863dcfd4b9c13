import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// The library example of README.md, run against a temporary ledger and LoopbackHTTP: if the README drifts from
/// the API, this stops compiling or fails.
@Test func readmeLibraryExampleRuns() async throws {
    let box = try Sandbox()
    let server = try LoopbackServer()
    server.serve("/a.iso", Resource(size: 50_000, seed: 1))
    server.serve("/b.iso", Resource(size: 60_000, seed: 2))

    let ledger = try Ledger(path: box.ledgerPath, creatingWithDirectory: box.downloads)
    let added = try ledger.execute(
        .add(
            urls: [server.url("/a.iso"), server.url("/b.iso")], placement: .titled("ISOs"), name: nil,
            sha256: nil,
            directory: nil))
    #expect(added.decision.added == [1, 2])
    #expect(added.decision.skipped.isEmpty)
    try ledger.execute(.move([2], to: Location(section: 0, index: 0)))
    try ledger.execute(.undo)
    #expect(ledger.list.sections[0].tasks == [1, 2])

    let list = ledger.list
    let bySize = list.view(sort: .size, filter: .unfinished, now: ledger.now())
    #expect(bySize.flatMap(\.tasks).count == 2)
    let before = try ledger.replay(through: 3)
    #expect(before.sections.map(\.title) == ["ISOs"])
    #expect(try ledger.audit(1).first?.entry.event.kind == "tasksAdded")

    let outcomes = ledger.outcomes()  // every download that ends from now on
    let saving = Task {
        var saved: [String] = []
        for await outcome in outcomes {
            switch outcome.result {
            case .finished(let path): saved.append(path)
            case .failed(let failure): Issue.record("\(outcome.url) failed: \(failure.detail)")
            }
            if saved.count == 2 { break }
        }
        return saved
    }
    let scheduler = try Scheduler(ledger: ledger)
    try await scheduler.run(untilIdle: true)
    #expect(ledger.list.tasks.values.allSatisfy { $0.state == .finished })
    #expect(await saving.value.sorted() == [box.downloads + "/a.iso", box.downloads + "/b.iso"])
    let info = try ledger.info(ofTask: 1)
    #expect(info.file == .onDisk(path: box.downloads + "/a.iso"))
    let report = try ledger.verify(checksums: true)
    #expect(report.isValid, "\(report.problems)")
}
