import LedgerFrontEnd

/// One subcommand: its name, one-line abstract, help text, the options it accepts and what it runs.
struct CommandSpec: Sendable {
    /// `add`, or `section add` for nested ones.
    let name: String
    let abstract: String
    /// The usage line after `dledger `.
    let usage: String
    /// Positional arguments and their help.
    var arguments: [(String, String)] = []
    /// Options (as shown, e.g. `--to <section[:index]>`) and their help.
    var options: [(String, String)] = []
    /// Extra paragraphs shown after the options.
    var discussion: String? = nil
    /// Whether `--json` applies (it is accepted, and ignored, everywhere).
    var json = false
    /// Whether the command can change the ledger (then `--dir` applies, for a new ledger; it is accepted, and
    /// ignored, everywhere).
    var writes = false
    let run: @Sendable (Invocation) async throws -> Int32

    /// Every option name this command accepts, globals included.
    var accepted: Set<String> {
        // The global options: one alias (`dledger --ledger L --dir D --json`) serves every command.
        var names: Set<String> = ["--ledger", "--dir", "--json", "--no-color", "--quiet", "--help"]
        for (shown, _) in options {
            for word in shown.split(separator: " ") where word.hasPrefix("-") {
                names.insert(String(word.trimmingSuffix(",")))
            }
        }
        return names
    }

    /// Every option as `--help` shows it, with the global ones that apply (also what completions and the man
    /// page list).
    var shownOptions: [(String, String)] {
        var all = options
        if json { all.append(("--json", "Print JSON (documented in docs/cli.md).")) }
        if writes {
            all.append(
                (
                    "--dir <path>",
                    "Download directory (default: the ledger's, 'dledger set dir'; get: the current one)."
                ))
        }
        all.append(
            (
                "--ledger <path>",
                "The ledger file (default: $DLEDGER_LEDGER, else $XDG_DATA_HOME/dledger/ledger.sqlite)."
            ))
        all.append(("-q, --quiet", "Print less."))
        all.append(("--no-color", "No colors (also when NO_COLOR is set)."))
        all.append(("-h, --help", "Show help information."))
        return all
    }

    /// The `--help` text.
    func help() -> String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: dledger \(usage)", ""]
        if !arguments.isEmpty {
            lines.append("ARGUMENTS:")
            lines += arguments.map { Self.row($0.0, $0.1) }
            lines.append("")
        }
        lines.append("OPTIONS:")
        lines += shownOptions.map { Self.row($0.0, $0.1) }
        if let discussion {
            lines += ["", discussion]
        }
        return lines.joined(separator: "\n")
    }

    static func row(_ left: String, _ right: String) -> String {
        let padded = "  " + left
        let column = String(repeating: " ", count: 26)
        // A help text of several lines keeps its continuation lines in the help column.
        let text = right.split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\n" + column)
        // At least two spaces between the name and its text, else the text starts on the next line.
        return padded.count > 24
            ? padded + "\n" + column + text
            : padded + String(repeating: " ", count: 26 - padded.count) + text
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self
    }
}
