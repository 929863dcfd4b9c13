/// Every key of `dledger ui`, as the help overlay (`?`) and docs/ui.md list them.
public enum KeyHelp {
    /// Groups of (keys, what they do).
    public static let groups: [(title: String, keys: [(String, String)])] = [
        (
            "Move and select",
            [
                ("↑ ↓ j k", "cursor up / down"), ("PgUp PgDn", "a page up / down"),
                ("Home End g G", "first / last row"), ("space v", "select or unselect the task, go down"),
                ("*", "select all shown / none"), ("Esc", "clear the selection; close an overlay or prompt"),
            ]
        ),
        (
            "Tasks (the selection, else the task under the cursor)",
            [
                ("Enter", "the accessory button: pause a running task, resume a paused/stopped/failed one"),
                ("p r x", "pause / resume / stop"), ("P R X", "pause / resume / stop the cursor's section"),
                ("A p  A r  A x  A d", "pause / resume / stop / delete all"),
                ("d", "delete: 1 to the to-delete list, 2 same but keep the file, 3 the file only"),
                ("w", "download again from zero (asks)"), ("e", "rename the task (inline)"),
                ("a", "add URLs to the cursor's section (paste many lines)"),
                ("N", "add URLs into a new titled section"),
                ("K J", "move up / down one place"), ("T", "move to the top of the section"),
                ("m", "move to another section (keeps their order)"),
            ]
        ),
        (
            "Sections",
            [
                ("n", "insert a section after the cursor's"), ("E", "rename the cursor's section"),
                ("{ }", "move the section up / down"), ("D", "remove the section (when empty)"),
            ]
        ),
        (
            "Views and settings",
            [
                ("t", "the to-delete list / back: r restore, d purge, A r / A d for all"),
                ("f", "filter: all, unfinished, finished, finished in 7 days"),
                ("s", "the cursor's section (or sort group) alone / the whole list again"),
                ("o O", "sort mode (manual, added, name, size, type, completion time) / direction"),
                ("l L", "maximum downloads at a time / speed limit"),
                ("S", "emptied sections removed automatically: on / off"),
                ("U", "the rows show the URLs / the names"),
            ]
        ),
        (
            "Find and inspect",
            [
                ("/", "search the names and URLs: Enter goes to the first match"),
                ("n N", "after a search: next / previous match"), ("Esc", "after a search: clear it"),
                ("I", "details of the task: state, bytes, file, URL, options, failure, checksum"),
            ]
        ),
        (
            "History",
            [
                ("u Ctrl-R", "undo / redo (says what)"),
                ("h", "history scrubber: the list after any event (read-only)"),
                ("← → , .", "in history: one event back / forward"), ("[ ]", "in history: one minute"),
                (":", "in history: jump to a seq or a time"), ("Esc h", "in history: back to now"),
                ("i", "audit trail of the task"),
            ]
        ),
        ("", [("?", "this help"), ("q Ctrl-C", "quit (downloads stop cleanly, resume later)")]),
    ]

    /// The help as lines for a `width`-column screen: a title per group, then `  keys  what` per key, the keys
    /// in a column as wide as the widest of them, and what they do wrapped under itself.
    public static func lines(width: Int) -> [String] {
        let keyColumn = groups.flatMap(\.keys).map { TextWidth.width($0.0) }.max()! + 4
        var out: [String] = []
        for g in groups {
            if !g.title.isEmpty { out.append(g.title) }
            for (k, what) in g.keys {
                let pad = keyColumn - 2 - TextWidth.width(k)
                out += TextWidth.wrap(
                    "  " + k + String(repeating: " ", count: pad) + what, width, indent: keyColumn)
            }
        }
        return out
    }
}
