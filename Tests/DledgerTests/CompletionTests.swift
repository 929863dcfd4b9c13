import Foundation
import Testing

/// `dledger completions SHELL`: bash's completion is driven through bash itself (the generated script
/// sourced, COMP_WORDS and COMP_CWORD set, `_dledger` called, COMPREPLY read), and must offer every command
/// and every option that `--help` lists; zsh's and fish's scripts are checked by those shells when installed.
@Suite struct CompletionTests {
    /// The commands and options as the user sees them in `--help` (generated from the command table).
    struct HelpTable {
        /// Command words as the root help lists them (`ls`, `section add`, `help`).
        var commands: [String] = []
        /// Options by command, from each command's `--help`.
        var options: [String: Set<String>] = [:]
        var rootOptions: Set<String> = []
    }

    static func helpTable(_ box: DledgerSandbox) async throws -> HelpTable {
        var table = HelpTable()
        let root = try await box.run("--help").out
        table.commands = Self.rows(root, after: "COMMANDS:").map {
            $0.hasPrefix("help ") ? "help" : $0
        }
        table.rootOptions = Self.optionNames(Self.rows(root, after: "GLOBAL OPTIONS:"))
        for command in table.commands where command != "help" {
            let help = try await box.run(command.split(separator: " ").map(String.init) + ["--help"]).out
            table.options[command] = Self.optionNames(Self.rows(help, after: "OPTIONS:"))
        }
        return table
    }

    /// The left column of the rows after `header`, up to the next blank line.
    static func rows(_ text: String, after header: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == header }) else { return [] }
        var rows: [String] = []
        for line in lines[(start + 1)...] {
            if line.isEmpty { break }
            // A row starts with two spaces; a help text's own continuation lines (indented or not) are no row.
            let left = line.dropFirst(2)
            guard line.hasPrefix("  "), !left.hasPrefix(" ") else { continue }
            rows.append(String(left.split(separator: "  ", maxSplits: 1).first ?? left))
        }
        return rows
    }

    /// `-q, --quiet` and `--to <section[:index]>` give `-q`, `--quiet`, `--to`.
    static func optionNames(_ rows: [String]) -> Set<String> {
        Set(
            rows.flatMap { row in
                row.split(separator: ",").compactMap { part in
                    part.split(separator: " ").first.map(String.init)
                }
            })
    }

    /// Runs bash on the generated script and completes each line; returns COMPREPLY for each.
    static func complete(_ lines: [[String]], box: DledgerSandbox) async throws -> [[String]] {
        let script = box.root + "/dledger.bash"
        try (try await box.run("completions", "bash")).out.write(
            toFile: script, atomically: true, encoding: .utf8)
        let driver = """
            source "$1" || exit 1
            while IFS= read -r line; do
                eval "COMP_WORDS=($line)"
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMPREPLY=()
                _dledger
                ((${#COMPREPLY[@]} == 0)) || printf '%s\\n' "${COMPREPLY[@]}"
                echo '##'
            done
            """
        let input = lines.map { words in words.map { "'" + $0 + "'" }.joined(separator: " ") }.joined(
            separator: "\n")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(ScriptRun.which("bash")))
        p.arguments = ["--norc", "--noprofile", "-c", driver, "bash", script]
        p.currentDirectoryURL = URL(fileURLWithPath: box.root)
        let r = await (try Running(p, stdin: input + "\n")).wait()
        #expect(r.status == 0, "\(r.err)")
        var replies: [[String]] = [[]]
        for line in r.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line == "##" { replies.append([]) } else { replies[replies.count - 1].append(String(line)) }
        }
        return Array(replies.dropLast())
    }

    @Test func bashCompletesEveryCommandAndOptionOfTheTable() async throws {
        let box = try DledgerSandbox()
        let table = try await Self.helpTable(box)
        #expect(table.commands.contains("ls") && table.commands.contains("section add"))
        let topWords = table.commands.reduce(into: [String]()) { words, command in
            let first = String(command.split(separator: " ")[0])
            if !words.contains(first) { words.append(first) }
        }
        let commands = table.commands.filter { $0 != "help" }
        var queries: [[String]] = [["dledger", ""], ["dledger", "-"], ["dledger", "section", ""]]
        queries += commands.map { ["dledger"] + $0.split(separator: " ").map(String.init) + ["-"] }
        let replies = try await Self.complete(queries, box: box)
        try #require(replies.count == queries.count)
        #expect(Set(replies[0]) == Set(topWords), "the command words")
        #expect(Set(replies[1]) == table.rootOptions.union(["--version"]), "the root options")
        let sectionWords = commands.filter { $0.hasPrefix("section ") }.map { String($0.dropFirst(8)) }
        #expect(Set(replies[2]) == Set(sectionWords))
        for (command, reply) in zip(commands, replies.dropFirst(3)) {
            #expect(Set(reply) == table.options[command], "options of \(command)")
        }
    }

    @Test func bashCompletesValuesAndSkipsThemWhenFindingTheCommand() async throws {
        let box = try DledgerSandbox()
        try "".write(toFile: box.root + "/ledger-copy.sqlite", atomically: true, encoding: .utf8)
        let replies = try await Self.complete(
            [
                ["dledger", "ls", "--sort", ""], ["dledger", "rm", "--mode", "r"],
                ["dledger", "--ledger", "/tmp/x", "ls", "--tr"], ["dledger", "completions", ""],
                ["dledger", "help", "sec"], ["dledger", "ls", "--ledger", "ledger-c"],
                ["dledger", "mv", "3", "--to", ""], ["dledger", "service", "enable", ""],
                ["dledger", "sort", "n"], ["dledger", "section", "sort", "0", "--by", ""],
                ["dledger", "set", "t"],
            ], box: box)
        #expect(Set(["manual", "added", "name", "size", "type"]).isSubset(of: replies[0]))
        for mode in replies[0] {
            let r = try await box.run("ls", "--sort", mode)
            #expect(r.status != 64, "the offered '--sort \(mode)' is refused: \(r.err)")
        }
        #expect(replies[1] == ["record"])
        #expect(replies[2] == ["--trash"], "--ledger's value is not taken for the command")
        #expect(replies[3] == ["bash", "zsh", "fish"])
        #expect(replies[4] == ["section"])
        #expect(replies[5] == ["ledger-copy.sqlite"])
        #expect(replies[6] == [], "a position is free text")
        #expect(replies[7] == ["run", "serve"])
        #expect(replies[8] == ["name"])
        #expect(
            Set(["name", "size", "added", "finished"]).isSubset(of: replies[9]), "section sort --by keys")
        #expect(replies[10] == ["trash"])
    }

    /// zsh parses the script, then runs its `_dledger` on completion lines: the walk and the tables are the
    /// script's own, run by zsh; only the completion system's output functions (`_describe`, `compadd`,
    /// `_files`, `_message`) are replaced by ones that print what they were given, as they need a live line
    /// editor.
    @Test(.enabled(if: ScriptRun.which("zsh") != nil, "zsh is not installed: its script is not checked"))
    func zshCompletesFromItsScript() async throws {
        let box = try DledgerSandbox()
        let table = try await Self.helpTable(box)
        let script = box.root + "/_dledger"
        try (try await box.run("completions", "zsh")).out.write(
            toFile: script, atomically: true, encoding: .utf8)
        let zsh = try #require(ScriptRun.which("zsh"))
        let parsed = try await ScriptRun.run(zsh, ["-n", script])
        #expect(parsed.status == 0 && parsed.err.isEmpty, "\(parsed.err)")
        let driver = """
            _describe() { local name=${@[-1]}; local item; for item in ${(P)name}; do print -r -- ${item%%:*}; done }
            compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -rl -- "$@" }
            _files() { print -r -- '<files>' }
            _message() { : }
            words=(dledger '') CURRENT=2
            source $1 >/dev/null
            while IFS= read -r line; do
                eval "words=($line)"
                CURRENT=${#words}
                _dledger
                print -r -- '##'
            done
            """
        let queries = [
            "dledger ''", "dledger ls -", "dledger section ''", "dledger --ledger x ls --ledger ''",
        ]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: zsh)
        p.arguments = ["-f", "-c", driver, "zsh", script]
        let r = await (try Running(p, stdin: queries.joined(separator: "\n") + "\n")).wait()
        #expect(r.status == 0 && r.err.isEmpty, "\(r.err)")
        let replies = r.out.components(separatedBy: "##\n").map { $0.split(separator: "\n").map(String.init) }
        try #require(replies.count == queries.count + 1, "\(r.out)")
        #expect(Set(replies[0]) == Set(table.commands.map { String($0.split(separator: " ")[0]) }))
        #expect(Set(replies[1]) == table.options["ls"])
        #expect(
            Set(replies[2])
                == Set(table.commands.filter { $0.hasPrefix("section ") }.map { String($0.dropFirst(8)) }))
        #expect(replies[3] == ["<files>"])
    }

    /// fish completes through its own `complete -C`, so its script is driven, not only parsed.
    @Test(.enabled(if: ScriptRun.which("fish") != nil, "fish is not installed: its script is not checked"))
    func fishCompletesFromItsScript() async throws {
        let box = try DledgerSandbox()
        let table = try await Self.helpTable(box)
        let script = box.root + "/dledger.fish"
        try (try await box.run("completions", "fish")).out.write(
            toFile: script, atomically: true, encoding: .utf8)
        let fish = try #require(ScriptRun.which("fish"))
        let parsed = try await ScriptRun.run(fish, ["--no-execute", script])
        #expect(parsed.status == 0 && parsed.err.isEmpty, "\(parsed.err)")
        let first = { (line: String) in String(line.split(separator: "\t").first ?? "") }
        let top = try await ScriptRun.run(
            fish, ["--no-config", "-c", "source \(script); complete -C 'dledger '"], env: ["HOME": box.root])
        let topWords = Set(table.commands.map { String($0.split(separator: " ")[0]) })
        #expect(Set(top.out.split(separator: "\n").map { first(String($0)) }) == topWords, "\(top.err)")
        let ls = try await ScriptRun.run(
            fish, ["--no-config", "-c", "source \(script); complete -C 'dledger ls --'"],
            env: ["HOME": box.root])
        let long = table.options["ls", default: []].filter { $0.hasPrefix("--") }
        #expect(Set(ls.out.split(separator: "\n").map { first(String($0)) }) == long, "\(ls.err)")
    }
}
