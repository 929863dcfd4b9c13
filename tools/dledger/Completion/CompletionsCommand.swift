/// `dledger completions SHELL`: the completion script for bash, zsh or fish, generated from the command table
/// (`CompletionModel`), printed on stdout. tools/install.sh installs what it prints.
enum CompletionsCommand {
    static let shells = ["bash", "zsh", "fish"]

    static let spec = CommandSpec(
        name: "completions", abstract: "Print the shell completion script for bash, zsh or fish.",
        usage: "completions <shell>",
        arguments: [("<shell>", "bash, zsh or fish.")],
        discussion: "tools/install.sh installs all three. By hand, for bash:\n"
            + "  dledger completions bash > ~/.local/share/bash-completion/completions/dledger",
        run: { inv in
            try inv.require(["<shell>"])
            let model = CompletionModel()
            switch inv.positionals[0] {
            case "bash": inv.console.out(model.bash())
            case "zsh": inv.console.out(model.zsh())
            case "fish": inv.console.out(model.fish())
            case let other:
                throw CLIError.usage("no completions for shell '\(other)' (bash, zsh or fish)")
            }
            return CLIError.success
        })
}

extension CompletionModel {
    /// The shell lines (bash and zsh alike) that find the command on the line being completed: they skip
    /// options and the values of those that take one, and join a group word with the word after it
    /// (`section add`). `words`, `first` and `end` name the shell's array, its first word after `dledger` and the
    /// word being completed.
    func commandWalk(words: String, first: Int, end: String) -> [String] {
        [
            "    local cmd='' word i skip=0",
            "    for ((i = \(first); i < \(end); i++)); do",
            "        word=${\(words)[i]}",
            "        if ((skip)); then skip=0; continue; fi",
            "        case $word in",
            "        \(valueOptions.joined(separator: "|"))) skip=1 ;;",
            "        -*) ;;",
            "        *)",
            "            if [[ -z $cmd ]]; then",
            "                cmd=$word",
            "            elif [[ $cmd != *' '* && ( \(groups.map { "$cmd == \($0.word)" }.joined(separator: " || ")) ) ]]; then",
            "                cmd=\"$cmd $word\"",
            "            fi",
            "            ;;",
            "        esac",
            "    done",
        ]
    }

    /// `words` joined by spaces, each made safe inside single quotes of a shell script.
    static func quotedList(_ words: [String]) -> String {
        "'" + words.map(shellSafe).joined(separator: " ") + "'"
    }

    /// Text made safe inside single quotes in bash, zsh and fish (a quote becomes a typographic one, a
    /// backslash a slash: these are descriptions and option names, never values that are run).
    static func shellSafe(_ text: String) -> String {
        text.replacing("'", with: "’").replacing("\\", with: "/")
    }

    /// Every option name of an entry, in table order.
    static func names(_ options: [Option]) -> [String] {
        options.flatMap(\.names)
    }

    /// The value kinds of all options that take a value, grouped (bash and zsh complete them by `case`).
    var valueCases: [(names: [String], kind: ValueKind)] {
        var cases: [(names: [String], kind: ValueKind)] = []
        for option in entries.flatMap(\.options) + rootOptions {
            guard let value = option.value else { continue }
            for name in option.names {
                let kind = Self.valueKind(name: name, placeholder: value)
                if cases.contains(where: { $0.names.contains(name) }) { continue }
                if let i = cases.firstIndex(where: { $0.kind == kind }) {
                    cases[i].names.append(name)
                } else {
                    cases.append((names: [name], kind: kind))
                }
            }
        }
        return cases
    }
}
