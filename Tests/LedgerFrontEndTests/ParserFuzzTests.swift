import DownloadLedger
import FuzzSupport
import Testing

@testable import LedgerFrontEnd

/// The front ends' readers fed damaged and made-up input: `JSONValue(payload:)` (what `log --json` shows of a
/// payload, the payloads of every event kind damaged) either gives nil or a value that renders and reads back
/// equal; the number, size, rate and time readers (docs/cli.md "Numbers and option rules") either throw a one-line
/// ``InputError`` or give a value in their range. Never a trap or a hang.
@Suite struct ParserFuzzTests {
    /// Payloads of every shape an event has: nesting, escapes, non-ASCII, sealed credentials, big numbers.
    static let payloads: [[UInt8]] = {
        var options = TaskOptions()
        options.headers = [
            HeaderField(name: "X-A", value: .plain("a \"b\" \\ é\t")),
            HeaderField(name: "Cookie", value: .sealed(SealedValue(ciphertext: "sealed:v1:3:00:ff"))),
        ]
        options.maxSpeed = Int64.max
        options.mirrors = ["https://m.example/é"]
        let tasks = (1...3).map {
            NewTask(
                id: TaskID($0), url: "https://h.example/\($0)", name: $0 == 2 ? "n\u{1}☃" : nil,
                directory: "/d",
                options: options)
        }
        let events: [Event] = [
            .tasksAdded(tasks: tasks, section: 0, index: 0, newSectionTitle: "A\n"),
            .groupsAdded([TaskGroup(tasks: tasks, section: 1, index: 2, newSectionTitle: nil)]),
            .tasksMoved(ids: [1, 2, Int64.max], section: 0, index: 0),
            .transferFailed(
                id: 1, failure: TaskFailure(code: "http", detail: "HTTP 500 \u{7F}", retryable: true),
                bytes: -1),
            .sectionInserted(index: 0, title: "Vidéos 🎬"),
            .sortChanged(.name, descending: true),
        ]
        return events.map { Entry($0, undoes: 9).encodedPayload() }
    }()

    @Test(.timeLimit(.minutes(5))) func damagedPayloadsParseToNilOrToWhatTheyRender() {
        var m = Mutator(seed: 0x15_0A)
        for i in 0..<Mutator.iterations(4_000) {
            let bytes = m.mutate(Self.payloads[i % Self.payloads.count])
            guard let json = JSONValue(payload: bytes) else { continue }
            for pretty in [false, true] {
                #expect(JSONValue(payload: Array(json.rendered(pretty: pretty).utf8)) == json, "\(bytes)")
            }
        }
        // Nesting far past any payload is refused, not recursed into.
        #expect(JSONValue(payload: Array(String(repeating: "[", count: 100_000).utf8)) == nil)
        #expect(
            JSONValue(
                payload: Array((String(repeating: "[", count: 60) + String(repeating: "]", count: 60)).utf8))
                != nil)
    }

    /// Text made of what these readers look for, and what they must refuse.
    static func text(_ rng: inout SplitMix64) -> String {
        let pieces = [
            "0", "1", "7", "9", "00", "12", "2026", "-", "+", ".", ":", "T", "Z", " ", "K", "M", "G", "T",
            "P", "E",
            "B", "iB", "/s", "k", "e", "e9", "-11-29", "T17:00:00", "+01:00", "99999999999999999999", "٣",
            "１", "½",
            "\u{0}", "é", "nan", "inf", "#",
        ]
        return (0..<1 + rng.below(8)).map { _ in rng.pick(pieces) }.joined()
    }

    @Test(.timeLimit(.minutes(5))) func numbersSizesRatesAndTimesAreInRangeOrRefused() {
        var rng = SplitMix64(seed: 0x7_1E)
        for _ in 0..<Mutator.iterations(4_000) {
            let raw = Self.text(&rng)
            for range in [Numbers.taskID, Numbers.index, Numbers.downloads, Numbers.port, Numbers.time] {
                if let n = try? Numbers.whole(raw, "n", in: range) {
                    #expect(range.contains(n), "\(raw)")
                }
            }
            if let size = try? Format.parseSize(raw) {
                #expect(DownloadList.maxSizeRange.contains(size), "\(raw)")
            }
            if let size = try? Format.parseSplitSize(raw) {
                #expect(TaskOptions.minSplitSizeRange.contains(size), "\(raw)")
            }
            if let rate = try? Format.parseRate(raw) {
                #expect(rate == 0 || Numbers.rate.contains(rate), "\(raw)")
            }
            if let time = try? Format.parseTime(raw) { #expect(Numbers.time.contains(time), "\(raw)") }
            // What they refuse, they refuse with one line (the CLI's usage error, exit 64).
            Self.expectUsage(raw) { () throws(InputError) in _ = try Format.parseSize(raw) }
            Self.expectUsage(raw) { () throws(InputError) in _ = try Format.parseSplitSize(raw) }
            Self.expectUsage(raw) { () throws(InputError) in _ = try Format.parseRate(raw) }
            Self.expectUsage(raw) { () throws(InputError) in _ = try Format.parseTime(raw) }
        }
    }

    static func expectUsage(_ raw: String, _ body: () throws(InputError) -> Void) {
        do {
            try body()
        } catch {
            #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(raw)")
        }
    }
}
