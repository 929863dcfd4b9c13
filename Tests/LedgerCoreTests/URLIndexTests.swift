import Testing

@testable import LedgerCore

/// Folding a logged add trusts it (its duplicates were refused when it was decided) and so never builds the index
/// of every task's URL; the index is built when a new add is decided, and then kept up to date.
@Suite struct URLIndexTests {
    /// `n` URLs of a batch, some written the way a user would type the same URL differently later.
    static func batch(_ b: Int, _ n: Int) -> [String] {
        (0..<n).map { "https://mirror.example.org/pub/b\(b)/file-\($0).iso" }
    }

    /// A history of adds with deletes, restores, undos, redos and a purge, decided step by step.
    static func history() throws -> TestLog {
        var log = TestLog()
        for b in 0..<12 {
            try log.must(.add(urls: batch(b, 40), placement: .end, name: nil, sha256: nil, directory: nil))
        }
        try log.must(
            .add(
                urls: batch(12, 5), placement: .newSection(title: "Late", at: 0), name: nil, sha256: nil,
                directory: nil))
        try log.must(
            .addGroups(
                [
                    AddGroup(urls: batch(14, 4), placement: .titled("Grouped")),
                    AddGroup(urls: batch(15, 4) + batch(0, 2), placement: .end),
                ], directory: nil))
        try log.must(.delete(.tasks([3, 4, 5]), mode: .all))
        try log.must(.restore([4], to: nil))
        try log.must(.undo)
        try log.must(.redo)
        try log.must(.purge([3]))
        try log.must(.add(urls: batch(13, 30), placement: .end, name: nil, sha256: nil, directory: nil))
        try log.must(.undo)
        return log
    }

    @Test func aListFoldedThroughManyAddsEqualsTheOneDecidedStepByStep() throws {
        let log = try Self.history()
        var folded = DownloadList()
        for e in log.entries { folded.apply(e) }
        #expect(!folded.urls.isBuilt, "folding logged adds built the URL index")
        #expect(log.list.urls.isBuilt)
        #expect(folded == log.list)
        #expect(folded.urlIndex == log.list.urlIndex)
        #expect(folded.urlIndex.count == folded.tasks.count)
        // Built on first use, the folded list's index refuses what the decided list refuses, by identity.
        let typedAgain = [
            "HTTPS://MIRROR.example.org:443/pub/b0/file-7.iso",
            "https://mirror.example.org/pub/b12/file-1.iso",
            "https://mirror.example.org/pub/b0/file-4.iso",
        ]
        for url in typedAgain {
            let command = Command.add(urls: [url], placement: .end, name: nil, sha256: nil, directory: nil)
            let a = (log.error(of: command) as? NothingAdded)?.description
            let b = #expect(throws: NothingAdded.self) { try folded.decide(command) }?.description
            #expect(a != nil)
            #expect(a == b, "\(url)")
        }
        // The undone add took its URLs away, and the purge its task's: they may be added again, on both.
        let back = Command.add(
            urls: Self.batch(13, 3) + ["https://mirror.example.org/pub/b0/file-2.iso"], placement: .end,
            name: nil, sha256: nil, directory: nil)
        #expect(try log.list.decide(back).added.count == 4)
        #expect(try log.list.decide(back).added == folded.decide(back).added)
    }

    @Test func anIndexBuiltBeforeAFoldIsKeptUpToDateByIt() throws {
        let log = try Self.history()
        var folded = DownloadList()
        for e in log.entries.prefix(4) { folded.apply(e) }
        #expect(folded.task(withURL: Self.batch(0, 1)[0]) == 1)
        #expect(folded.urls.isBuilt)
        // A copy made now shares the built index; its own fold must not change what the original sees.
        let early = folded
        for e in log.entries.dropFirst(4) { folded.apply(e) }
        #expect(folded.urlIndex == log.list.urlIndex)
        #expect(early.task(withURL: Self.batch(12, 1)[0]) == nil)
        #expect(folded.task(withURL: Self.batch(12, 1)[0]) != nil)
        #expect(early.urlIndex.count == early.tasks.count)
    }

    /// A damaged or foreign log whose adds repeat a URL: both tasks are folded as logged; the index names the
    /// lower id, a new add of that URL is still refused, and taking one of them away leaves the other indexed.
    @Test(arguments: [false, true])
    func aLoggedAddRepeatingAURLIsFoldedAsLoggedAndTheIndexStaysTrue(builtFirst: Bool) throws {
        var log = TestLog()
        log.add(u("a"), u("b"))
        if builtFirst { #expect(log.list.task(withURL: u("a")) == 1) }
        log.append(
            Entry(
                .tasksAdded(
                    tasks: [NewTask(id: 3, url: "HTTPS://EXAMPLE.COM:443/a", directory: "/dl")], section: 0,
                    index: 0, newSectionTitle: nil)))
        #expect(log.list.tasks.count == 3)
        #expect(log.list.task(withURL: u("a")) == 1)
        #expect(
            (log.error(of: .add(urls: [u("a")], placement: .end, name: nil, sha256: nil, directory: nil))
                as? NothingAdded)?.description == "nothing added: \(u("a")): duplicate of task #1")
        // Undo of the first add takes tasks 1 and 2 away: task 3 still holds the URL.
        log.append(Entry(.tasksRemoved(ids: [1, 2], removingSections: [])))
        #expect(log.list.task(withURL: u("a")) == 3)
        #expect(log.list.task(withURL: u("b")) == nil)
        var folded = DownloadList()
        for e in log.entries { folded.apply(e) }
        #expect(folded.urlIndex == log.list.urlIndex)
    }
}
