import Foundation
import Glibc
import Testing

@testable import DownloadLedger

/// The activity board as a file: what a downloader publishes is what another process reads, only while that
/// downloader holds the run lock, and nothing a tampered or planted file holds is trusted or followed.
@Suite struct ActivityBoardTests {
    /// A folder with a ledger path whose run lock this process holds, as `dledger run` holds it.
    final class LockedLedger {
        let folder: String
        let path: String
        private var lock: Int32 = -1

        init() throws {
            folder = FileManager.default.temporaryDirectory.path + "/board-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            path = folder + "/ledger.sqlite"
        }

        func holdLock() {
            lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            _ = flock(lock, LOCK_EX)
            let pid = Array("\(getpid())\n".utf8)
            _ = pwrite(lock, pid, pid.count, 0)
        }

        func releaseLock() {
            guard lock >= 0 else { return }
            flock(lock, LOCK_UN)
            close(lock)
            lock = -1
        }

        deinit {
            releaseLock()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static func sample() -> [TransferActivity] {
        var split = TransferActivity(id: 3, bytes: 3_200_000, expected: 5_200_000, speed: 812_345.6, eta: 2.4)
        split.kept = 2_900_000
        split.connections = 8
        var waiting = TransferActivity(id: 9, bytes: 171_000, expected: nil, speed: 0, eta: nil)
        waiting.retry = RetryWait(
            attempt: 3, of: 6, at: 1_800_000_000.25, code: "http", detail: "500")
        var held = TransferActivity(id: 12, bytes: 10, expected: 10, speed: 0, eta: nil)
        held.held = true
        return [split, waiting, held]
    }

    @Test func whatIsPublishedIsReadWhileThePublisherHoldsTheRunLock() throws {
        let ledger = try LockedLedger()
        let board = FileActivityBoard(ledgerPath: ledger.path)
        ledger.holdLock()
        try board.publish(Self.sample())
        let read = try #require(board.read())
        #expect(read.map(\.id) == [3, 9, 12])
        #expect(read[0].bytes == 3_200_000 && read[0].kept == 2_900_000 && read[0].expected == 5_200_000)
        #expect(read[0].connections == 8 && Int64(read[0].speed) == 812_345)
        #expect(
            read[1].retry == RetryWait(attempt: 3, of: 6, at: 1_800_000_000.25, code: "http", detail: "500"))
        #expect(
            read[1].retry?.line(now: 1_800_000_000.25 - 1.5)
                == "retrying in 2 s (attempt 3 of 6): the server answered HTTP 500 (Internal Server Error)")
        #expect(read[2].held && read[2].retry == nil)
        // Created for its owner alone.
        var info = stat()
        #expect(lstat(board.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // The writer gone (its lock released, as the kernel does on kill -9): the file left is not believed.
        ledger.releaseLock()
        #expect(FileManager.default.fileExists(atPath: board.path))
        #expect(board.read() == nil)
        // A clean exit withdraws it.
        board.withdraw()
        #expect(!FileManager.default.fileExists(atPath: board.path))
    }

    /// A writer alive that stopped publishing (its publishes fail: a full disk) leaves a snapshot that ages: past
    /// ``ActivityRecord/maxAgeMs`` its running transfers are not believed (readers show the log's and the partial
    /// files' figures), while a snapshot that says nothing runs is believed at any age.
    @Test func aSnapshotOfRunningTransfersIsBelievedOnlyWhileFresh() throws {
        let ledger = try LockedLedger()
        let board = FileActivityBoard(ledgerPath: ledger.path)
        ledger.holdLock()
        let now = Int64((RetryWait.wallClock() * 1000).rounded())
        func write(writtenMs: Int64, _ activity: [TransferActivity]) throws {
            let record = ActivityRecord(pid: getpid(), writtenMs: writtenMs, activity: activity)
            try Data(record.encoded()).write(to: URL(fileURLWithPath: board.path))
        }
        try write(writtenMs: now - 2_000, Self.sample())
        #expect(board.read()?.map(\.id) == [3, 9, 12])
        try write(writtenMs: now - ActivityRecord.maxAgeMs - 2_000, Self.sample())
        #expect(board.read() == nil)
        try write(writtenMs: now - 3_600_000, [])
        #expect(board.read() == [])
        // A clock that went back: the snapshot seems to come from the future, and is believed.
        try write(writtenMs: now + 60_000, Self.sample())
        #expect(board.read()?.count == 3)
        // A publish writes the time of now.
        try board.publish(Self.sample())
        #expect(board.read()?.count == 3)
    }

    @Test func aRecordNeverCarriesAURLOrALogin() throws {
        var a = TransferActivity(id: 1, bytes: 5, expected: 9, speed: 1, eta: nil)
        a.retry = RetryWait(
            attempt: 2, of: 6, at: 1, code: "connection",
            detail: "Failed to connect to https://user:secret@example.org/a")
        let text = String(
            decoding: ActivityRecord(pid: 1, writtenMs: 1, activity: [a]).encoded(), as: UTF8.self)
        #expect(!text.contains("secret") && !text.contains("example.org"), "\(text)")
        let b = RetryWait(attempt: 2, of: nil, at: 1, code: "timeout", detail: "a\tb\nc")
        #expect(b.detail == "a b c")
    }

    @Test func linksAtTheBoardOrItsTemporaryNameAreNeverFollowed() throws {
        let ledger = try LockedLedger()
        ledger.holdLock()
        let board = FileActivityBoard(ledgerPath: ledger.path)
        let victim = ledger.folder + "/victim"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        // A link where the writer makes its temporary file: replaced, the victim untouched.
        #expect(symlink(victim, ledger.path + "-activity.new") == 0)
        try board.publish(Self.sample())
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        var info = stat()
        #expect(lstat(board.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        // A link planted at the board: a reader does not follow it, even to a well-formed record.
        let elsewhere = ledger.folder + "/elsewhere"
        #expect(rename(board.path, elsewhere) == 0)
        #expect(symlink(elsewhere, board.path) == 0)
        #expect(board.read() == nil)
        // The next publish replaces the link itself, not what it points to.
        try board.publish([])
        #expect(lstat(board.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(board.read() == [])
        #expect(FileActivityBoard(ledgerPath: ledger.folder + "/nothing.sqlite").read() == nil)
    }

    /// Whatever the engine hands over (a size below the bytes, a speed that is not finite, a retry counted past
    /// its last attempt, a code with spaces), the record written is one a reader accepts: a board never goes dark.
    @Test func everySnapshotIsWrittenAsARecordAReaderAccepts() throws {
        var odd = TransferActivity(id: 4, bytes: 900, expected: 500, speed: .infinity, eta: nil)
        odd.kept = 2_000
        odd.connections = 70_000
        odd.retry = RetryWait(attempt: 9, of: 3, at: .nan, code: "not a word", detail: "x\ty")
        var negative = TransferActivity(id: 5, bytes: -3, expected: nil, speed: -.infinity, eta: nil)
        negative.retry = RetryWait(attempt: 0, of: nil, at: -5, code: "", detail: "")
        let record = ActivityRecord(pid: 7, writtenMs: 1, activity: Self.sample() + [odd, negative])
        let read = try #require(ActivityRecord.decode(record.encoded()))
        #expect(read.activity.map(\.id) == [3, 9, 12, 4, 5])
        #expect(
            read.activity[3].expected == nil && read.activity[3].kept == 900
                && read.activity[3].connections == 1024)
        #expect(read.activity[3].retry?.of == nil && read.activity[3].retry?.code == "unknown")
        #expect(read.activity[4].bytes == 0 && read.activity[4].retry?.attempt == 1)
    }

    @Test func malformedRecordsAreRefusedWhole() {
        let pid = "\(getpid())"
        let bad = [
            "", "dledger-activity 2\n\(pid)\t1\n", "dledger-activity 1\n\(pid)\t1",
            "dledger-activity 1\n-1\t1\n", "dledger-activity 1\n\(pid)\n",
            // kept beyond received, received beyond the size, an id twice, a negative or huge figure
            "dledger-activity 1\n\(pid)\t1\n1\t5\t6\t9\t0\t1\t0\n",
            "dledger-activity 1\n\(pid)\t1\n1\t10\t5\t9\t0\t1\t0\n",
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t0\n1\t5\t5\t9\t0\t1\t0\n",
            "dledger-activity 1\n\(pid)\t1\n1\t-5\t0\t9\t0\t1\t0\n",
            "dledger-activity 1\n\(pid)\t1\n1\t99999999999999999999\t0\t-\t0\t1\t0\n",
            "dledger-activity 1\n\(pid)\t1\n0\t5\t5\t9\t0\t1\t0\n",
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t5000\t0\n",
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t2\n",
            // a retry counted past its last attempt, or with a code that is not a word
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t0\t7\t6\t1\thttp\t500\n",
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t0\t0\t6\t1\thttp\t500\n",
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t0\t2\t6\t1\th p\t500\n",
            "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t0\t2\t6\t1\thttp\n",
        ]
        for text in bad {
            #expect(ActivityRecord.decode(Array(text.utf8)) == nil, "\(text.debugDescription)")
        }
        #expect(ActivityRecord.decode([0xFF, 0xFE, 0x00]) == nil)
        #expect(ActivityRecord.decode([UInt8](repeating: 10, count: ActivityRecord.maxBytes + 1)) == nil)
        let good = "dledger-activity 1\n\(pid)\t1\n1\t5\t5\t9\t0\t1\t0\t2\t-\t1\ttooManyOpenFiles\t\n"
        #expect(ActivityRecord.decode(Array(good.utf8))?.activity.first?.retry?.of == nil)
    }

    /// Seeded mutations of a well-formed record (bytes flipped, cut, repeated, digits changed): the reader never
    /// traps, and whatever it accepts keeps its promises (kept ≤ received ≤ size, ids once each).
    @Test func theReaderSurvivesMutatedRecords() {
        let valid = ActivityRecord(pid: getpid(), writtenMs: 1_700_000_000_000, activity: Self.sample())
            .encoded()
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(max(bound, 1)))
        }
        let alphabet = Array("0123456789-\t\n dledgr-activy".utf8) + [0, 0xFF, 0xC3]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<(1 + next(4)) {
                switch next(5) {
                case 0 where !bytes.isEmpty: bytes[next(bytes.count)] = alphabet[next(alphabet.count)]
                case 1 where !bytes.isEmpty: bytes.remove(at: next(bytes.count))
                case 2: bytes.insert(alphabet[next(alphabet.count)], at: next(bytes.count + 1))
                case 3 where bytes.count > 2:
                    let at = next(bytes.count - 1)
                    bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + next(40))], at: at)
                default: bytes = Array(bytes.prefix(next(bytes.count + 1)))
                }
            }
            guard let record = ActivityRecord.decode(bytes) else { continue }
            accepted += 1
            #expect(Set(record.activity.map(\.id)).count == record.activity.count)
            for a in record.activity {
                #expect(a.id > 0 && a.kept >= 0 && a.kept <= a.bytes && a.bytes <= (a.expected ?? .max))
                #expect(a.retry.map { $0.attempt >= 1 && ($0.of ?? .max) >= $0.attempt } ?? true)
            }
        }
        // Some mutations keep a record well formed (a digit for a digit): the checks above did run.
        #expect(accepted > 0)
    }
}
