import Testing

@testable import DownloadLedger

/// After an outage, facts an append committed although its answer was lost are found in the log, not appended twice.
struct LoggedPrefixTests {
    @Test func factsAlreadyInTheLogAreFoundInARowAfterTheHeadBeforeTheAppend() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.add(["https://example.com/a.iso", "https://example.com/b.iso"])
        let before = ledger.list.head
        let committed: [Event] = [
            .transferStarted(id: 1, attempt: 1, offset: 0), .transferStarted(id: 2, attempt: 1, offset: 0),
        ]
        try ledger.record(committed)
        // Another writer's command after them.
        try ledger.execute(.pause(.tasks([2])))
        let later: Event = .transferPaused(id: 1, bytes: 5)
        #expect(try ledger.loggedPrefix(of: committed + [later], after: before) == 2)
        // From a head after them, or facts never appended: nothing is found.
        #expect(try ledger.loggedPrefix(of: committed, after: before + 2) == 0)
        #expect(try ledger.loggedPrefix(of: [later] + committed, after: before) == 0)
        // Only a run in the log's order counts: the second alone is found, not the two swapped.
        #expect(try ledger.loggedPrefix(of: [committed[1], committed[0]], after: before) == 1)
    }
}
