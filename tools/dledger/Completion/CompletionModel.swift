import LedgerCore

/// What shell completion offers, read from the command table that drives `--help` (`CLI.commands`), so the
/// completions cannot drift from the commands: the command words, each command's options, and the values a
/// few arguments and options take.
struct CompletionModel {
    /// An option as `--help` shows it: `-q, --quiet` has two names; `--to <section[:index]>` takes a value.
    struct Option {
        let names: [String]
        /// The value's placeholder (`path`, `n`, `mode`), or nil for a flag.
        let value: String?
        let help: String

        init(shown: String, help: String) {
            var names: [String] = []
            var value: String?
            for part in shown.split(separator: ",") {
                let words = part.split(separator: " ", maxSplits: 1)
                guard let name = words.first else { continue }
                names.append(String(name))
                if words.count == 2 {
                    value = words[1].trimmingCharacters(in: "<>")
                }
            }
            self.names = names
            self.value = value
            self.help = help
        }
    }

    /// One command: `["section", "add"]` for a nested one.
    struct Entry {
        let words: [String]
        let abstract: String
        let options: [Option]
        /// What its positional arguments can be, when they are a fixed set.
        let choices: [String]
    }

    /// A group of nested commands (`section`, `service`): its word and what `dledger WORD` lists.
    struct Group {
        let word: String
        let abstract: String
        let entries: [Entry]
    }

    let entries: [Entry]
    /// Options accepted before any command (`dledger --version`).
    let rootOptions: [Option]

    init(commands: [CommandSpec] = CLI.commands) {
        let topWords = Self.topWords(commands)
        let help = Entry(
            words: ["help"], abstract: CLI.helpAbstract,
            options: CLI.helpOptions.map { Option(shown: $0.0, help: $0.1) },
            choices: topWords.filter { $0 != "help" })
        entries =
            commands.map { spec in
                Entry(
                    words: spec.name.split(separator: " ").map(String.init), abstract: spec.abstract,
                    options: spec.shownOptions.map { Option(shown: $0.0, help: $0.1) },
                    choices: Self.choices(for: spec.name))
            } + [help]
        rootOptions = CLI.globalOptions.map { Option(shown: $0.0, help: $0.1) }
        self.topWords = topWords
    }

    /// Every word that may follow `dledger`: commands, group words and `help`, in `--help` order.
    let topWords: [String]

    /// The groups (`section`, `service`), in the order of their first command.
    var groups: [Group] {
        var seen: [String] = []
        for entry in entries where entry.words.count == 2 && !seen.contains(entry.words[0]) {
            seen.append(entry.words[0])
        }
        return seen.map { word in
            Group(
                word: word, abstract: CLI.groupAbstract(word),
                entries: entries.filter { $0.words.count == 2 && $0.words[0] == word })
        }
    }

    /// Every option name that takes a value, across all commands (values are skipped when finding the
    /// command on a line).
    var valueOptions: [String] {
        var names: [String] = []
        for option in entries.flatMap(\.options) + rootOptions where option.value != nil {
            for name in option.names where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// What completes the value of an option: a fixed set, files, folders, or nothing (free text).
    enum ValueKind: Equatable {
        case choices([String])
        case files
        case directories
        case none
    }

    /// How the value of an option is completed, by its name and placeholder.
    static func valueKind(name: String, placeholder: String) -> ValueKind {
        switch (name, placeholder) {
        case ("--sort", _): return .choices(SortMode.allCases.map(\.rawValue))
        case ("--mode", _): return .choices(DeleteMode.allCases.map(\.rawValue))
        case ("--by", _): return .choices(SectionSortKey.allCases.map(\.rawValue))
        case (_, "path"), (_, "file"): return .files
        case (_, "dir"), (_, "directory"): return .directories
        default: return .none
        }
    }

    private static func topWords(_ commands: [CommandSpec]) -> [String] {
        var words: [String] = []
        for spec in commands {
            let word = String(spec.name.split(separator: " ")[0])
            if !words.contains(word) { words.append(word) }
        }
        return words + ["help"]
    }

    /// The fixed set a command's positional arguments come from (empty: free, or none).
    private static func choices(for name: String) -> [String] {
        switch name {
        case "sort": return SortMode.allCases.map(\.rawValue)
        case "completions": return CompletionsCommand.shells
        case "set": return SettingCommand.names + ["on", "off", "default"]
        case "service enable", "service disable": return ServiceUnit.table.map(\.command)
        default: return []
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
