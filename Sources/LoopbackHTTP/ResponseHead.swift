/// The status line and headers of a response, serialised in insertion order.
struct ResponseHead {
    var status: Int
    var headers: [(name: String, value: String)] = []
    /// Lines sent as they are after the headers (``Faults/rawHeaders``).
    var rawLines: [String] = []

    init(status: Int) {
        self.status = status
        add("Server", "LoopbackHTTP")
    }

    mutating func add(_ name: String, _ value: String) {
        headers.append((name, value))
    }

    /// Adds the header when `value` is not nil.
    mutating func add(_ name: String, _ value: String?) {
        if let value { add(name, value) }
    }

    var bytes: [UInt8] {
        var text = "HTTP/1.1 \(status) \(ResponseHead.reason(status))\r\n"
        for header in headers {
            text += "\(header.name): \(header.value)\r\n"
        }
        for line in rawLines { text += line + "\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
