import DownloadLedger
import Foundation
import Testing

/// The ledger's change notification, which the scheduler and `serve`'s RPC notifications follow: a command
/// through the same ledger is announced at once; another process's change when the file is next looked at, by one
/// look for all the followers.
@Suite struct LedgerChangesTests {
    @Test(.timeLimit(.minutes(1))) func aCommandThroughTheLedgerIsAnnouncedWithoutWaitingForThePoll()
        async throws
    {
        let box = try Sandbox()
        let ledger = try box.ledger()
        // A poll an hour away: only the announcement can bring the new head.
        var heads = ledger.headChanges(pollInterval: .seconds(3600)).makeAsyncIterator()
        let first = await heads.next()
        #expect(first == ledger.list.head)
        try ledger.add(["https://example.com/a"])
        let next = await heads.next()
        #expect(next == ledger.list.head && next! > first!)
    }

    @Test(.timeLimit(.minutes(1))) func anotherProcessesChangeReachesEveryFollowerByTheOnePoll() async throws
    {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let other = try Ledger(path: box.ledgerPath)
        // One follower asks for an hourly look, the other for a quick one: the quick look serves both.
        var slow = ledger.headChanges(pollInterval: .seconds(3600)).makeAsyncIterator()
        var lists = ledger.changes(pollInterval: .milliseconds(20)).makeAsyncIterator()
        _ = await slow.next()
        _ = await lists.next()
        try other.add(["https://example.com/x"])
        let head = try #require(await slow.next())
        var list = await lists.next()
        while let l = list, l.head < head { list = await lists.next() }
        #expect(head == other.list.head)
        #expect(list?.tasks[1]?.url == "https://example.com/x")
    }
}
