import CPostgres

/// A ledger in PostgreSQL, as the user wrote it: a `postgresql://` (or `postgres://`) URI whose `ledger=NAME`
/// query parameter picks one of several ledgers in the database (default `main`, one schema each).
///
/// ```swift
/// let location = try PostgresLocation("postgresql://me:secret@db.lan/downloads?ledger=lab&sslmode=require")
/// location.ledger      // "lab"
/// location.schema      // "dledger_lab"
/// location.masked      // "postgresql://me:***@db.lan/downloads?ledger=lab&sslmode=require"
/// location.conninfo    // the URI without `ledger=lab`: what libpq reads
/// ```
///
/// Everything else in the URI is libpq's (host, port, a unix socket folder, `sslmode`, `passfile`…).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The URI as given, minus nothing: never printed (it may hold a password), see ``masked``.
    let uri: String
    /// The URI without the `ledger` parameter, handed to libpq. It may hold a password: never print it.
    public let conninfo: String
    /// The ledger's name: lowercase letters, digits and `_`, starting with a letter, at most 40 characters.
    public let ledger: String
    /// The URI with its password (in the user part or a `password=` parameter) replaced by `***`.
    public let masked: String

    /// The name of the ledger's schema in the database.
    public var schema: String { "dledger_" + ledger }
    /// The channel appends NOTIFY on and every store of this ledger LISTENs to.
    var channel: String { schema }

    public var description: String { masked }

    /// Whether `text` names a PostgreSQL ledger (it starts with `postgresql://` or `postgres://`).
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses `text`.
    /// - Throws: `StoreError.badLocation` for anything that is not a URI libpq accepts, or a `ledger` name that is
    ///   not a plain lowercase name; the message shows the URI with its password masked.
    public init(_ text: String) throws {
        let masked = Self.mask(text)
        guard Self.isPostgres(text) else {
            throw StoreError.badLocation("\(masked) is not a postgresql:// URI")
        }
        var ledger = "main"
        var conninfo = text
        if let question = text.firstIndex(of: "?") {
            let base = text[..<question]
            var kept: [Substring] = []
            var named = false
            for item in text[text.index(after: question)...].split(
                separator: "&", omittingEmptySubsequences: false)
            {
                guard item.hasPrefix("ledger=") || item == "ledger" else {
                    kept.append(item)
                    continue
                }
                guard !named else { throw StoreError.badLocation("\(masked) names the ledger twice") }
                named = true
                ledger = String(item.dropFirst("ledger=".count))
            }
            conninfo = kept.isEmpty ? String(base) : base + "?" + kept.joined(separator: "&")
        }
        guard Self.isValidName(ledger) else {
            throw StoreError.badLocation(
                "\(masked): the ledger name '\(ledger)' must be 1 to 40 lowercase letters, digits or _, "
                    + "starting with a letter")
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            let reason = error.map { String(cString: $0) } ?? "libpq cannot parse it"
            if let error { PQfreemem(error) }
            throw StoreError.badLocation("\(masked): \(Self.oneLine(Self.maskSecrets(reason, of: text)))")
        }
        PQconninfoFree(options)
        self.uri = text
        self.conninfo = conninfo
        self.ledger = ledger
        self.masked = masked
    }

    /// Whether `name` is a ledger name: `[a-z][a-z0-9_]{0,39}` (it becomes part of a schema's name).
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            bytes.count <= 40
        else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }

    /// `uri` with the password of its user part (`user:PASSWORD@`) and of a `password=` parameter replaced by
    /// `***`.
    public static func mask(_ uri: String) -> String {
        var text = uri
        if let scheme = text.firstRange(of: "://") {
            let rest = text[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"),
                let colon = rest[..<at].firstIndex(of: ":")
            {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        guard let question = text.firstIndex(of: "?") else { return text }
        let query = text[text.index(after: question)...].split(
            separator: "&", omittingEmptySubsequences: false
        )
        .map { $0.hasPrefix("password=") ? "password=***" : String($0) }
        return text[...question] + query.joined(separator: "&")
    }

    /// `message` with every password `uri` holds (as written and percent-decoded) replaced by `***`.
    static func maskSecrets(_ message: String, of uri: String) -> String {
        var secrets: [String] = []
        if let scheme = uri.firstRange(of: "://") {
            let rest = uri[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":")
            {
                secrets.append(String(rest[rest.index(after: colon)..<at]))
            }
        }
        if let question = uri.firstIndex(of: "?") {
            for item in uri[uri.index(after: question)...].split(separator: "&")
            where item.hasPrefix("password=") {
                secrets.append(String(item.dropFirst("password=".count)))
            }
        }
        var out = message
        for secret in secrets where !secret.isEmpty {
            for form in [secret, secret.removingPercentEncodingSafely] where !form.isEmpty {
                out = out.replacing(form, with: "***")
            }
        }
        return out
    }

    /// libpq's messages span lines ("connection to server … failed: FATAL:  …\n", a hint after "\n\t"): one line,
    /// spaces and tabs collapsed.
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

extension String {
    /// The string with `%XX` escapes decoded (invalid ones kept as they are).
    fileprivate var removingPercentEncodingSafely: String {
        var bytes: [UInt8] = []
        let utf8 = Array(self.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
