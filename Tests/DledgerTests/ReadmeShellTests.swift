import Foundation
import LoopbackHTTP
import PostgresSupport
import TestSupport
import Testing

/// README.md's shell examples, run as a user would paste them (docs/testing.md, "The README's examples"): every
/// ```sh block marked `<!-- readme-test -->` runs, block after block, in one sandbox home against LoopbackHTTP
/// (the README's `https://example.com` is the server, its `/home/me` the sandbox's home, which is also the current
/// directory), each line with the built `dledger` first on PATH. Every
/// line must exit 0, and the `# → text` lines after it must appear in its output, in order. A block that cannot
/// run here (a terminal, a service, a release build) says why in `<!-- readme-test: skip (why) -->`; a block
/// with neither marker fails the test, so none escapes unnoticed.
@Suite(.serialized) struct ReadmeShellTests {
    /// The example host of README.md, replaced by the LoopbackHTTP server's address.
    static let exampleHost = "https://example.com"
    /// The example home of README.md, replaced by the sandbox's.
    static let exampleHome = "/home/me"
    static let readme = ScriptRun.root + "/README.md"

    enum Marker: Equatable {
        case run
        case skip(reason: String)
        /// The `ci:commands` block, which .ci/run runs.
        case ci
    }

    struct Block {
        var line: Int
        var marker: Marker?
        var lines: [(number: Int, text: String)]
    }

    /// One command of a block and the output lines it must print.
    struct Step {
        var line: Int
        var command: String
        var expected: [String] = []
    }

    /// The ```sh blocks of `text`, each with the marker on the last non-empty line before it (if any).
    static func blocks(_ text: String) -> [Block] {
        var result: [Block] = []
        var previous = ""
        var current: Block?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if var block = current {
                if line.hasPrefix("```") {
                    result.append(block)
                    current = nil
                    previous = line
                } else {
                    block.lines.append((index + 1, line))
                    current = block
                }
                continue
            }
            if line == "```sh" {
                current = Block(line: index + 1, marker: marker(previous), lines: [])
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                previous = line
            }
        }
        return result
    }

    static func marker(_ line: String) -> Marker? {
        if line == "<!-- readme-test -->" { return .run }
        if line.hasPrefix("<!-- ci:commands") { return .ci }
        let skip = "<!-- readme-test: skip ("
        if line.hasPrefix(skip), line.hasSuffix(") -->") {
            let reason = line.dropFirst(skip.count).dropLast(") -->".count)
            return reason.isEmpty ? nil : .skip(reason: String(reason))
        }
        return nil
    }

    /// The commands of a block: a line that is not a comment is a command (its trailing `# comment` removed);
    /// `# → text` lines after it are what it must print.
    static func steps(_ block: Block) -> [Step] {
        var steps: [Step] = []
        for (number, raw) in block.lines {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("# → ") {
                if !steps.isEmpty {
                    steps[steps.count - 1].expected.append(String(line.dropFirst("# → ".count)))
                }
            } else if !line.isEmpty && !line.hasPrefix("#") {
                steps.append(Step(line: number, command: withoutComment(line)))
            }
        }
        return steps
    }

    /// `line` without a shell comment: a `#` that starts a word outside quotes, and what follows it.
    static func withoutComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        var kept = ""
        for c in line {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "#" && previous.isWhitespace {
                break
            }
            kept.append(c)
            previous = c
        }
        return kept.trimmingCharacters(in: .whitespaces)
    }

    /// Every path of the example host that `blocks` name, in order of appearance, once each.
    static func paths(_ blocks: [Block]) -> [String] {
        var seen: [String] = []
        let pattern = try! NSRegularExpression(pattern: ##"https://example\.com(/[^\s'"#]*)"##)
        for block in blocks {
            for (_, line) in block.lines {
                let range = NSRange(line.startIndex..., in: line)
                for match in pattern.matches(in: line, range: range) {
                    if let r = Range(match.range(at: 1), in: line), !seen.contains(String(line[r])) {
                        seen.append(String(line[r]))
                    }
                }
            }
        }
        return seen
    }

    /// A sandbox home where a user follows the README: `dledger` on PATH is the built one, HOME is fresh and none
    /// of the XDG or dledger variables of the test's own environment leak in; `ledger`, when given, is exported as
    /// `$DLEDGER_LEDGER` (a user who keeps the list in PostgreSQL), and `secret` must never be printed.
    final class Shell: @unchecked Sendable {
        let folder: TemporaryDirectory
        let ledger: String?
        let secret: String?
        var home: String { folder.path + "/home" }

        init(ledger: String? = nil, secret: String? = nil) throws {
            self.ledger = ledger
            self.secret = secret
            folder = try TemporaryDirectory(prefix: "dledger-readme-", subfolders: ["home", "bin"])
            try FileManager.default.createSymbolicLink(
                atPath: folder.path + "/bin/dledger", withDestinationPath: DledgerSandbox.binary)
        }

        /// Runs one line with bash, in the home folder (as a new terminal would), to its end; its output is stdout
        /// and stderr together.
        func run(_ line: String) async throws -> Finished {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            // stderr joins stdout, in the order written, as a terminal shows them.
            p.arguments = ["-c", "exec 2>&1\n" + line]
            var environment = ProcessInfo.processInfo.environment
            for name in environment.keys where name.hasPrefix("XDG_") || name.hasPrefix("DLEDGER_") {
                environment[name] = nil
            }
            environment["HOME"] = home
            environment["DLEDGER_LEDGER"] = ledger
            environment["TMPDIR"] = folder.path
            environment["NO_COLOR"] = "1"
            environment["PATH"] = folder.path + "/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
            p.environment = environment
            p.currentDirectoryURL = URL(fileURLWithPath: home)
            let finished = await (try Running(p, stdin: nil)).wait()
            if let secret {
                #expect(!(finished.out + finished.err).contains(secret), "`\(line)` printed the password")
            }
            return finished
        }
    }

    /// Runs `steps` in `shell` with the example host replaced by `base` and the example home by the shell's (after
    /// the `replacing` pairs, first); records an issue for each line that fails or does not print what it shows.
    /// Returns the number of problems.
    @discardableResult
    static func run(
        _ steps: [Step], in shell: Shell, base: String, replacing: [(String, String)] = []
    ) async throws -> Int {
        var problems = 0
        for step in steps {
            func real(_ text: String) -> String {
                replacing.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
                    .replacingOccurrences(of: exampleHost, with: base)
                    .replacingOccurrences(of: exampleHome, with: shell.home)
            }
            let command = real(step.command)
            let finished = try await shell.run(command)
            let output = (finished.out + finished.err).split(separator: "\n").map(String.init)
            var problem: String?
            if finished.status != 0 {
                problem = "exited \(finished.status)"
            } else {
                var rest = output[...]
                for expected in step.expected {
                    let wanted = real(expected)
                    guard let at = rest.firstIndex(where: { $0.contains(wanted) }) else {
                        problem = "did not print \"\(wanted)\" (in order)"
                        break
                    }
                    rest = rest[(at + 1)...]
                }
            }
            if let problem {
                problems += 1
                Issue.record(
                    "README.md line \(step.line): `\(step.command)` \(problem):\n\(finished.out)\(finished.err)"
                )
            }
        }
        return problems
    }

    @Test func everyShellBlockIsMarkedRunOrSkipWithAReason() throws {
        let blocks = Self.blocks(try String(contentsOfFile: Self.readme, encoding: .utf8))
        #expect(!blocks.isEmpty)
        for block in blocks where block.marker == nil {
            let needs = "<!-- readme-test --> before it, or <!-- readme-test: skip (why) -->"
            Issue.record("README.md line \(block.line): a ```sh block needs \(needs)")
        }
        // The tour and the files section run: at least three blocks, each with commands and expected output.
        let running = blocks.filter { $0.marker == .run }
        #expect(running.count >= 3)
        for block in running {
            let steps = Self.steps(block)
            #expect(!steps.isEmpty, "README.md line \(block.line): a marked block without a command")
            #expect(steps.contains { !$0.expected.isEmpty }, "README.md line \(block.line): no `# → ` line")
        }
    }

    @Test(.enabled(if: ScriptRun.which("sqlite3") != nil, "the README reads the log with the sqlite3 shell"))
    func theReadmesShellExamplesRunAsShown() async throws {
        try await Self.runExamples(in: try Shell())
    }

    /// The same examples by a user whose list is in PostgreSQL (`$DLEDGER_LEDGER` a fresh ledger's URI, with a
    /// password no line may print): every line prints what the README shows, but where it names the ledger's
    /// location, which is then the URI with its password masked. The lines that open the SQLite file with the
    /// sqlite3 shell do not run: there is no file (docs/testing.md).
    @Test func theReadmesShellExamplesRunAsShownOnAPostgresLedger() async throws {
        let password = "readme-pw-93b4"
        let uri = try PostgresTestCluster.freshLedger("readme") + "&password=" + password
        let shown = uri.replacingOccurrences(of: "password=" + password, with: "password=***")
        let shell = try Shell(ledger: uri, secret: password)
        let file = Self.exampleHome + "/.local/share/dledger/ledger.sqlite"
        let ran = try await Self.runExamples(in: shell, replacing: [(file, shown)]) {
            !$0.command.hasPrefix("sqlite3 ")
        }
        #expect(
            ran.contains { $0.contains("dledger stats") } && ran.contains { $0.hasPrefix("dledger backup") })
        #expect(!FileManager.default.fileExists(atPath: shell.home + "/.local/share/dledger/ledger.sqlite"))
    }

    /// Runs the marked blocks' steps that `keep` keeps in `shell`, against a LoopbackHTTP server that serves every
    /// path they name; returns the commands run.
    @discardableResult
    static func runExamples(
        in shell: Shell, replacing: [(String, String)] = [], keep: (Step) -> Bool = { _ in true }
    ) async throws -> [String] {
        let text = try String(contentsOfFile: Self.readme, encoding: .utf8)
        let blocks = Self.blocks(text).filter { $0.marker == .run }
        let server = try LoopbackServer()
        defer { server.stop() }
        for (index, path) in Self.paths(blocks).enumerated() {
            server.serve(path, Resource(size: 2_000_000, seed: UInt64(index + 1)))
        }
        let base = String(server.url("/").dropLast())  // http://127.0.0.1:PORT
        var ran: [String] = []
        for block in blocks {
            let steps = Self.steps(block).filter(keep)
            try await Self.run(steps, in: shell, base: base, replacing: replacing)
            ran += steps.map(\.command)
        }
        return ran
    }

    /// The runner fails what breaks: a line that exits non-zero, or that does not print what the block shows.
    @Test func aBrokenExampleFails() async throws {
        let block = Block(
            line: 1, marker: .run,
            lines: [
                (2, "dledger mv 9 --to 0            # no task #9"),
                (3, "dledger limit 4"),
                (4, "# → this is not what limit prints"),
                (5, "dledger limit"),
                (6, "# → at most 4"),
            ])
        let steps = Self.steps(block)
        #expect(steps.map(\.command) == ["dledger mv 9 --to 0", "dledger limit 4", "dledger limit"])
        let shell = try Shell()
        var problems = 0
        await withKnownIssue {
            problems = try await Self.run(steps, in: shell, base: "http://127.0.0.1:9")
        }
        #expect(problems == 2, "the mv and the first limit fail; the last line holds")
    }

    @Test func markersAndCommentsAreReadAsDocumented() {
        let text = """
            <!-- readme-test -->
            ```sh
            dledger add 'https://example.com/a#b' "x # y"   # a comment
            # → added #1
            ```
            ```sh
            dledger ui
            ```
            <!-- readme-test: skip (needs a terminal) -->

            ```sh
            dledger ui
            ```
            """
        let blocks = Self.blocks(text)
        #expect(blocks.map(\.marker) == [.run, nil, .skip(reason: "needs a terminal")])
        let steps = Self.steps(blocks[0])
        #expect(steps.map(\.command) == [#"dledger add 'https://example.com/a#b' "x # y""#])
        #expect(steps.first?.expected == ["added #1"])
        #expect(Self.paths(blocks) == ["/a"])
    }
}
