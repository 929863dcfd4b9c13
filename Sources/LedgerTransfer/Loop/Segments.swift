import Glibc

/// The state of a transfer fetched in pieces over several connections: the piece map, the pieces in flight, and
/// the sources (the URL and its mirrors) they come from. Confined to the loop thread.
///
/// Bytes of each piece are gathered per connection and written at their offset; after each write the map is
/// recorded on the partial file, then the written run from byte 0 (the map's prefix) is published to the hash
/// worker, which reads it back from the file (still in the page cache) as it grows: the hash follows the prefix
/// while the pieces after it arrive, and catches up when the gap before them closes.
final class Segments {
    /// One URL serving the file, and what became of it.
    struct Source {
        let url: String
        /// Why it was dropped for this transfer, if it was.
        var dropped: String?
        /// Body bytes it delivered to the file.
        var bytes: Int64 = 0
        /// Connections to it in flight.
        var active = 0
    }

    /// Bytes gathered per connection before a write (as a sequential transfer's chunk).
    static let chunkSize = HashWorker.chunkSize
    let file: PartialFile
    let follower: HashFollower
    let hashes: HashWorker
    private(set) var map: PieceMap
    /// Pieces being fetched, each by its own connection.
    private(set) var pieces: [Piece] = []
    var sources: [Source]
    /// Connections wanted at most (the task's), lowered when a connection is dropped.
    var wanted: Int
    /// Connections to one source at most.
    let perSource: Int
    /// No piece is split into parts smaller than this.
    let minPiece: Int64
    /// Whether a response of this round of connections matched the map (size, validator); until then only one
    /// connection runs.
    var confirmed = false {
        didSet { if confirmed && !oldValue { needsRefill = true } }
    }
    /// Set when more connections may start (the round was confirmed inside a curl callback, where none can be
    /// added); the loop starts them after its turn.
    var needsRefill = false
    /// Set when a new round of connections begins: the count is logged once they run (``TransferLoop``).
    var announceRound = false
    /// The most connections that ran at once.
    private(set) var peak = 0
    /// When a connection that failed may be replaced (monotonic seconds).
    var refillAt: Double?
    /// When the loop next looks for a stalled connection to replace (monotonic seconds).
    var nextLook: Double = 0
    /// While the connections ramp up (no count was asked): how many the transfer wants next; nil once it holds.
    var ramp: Ramp?
    private var spareBuffers: [UnsafeMutableRawBufferPointer] = []
    /// Bytes written since the kernel was last asked to start writing them out.
    private var unsynced: Int64 = 0
    /// Speed of one connection (bytes/s), learnt from the pieces done (``learn(from:now:)``); nil before the first.
    private(set) var connectionSpeed: Double?
    /// Seconds from a piece's request to its first byte, learnt the same way.
    private(set) var latency: Double = 0
    /// Bytes written between two requests to the kernel to start writing them out: the writes of a split transfer
    /// are spread over the file, and the final fsync of 64 MiB fetched over 16 connections took 25–50 ms with
    /// the sequential step (32 MiB), 3–6 ms with this one.
    static let writebackStep: Int64 = 4 << 20
    /// A new piece lasts about this long at the speed of one connection, and at least ``latencyShare`` times the
    /// wait for a piece's first byte, so asking costs at most a twentieth of a connection's time: pieces are taken
    /// in file order, so the written run from byte 0 (what the hash follows) grows while the file arrives instead
    /// of waiting for the first of a few long pieces, and at the end the hash has only the last pieces to read.
    static let pieceSeconds = 0.25
    static let latencyShare = 20.0

    init(
        file: PartialFile, follower: HashFollower, hashes: HashWorker, map: PieceMap, sources: [String],
        wanted: Int, perSource: Int, minPiece: Int64
    ) {
        self.file = file
        self.follower = follower
        self.hashes = hashes
        self.map = map
        self.sources = sources.map { Source(url: $0) }
        self.wanted = max(wanted, 1)
        self.perSource = max(perSource, 1)
        self.minPiece = max(minPiece, 16 * 1024)
    }

    deinit {
        for piece in pieces { piece.buffer?.deallocate() }
        for buffer in spareBuffers { buffer.deallocate() }
    }

    /// Bytes received: those in the file and those gathered for the next writes.
    var receivedBytes: Int64 { map.doneBytes + pieces.reduce(0) { $0 + Int64($1.staged) } }

    /// Connections in flight.
    var active: Int { pieces.count }

    /// The holes no piece in flight covers, in order.
    func unassigned() -> [Range<Int64>] {
        var holes = map.missing
        for piece in pieces {
            holes = holes.flatMap { hole -> [Range<Int64>] in
                guard hole.overlaps(piece.start..<piece.end) else { return [hole] }
                var rest: [Range<Int64>] = []
                if hole.lowerBound < piece.start { rest.append(hole.lowerBound..<piece.start) }
                if piece.end < hole.upperBound { rest.append(piece.end..<hole.upperBound) }
                return rest
            }
        }
        return holes
    }

    /// Whether a source other than `source` is left (not dropped).
    func hasSource(besides source: Int) -> Bool {
        sources.indices.contains { $0 != source && sources[$0].dropped == nil }
    }

    /// The source a new connection should use: the one with the fewest connections in flight, below the limit
    /// per source, not dropped; nil when there is none.
    func freeSource() -> Int? {
        sources.indices.filter { sources[$0].dropped == nil && sources[$0].active < perSource }
            .min { sources[$0].active < sources[$1].active }
    }

    /// The range a new connection fetches, if any, and the piece in flight it is cut from (nil when it is a hole
    /// nobody fetches). In order: the first hole nobody fetches (at most ``pieceLength`` and an even share of what is
    /// unassigned, at least ``minPiece``); else
    /// the second half of the piece in flight that would take longest, if at least twice ``minPiece`` is left of
    /// it; else the whole rest of a piece whose connection has stalled (``Piece/isStalled(at:)``) or, when `freed`
    /// (the speed of a connection that just finished) is given, is less than a quarter as fast and has more than a
    /// second to go: that connection is then retired. Does not change anything.
    func nextRange(now: Double, freed: Double?) -> (range: Range<Int64>, from: Piece?, retire: Bool)? {
        let holes = unassigned()
        if let hole = holes.first {
            let total = holes.reduce(Int64(0)) { $0 + Int64($1.count) }
            let share = max(min(total / Int64(max(wanted - active, 1)), pieceLength), minPiece)
            return (hole.lowerBound..<min(hole.upperBound, hole.lowerBound + share), nil, false)
        }
        let slowest = pieces.filter { $0.remaining > 0 }.max { $0.eta(at: now) < $1.eta(at: now) }
        guard let slowest else { return nil }
        if slowest.remaining >= 2 * minPiece {
            let middle = slowest.position + slowest.remaining / 2
            return (middle..<slowest.end, slowest, false)
        }
        if let stalled = pieces.first(where: { $0.isStalled(at: now) }) {
            return (stalled.position..<stalled.end, stalled, true)
        }
        if let freed, slowest.eta(at: now) > 1, slowest.speed(at: now) * 4 < freed,
            now - slowest.startedAt > Piece.stallTime
        {
            return (slowest.position..<slowest.end, slowest, true)
        }
        return nil
    }

    /// The length of a new piece cut from a hole (before the even share and ``minPiece`` bound it): what one connection
    /// brings in ``pieceSeconds`` (or ``latencyShare`` first-byte waits, if longer); ``minPiece`` until a piece is
    /// done.
    var pieceLength: Int64 {
        guard let connectionSpeed else { return minPiece }
        let seconds = max(Self.pieceSeconds, latency * Self.latencyShare)
        return Int64(min(connectionSpeed * seconds, Double(Int64.max / 2)))
    }

    /// Learns the speed of one connection and the wait for a first byte from `piece`, just done (its first byte at
    /// `firstByteAt`); pieces too short to measure are left out.
    func learn(from piece: Piece, firstByteAt: Double?, now: Double) {
        guard piece.received >= 64 * 1024, now - piece.startedAt >= 0.01 else { return }
        let speed = piece.speed(at: now)
        connectionSpeed = connectionSpeed.map { ($0 + speed) / 2 } ?? speed
        if let firstByteAt {
            let wait = max(firstByteAt - piece.startedAt, 0)
            latency = (latency + wait) / 2
        }
    }

    /// Takes `range` off the piece it is cut from (`from`'s end moves down to its start).
    func cut(_ from: Piece, at offset: Int64) {
        from.end = max(offset, from.position)
    }

    /// Adds a piece in flight, with a buffer to gather its bytes in.
    func add(_ piece: Piece) {
        piece.buffer = spareBuffers.popLast() ?? .allocate(byteCount: Self.chunkSize, alignment: 64)
        pieces.append(piece)
        sources[piece.source].active += 1
        peak = max(peak, pieces.count)
    }

    /// Writes what `piece` gathered and takes it out of flight: its unreceived rest becomes a hole again.
    func remove(_ piece: Piece) throws(TransferError) {
        guard let index = pieces.firstIndex(where: { $0 === piece }) else { return }
        pieces.remove(at: index)
        sources[piece.source].active -= 1
        defer {
            if let buffer = piece.buffer { spareBuffers.append(buffer) }
            piece.buffer = nil
            piece.staged = 0
        }
        try writeOut(piece)
    }

    /// Takes body bytes of `piece`: gathered, written when the chunk is full. Returns how many it took: fewer than
    /// given when the piece ends before them (its range was cut).
    func receive(_ bytes: UnsafeRawBufferPointer, for piece: Piece) throws(TransferError) -> Int {
        guard let buffer = piece.buffer else { return 0 }
        let accepted = Int(min(Int64(bytes.count), piece.remaining))
        if accepted > 0 { piece.lastByteAt = TransferLoop.now() }
        var rest = UnsafeRawBufferPointer(rebasing: bytes[..<accepted])
        while let source = rest.baseAddress, !rest.isEmpty {
            let count = min(buffer.count - piece.staged, rest.count)
            (buffer.baseAddress! + piece.staged).copyMemory(from: source, byteCount: count)
            piece.staged += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if piece.staged == buffer.count || piece.remaining == 0 { try writeOut(piece) }
        }
        return accepted
    }

    /// Writes every piece's gathered bytes.
    func flushAll() throws(TransferError) {
        for piece in pieces { try writeOut(piece) }
    }

    /// Writes what `piece` gathered at its offset, then records the map and publishes a grown prefix.
    private func writeOut(_ piece: Piece) throws(TransferError) {
        guard piece.staged > 0, let buffer = piece.buffer else { return }
        let count = piece.staged
        try file.store(UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: piece.written)
        piece.staged = 0
        let range = piece.written..<(piece.written + Int64(count))
        piece.written = range.upperBound
        sources[piece.source].bytes += Int64(count)
        unsynced += Int64(count)
        if unsynced >= Self.writebackStep {
            unsynced = 0
            file.startWriteback()
        }
        let prefix = map.prefix
        map.add(range)
        try file.writePieces(map)
        if map.prefix > prefix { hashes.publish(follower, size: map.prefix) }
    }

    /// One line on who served what, e.g. `4 connections; example.org/a.iso: 64.0 MB`.
    var summary: String {
        let served = sources.filter { $0.bytes > 0 || $0.dropped != nil }.map { source in
            var line = "\(Segments.name(of: source.url)): \(TransferActivity.formatBytes(source.bytes))"
            if let dropped = source.dropped { line += " (dropped: \(dropped))" }
            return line
        }
        return (["\(peak) connection\(peak == 1 ? "" : "s")"] + served).joined(separator: "; ")
    }

    /// A URL as the log names a source: `host[:port]/path`, without the scheme, user name or password, query or
    /// fragment (they may hold secrets), at most 100 characters.
    static func name(of url: String) -> String {
        let rest = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        let plain = rest.prefix { $0 != "?" && $0 != "#" }
        let authority = plain.prefix { $0 != "/" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return String((host + plain.dropFirst(authority.count)).prefix(100))
    }
}
