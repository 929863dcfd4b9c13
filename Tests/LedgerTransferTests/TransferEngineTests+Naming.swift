import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

extension TransferEngineTests {
    @Test(arguments: [
        ("attachment; filename=\"../../x\"", "x"),
        ("attachment; filename=\"/etc/passwd\"", "passwd"),
        ("attachment; filename=\"a/b\"", "b"),
        ("attachment; filename=\"..\\\\..\\\\win.ini\"", "win.ini"),
        ("attachment; filename=\"..\"", "file.bin"),
        ("attachment; filename=\"bad\u{01}\u{7F}name.txt\"", "badname.txt"),
        ("attachment; filename=\".bashrc\"", "bashrc"),
        ("attachment; filename*=UTF-8''..%2F..%2Fr%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
    ])
    func keepsServerNamesInsideTheDirectory(disposition: String, expected: String) async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 1000, seed: 1, contentDisposition: disposition)
        h.server.serve("/file.bin", resource)

        let event = await h.run(h.request(1, "/file.bin"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(name == expected)
        #expect(h.holds(expected, resource.body.allBytes))
        #expect(h.visibleFiles() == [expected])
        let outside = try FileManager.default.contentsOfDirectory(atPath: h.root)
        #expect(outside == ["downloads"])
    }

    @Test func prefersTheUsersNameAndSanitizesIt() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.serve(
            "/file.bin", Resource(size: 1000, seed: 1, contentDisposition: "attachment; filename=s.bin"))

        let event = await h.run(h.request(1, "/file.bin", name: "../mine.dat"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(name == "mine.dat")
        #expect(h.visibleFiles() == ["mine.dat"])
    }

    @Test func neverOverwritesAnExistingFile() async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 5000, seed: 1)
        h.server.serve("/a.tar.gz", resource)
        let mine = Array("mine".utf8)
        try Data(mine).write(to: URL(fileURLWithPath: h.directory + "/a.tar.gz"))

        let first = await h.run(h.request(1, "/a.tar.gz"))
        let second = await h.run(h.request(2, "/a.tar.gz"))

        guard case .completed(_, _, _, let one) = first, case .completed(_, _, _, let two) = second else {
            Issue.record("ended with \(String(describing: first)), \(String(describing: second))")
            return
        }
        #expect(one == "a (1).tar.gz")
        #expect(two == "a (2).tar.gz")
        #expect(h.holds("a.tar.gz", mine))
        #expect(h.holds(one, resource.body.allBytes))
        #expect(h.holds(two, resource.body.allBytes))
    }

    @Test func fallsBackToDownloadWithoutAnyName() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.serve("/", Resource(size: 100, seed: 1))

        let event = await h.run(h.request(1, "/"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(name == "download")
    }
}

extension TransferEngineTests {
    /// A planted `.dledger` (or `.dledger/partial`) that is a symbolic link would send the bytes elsewhere: the
    /// transfer fails, and nothing is written through the link.
    @Test(arguments: [".dledger", ".dledger/partial"])
    func refusesAHiddenFolderThatIsASymbolicLink(planted: String) async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.serve("/file.bin", Resource(size: 1000, seed: 1))
        let elsewhere = h.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        if planted == ".dledger/partial" {
            try FileManager.default.createDirectory(
                atPath: h.directory + "/.dledger", withIntermediateDirectories: false)
        }
        try FileManager.default.createSymbolicLink(
            atPath: h.directory + "/" + planted, withDestinationPath: elsewhere)

        let event = await h.run(h.request(1, "/file.bin"))

        guard case .failed(_, .fileSystem(let detail), false, 0) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(detail.hasSuffix("is a symbolic link or not a folder: refusing to use it"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        #expect(h.visibleFiles() == [])
    }

    /// The download directory itself may be a symbolic link to a real one: the user chose it.
    @Test func downloadsIntoADirectoryThatIsASymbolicLink() async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 3000, seed: 4)
        h.server.serve("/file.bin", resource)
        let link = h.root + "/linked"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: h.directory)
        let request = TransferRequest(id: 1, url: h.server.url("/file.bin"), directory: link)

        let event = await h.run(request)

        guard case .completed(_, 3000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(name == "file.bin")
        #expect(h.holds("file.bin", resource.body.allBytes))
    }
}

extension TransferEngineTests {
    /// A finished file is readable as any new file is (0666 less the umask, what curl gives it), not private.
    @Test func aFinishedFileGetsTheModeOfANewFile() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.serve("/file.bin", Resource(size: 2000, seed: 3))

        let event = await h.run(h.request(1, "/file.bin"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        // The umask as the kernel reports it: umask(2) cannot read it without setting it for every thread.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8))
        var info = stat()
        #expect(stat(h.directory + "/" + name, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o666 & ~mask)
        #expect(stat(h.directory + "/.dledger", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }
}

extension TransferEngineTests {
    /// The file is placed through the folders it was downloaded in, not through the path looked up again: a
    /// download directory moved away while the file downloads, and a link put at its old path to another folder,
    /// send nothing there; the file lands, whole, beside its partial in the moved folder.
    @Test func aFileIsPlacedInTheFolderItWasDownloadedIn() async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 60_000, seed: 6, faults: Faults(throttleBytesPerSecond: 100_000))
        h.server.serve("/file.bin", resource)
        let elsewhere = h.root + "/elsewhere"
        // A real `.dledger/partial` there: a placement that looked the path up again would find folders to use.
        try FileManager.default.createDirectory(
            atPath: elsewhere + "/.dledger/partial", withIntermediateDirectories: true)
        let moved = h.root + "/moved"

        h.engine.start(h.request(1, "/file.bin"))
        #expect(await Harness.eventually { h.engine.activity().first.map { $0.bytes > 0 } ?? false })
        try FileManager.default.moveItem(atPath: h.directory, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: h.directory, withDestinationPath: elsewhere)
        let event = await h.events.terminal(1)

        guard case .completed(_, 60_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(name == "file.bin")
        #expect(FileManager.default.contents(atPath: moved + "/file.bin") == Data(resource.body.allBytes))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere) == [".dledger"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere + "/.dledger/partial").isEmpty)
    }
}
