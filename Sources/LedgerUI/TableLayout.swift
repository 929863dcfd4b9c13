/// The list's table: which columns a terminal of a given width shows, and how wide each one is.
///
/// A row is a mark (cursor, selection), the id, the name, then the columns in order, each after a gap. The name
/// column is as wide as the longest name on screen, as far as the terminal allows (never narrower than
/// ``minimumName`` while a column can be dropped instead), so that no state floats far from its name; a wide
/// terminal gives what is left to the progress bar, and leaves the rest of the row empty.
public struct TableLayout: Sendable, Equatable {
    /// A column after the name. A later column (the host) is one more case, placed in ``order``.
    public enum Column: Sendable, Equatable, CaseIterable {
        case state, progress, size, speed, eta

        /// The title in the header row.
        public var title: String {
            switch self {
            case .state: return "state"
            case .progress: return "done"
            case .size: return "size"
            case .speed: return "speed"
            case .eta: return "ETA"
            }
        }

        /// Whether cells (and the title) are right-aligned: the numbers.
        public var isRightAligned: Bool { self != .state && self != .progress }

        /// Columns a cell needs: `downloading`, `100%`, `99.9 MB / 999 MB`, `99.9 KB/s`, `999h59m`.
        var width: Int {
            switch self {
            case .state: return 11
            case .progress: return 4
            case .size: return 17
            case .speed: return 9
            case .eta: return 7
            }
        }
    }

    /// The columns after the name, in the order they are added as the terminal widens.
    public static let order: [Column] = [.state, .progress, .size, .speed, .eta]
    /// The name column is not made narrower than this to show another column.
    public static let minimumName = 24
    /// The bar is shown from this width on (within the progress column, after the percentage), and grows to
    /// ``maximumBar``.
    public static let minimumBar = 10
    public static let maximumBar = 30

    /// A column shown, and its width.
    public struct Cell: Sendable, Equatable {
        public var column: Column
        public var width: Int
    }

    /// Columns of the mark (`>` and `*`) and of the id (`#123`), with the space after it.
    public var lead: Int
    public var name: Int
    /// Spaces before each column.
    public var gap: Int
    /// The columns shown and their widths.
    public var columns: [Cell]
    /// The bar's width inside the progress column (0: no bar).
    public var bar: Int

    /// The layout of a `width`-column row whose ids take `idWidth` columns and whose longest name on screen takes
    /// `longestName`.
    public init(width: Int, idWidth: Int, longestName: Int) {
        lead = 2 + idWidth + 1
        gap = width >= 100 ? 2 : 1
        let available = max(0, width - lead)
        let wanted = max(4, longestName)
        var used = 0
        columns = []
        for c in Self.order {
            // The state is worth a narrow name; every other column leaves the name its minimum.
            let floor = min(c == .state ? 8 : Self.minimumName, wanted)
            guard used + gap + c.width + floor <= available else { break }
            columns.append(Cell(column: c, width: c.width))
            used += gap + c.width
        }
        var left = available - used
        let progress = columns.firstIndex { $0.column == .progress }
        // A wide terminal keeps a short bar whatever the names; then the names grow, then the bar.
        let reserved = progress != nil && left - min(Self.minimumName, wanted) >= 40
        name = max(0, min(wanted, left - (reserved ? 1 + Self.minimumBar : 0)))
        left -= name
        bar = 0
        if let progress, left - 1 >= Self.minimumBar {
            bar = min(Self.maximumBar, left - 1)
            columns[progress].width += 1 + bar
        }
    }

    /// Where a column starts (0-based), or nil when it is not shown.
    public func start(of column: Column) -> Int? {
        var x = lead + name
        for c in columns {
            x += gap
            if c.column == column { return x }
            x += c.width
        }
        return nil
    }

    /// Columns from the first column after the name to the end of the last one.
    public var cellsWidth: Int { columns.reduce(0) { $0 + gap + $1.width } }
}
