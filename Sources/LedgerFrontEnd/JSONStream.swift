/// A JSON document written member by member as it is produced, in exactly the bytes ``JSONValue/rendered(pretty:)``
/// gives the whole tree: a list of 100,000 tasks is never held as one tree, nor as one string. Text goes to `sink`
/// in pieces of about `chunk` bytes.
///
/// ```swift
/// var s = JSONStream(pretty: true) { print($0, terminator: "") }
/// s.object { s in
///     s.field("seq", .int(7))
///     s.array("tasks") { s in for t in tasks { s.item(json(t)) } }
/// }
/// s.finish()
/// ```
public struct JSONStream {
    private var out = ""
    private let pretty: Bool
    private let chunk: Int
    private let sink: (String) -> Void
    /// The open containers, outermost first: whether each is an object, and how many members it has so far.
    private var open: [(object: Bool, members: Int)] = []

    /// A document compact (`pretty` false) or indented by two spaces, handed to `sink` in pieces of about
    /// `chunk` bytes.
    public init(pretty: Bool, chunk: Int = 1 << 18, sink: @escaping (String) -> Void) {
        self.pretty = pretty
        self.chunk = chunk
        self.sink = sink
        out.reserveCapacity(chunk + 4096)
    }

    /// A member `key: value` of the open object.
    public mutating func field(_ key: String, _ value: JSONValue) {
        member(key)
        write(value)
    }

    /// An item of the open array (or the whole document when nothing is open).
    public mutating func item(_ value: JSONValue) {
        if !open.isEmpty { member(nil) }
        write(value)
    }

    /// An object: a member `key` of the open object, an item of the open array (`key` nil), or the document.
    public mutating func object(_ key: String? = nil, _ body: (inout JSONStream) -> Void) {
        container(object: true, key: key, body)
    }

    /// An array, placed as ``object(_:_:)`` places an object.
    public mutating func array(_ key: String? = nil, _ body: (inout JSONStream) -> Void) {
        container(object: false, key: key, body)
    }

    /// Hands over what is left.
    public mutating func finish() {
        if !out.isEmpty { sink(out) }
        out.removeAll(keepingCapacity: true)
    }

    private mutating func container(object: Bool, key: String?, _ body: (inout JSONStream) -> Void) {
        if !open.isEmpty { member(key) }
        open.append((object, 0))
        body(&self)
        let closed = open.removeLast()
        if closed.members == 0 {
            out += object ? "{}" : "[]"
        } else {
            if pretty { indent(open.count) }
            out += object ? "}" : "]"
        }
        flushIfFull()
    }

    /// What comes before a member of the innermost open container: its bracket or a comma, the indentation, the key.
    private mutating func member(_ key: String?) {
        let last = open.count - 1
        out += open[last].members == 0 ? (open[last].object ? "{" : "[") : ","
        open[last].members += 1
        if pretty { indent(open.count) }
        if let key {
            JSONValue.quote(key, into: &out)
            out += pretty ? ": " : ":"
        }
    }

    private mutating func write(_ value: JSONValue) {
        let sink = sink
        let chunk = chunk
        value.write(into: &out, pretty: pretty, depth: open.count) { text in
            Self.flush(&text, at: chunk, to: sink)
        }
        flushIfFull()
    }

    private mutating func indent(_ depth: Int) {
        out += "\n"
        for _ in 0..<depth { out += "  " }
    }

    private mutating func flushIfFull() {
        let (sink, chunk) = (sink, chunk)
        Self.flush(&out, at: chunk, to: sink)
    }

    private static func flush(_ text: inout String, at chunk: Int, to sink: (String) -> Void) {
        guard text.utf8.count >= chunk else { return }
        sink(text)
        text.removeAll(keepingCapacity: true)
    }
}
