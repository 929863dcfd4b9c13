/// The request line and headers of one HTTP/1.x request.
struct RequestHead: Equatable {
    var method: String
    var target: String
    var version: String
    /// Names lower-cased; repeated headers joined with `", "`.
    var headers: [String: String]

    /// Why a request head is refused; every case is answered with 400 and a closed connection.
    enum Malformed: Error, Equatable {
        case requestLine
        case version
        case header
        case contentLength
        case transferEncoding
        case tooLarge
    }

    /// Parses the bytes before the empty line (CRLF or bare LF line ends).
    static func parse(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> RequestHead {
        // Split on bytes: as Characters, "\r\n" is one grapheme that a split on "\n" would not see.
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)[...]
        }
        while let first = lines.first, first.isEmpty { lines.removeFirst() }
        guard let requestLine = lines.first else { throw .requestLine }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.allSatisfy(isTokenByte),
            isTarget(parts[1])
        else { throw .requestLine }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else { throw .version }

        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .header }
            let name = line[..<colon]
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else { throw .header }
            let value = line[line.index(after: colon)...].trimmingSpaces()
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        return RequestHead(
            method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers)
    }

    /// The path the target names, without scheme, authority or query: the key resources are served under.
    var path: String {
        var rest = Substring(target)
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        return String(rest)
    }

    /// Whether the connection stays open after the response (HTTP/1.1 default, or 1.0 with keep-alive).
    var keepsAlive: Bool {
        let tokens = (headers["connection"] ?? "").lowercased().split(separator: ",").map {
            $0.trimmingSpaces()
        }
        if tokens.contains("close") { return false }
        return version == "HTTP/1.1" || tokens.contains("keep-alive")
    }

    /// The length of the request body that follows the head (requests with a body are read and discarded).
    func bodyLength() throws(Malformed) -> Int64 {
        if headers["transfer-encoding"] != nil { throw .transferEncoding }
        guard let text = headers["content-length"] else { return 0 }
        guard let length = Int64(text), length >= 0 else { throw .contentLength }
        return length
    }

    private static func isTarget(_ target: Substring) -> Bool {
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target == "*" else { return false }
        return target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
