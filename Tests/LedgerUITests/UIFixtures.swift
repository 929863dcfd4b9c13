import LedgerCore
import LedgerUI

/// Lists built by deciding and folding commands, as a ledger would, without a store.
struct ListBuilder {
    private(set) var list = DownloadList()
    /// Every entry folded, as a ledger's log would give them back.
    private(set) var logged: [LoggedEntry] = []
    private var seq: Int64 = 0

    init() {
        fold(Entry(.ledgerCreated(directory: "/downloads", maxDownloads: 3)))
    }

    mutating func fold(_ entry: Entry) {
        seq += 1
        let e = LoggedEntry(seq: seq, time: 1_800_000_000_000 + seq * 1000, entry: entry)
        logged.append(e)
        list.apply(e)
    }

    mutating func run(_ command: Command) throws {
        fold(try list.decide(command).entry)
    }

    mutating func fact(_ event: Event) { fold(Entry(event)) }

    /// `n` URLs `https://example.com/<prefix><i>.bin` at the end.
    mutating func add(_ names: [String], placement: AddPlacement = .end) throws {
        try run(
            .add(
                urls: names.map { "https://example.com/\($0)" }, placement: placement, name: nil, sha256: nil,
                directory: nil))
    }
}

extension UIModel {
    /// A model showing `list` at `columns` x `rows`, without colour.
    static func showing(_ list: DownloadList, columns: Int = 80, rows: Int = 16) -> UIModel {
        var model = UIModel(color: false)
        model.resize(columns: columns, rows: rows)
        model.setList(list)
        model.runner = .here(pid: 42)
        return model
    }

    /// The commands of the effects of pressing `keys` in order.
    mutating func press(_ keys: Key...) -> [Effect] {
        keys.flatMap { handle($0) }
    }

    mutating func type(_ text: String) {
        for c in text { _ = handle(.char(c)) }
    }
}
