extension TaskOptions {
    /// Writes the options as one JSON object: absent options omitted, a credential as `sealed` (never `value`).
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if !headers.isEmpty {
            w.beginArray("headers")
            for h in headers {
                w.beginObject()
                w.field("name", h.name)
                Self.write(h.value, &w)
                w.endObject()
            }
            w.endArray()
        }
        w.field("userAgent", userAgent)
        w.field("referer", referer)
        if let refererUserinfo {
            w.key("refererUserinfo")
            w.beginObject()
            Self.write(refererUserinfo, &w)
            w.endObject()
        }
        w.field("proxy", proxy)
        if let proxyUserinfo {
            w.key("proxyUserinfo")
            w.beginObject()
            Self.write(proxyUserinfo, &w)
            w.endObject()
        }
        if let userinfo {
            w.key("userinfo")
            w.beginObject()
            Self.write(userinfo, &w)
            w.endObject()
        }
        w.field("maxSpeed", maxSpeed)
        w.field("connections", connections.map(Int64.init))
        w.field("connectionsPerServer", connectionsPerServer.map(Int64.init))
        w.field("minSplitSize", minSplitSize)
        w.field("maxSize", maxSize)
        if !mirrors.isEmpty { w.field("mirrors", strings: mirrors) }
        w.endObject()
    }

    private static func write(_ value: HeaderValue, _ w: inout JSONWriter) {
        switch value {
        case .plain(let text): w.field("value", text)
        case .sealed(let sealed): w.field("sealed", sealed.ciphertext)
        }
    }

    /// A credential object: `{"value": …}` or `{"sealed": …}` (nil when it has neither).
    private static func readCredential(_ r: inout JSONReader) throws -> HeaderValue? {
        var value: HeaderValue?
        try r.object { r, k in
            if k.equals("value") {
                value = .plain(try r.string())
            } else if k.equals("sealed") {
                value = .sealed(SealedValue(ciphertext: try r.string()))
            } else {
                try r.skip()
            }
        }
        return value
    }

    /// Reads what `write(to:)` wrote. A header or proxy credential with both or neither of `value` and `sealed`,
    /// or a number out of range, is an error: a payload this version did not write.
    init(reading r: inout JSONReader) throws {
        self.init()
        var failure: String?
        try r.object { r, k in
            if k.equals("headers") {
                try r.array { r in
                    var name: String?
                    var value: HeaderValue?
                    try r.object { r, k in
                        if k.equals("name") {
                            name = try r.string()
                        } else if k.equals("value") || k.equals("sealed") {
                            if value != nil { failure = "a header with two values" }
                            let text = try r.string()
                            value = k.equals("value") ? .plain(text) : .sealed(SealedValue(ciphertext: text))
                        } else {
                            try r.skip()
                        }
                    }
                    guard let name, let value else { throw r.fail("a header without a name or value") }
                    headers.append(HeaderField(name: name, value: value))
                }
            } else if k.equals("userAgent") {
                userAgent = try r.string()
            } else if k.equals("referer") {
                referer = try r.string()
            } else if k.equals("refererUserinfo") {
                refererUserinfo = try Self.readCredential(&r)
            } else if k.equals("proxy") {
                proxy = try r.string()
            } else if k.equals("proxyUserinfo") {
                proxyUserinfo = try Self.readCredential(&r)
            } else if k.equals("userinfo") {
                userinfo = try Self.readCredential(&r)
            } else if k.equals("maxSpeed") {
                maxSpeed = try r.int()
            } else if k.equals("maxSize") {
                let n = try r.int()
                guard DownloadList.maxSizeRange.contains(n) else { throw r.fail("bad max size") }
                maxSize = n
            } else if k.equals("connections") {
                let n = try r.int()
                guard Int64(Self.connectionRange.lowerBound)...Int64(Self.connectionRange.upperBound) ~= n
                else {
                    throw r.fail("bad connections")
                }
                connections = Int(n)
            } else if k.equals("connectionsPerServer") {
                let n = try r.int()
                let range = Self.connectionPerServerRange
                guard Int64(range.lowerBound)...Int64(range.upperBound) ~= n else {
                    throw r.fail("bad connections per server")
                }
                connectionsPerServer = Int(n)
            } else if k.equals("minSplitSize") {
                let n = try r.int()
                guard Self.minSplitSizeRange.contains(n) else { throw r.fail("bad min split size") }
                minSplitSize = n
            } else if k.equals("mirrors") {
                try r.array { r in mirrors.append(try r.string()) }
            } else {
                try r.skip()
            }
        }
        if let failure { throw r.fail(failure) }
    }
}

extension BinaryWriter {
    /// Options in a snapshot: their JSON payload form, length-prefixed.
    mutating func options(_ options: TaskOptions) {
        var w = JSONWriter()
        options.write(to: &w)
        raw(w.bytes)
    }
}

extension BinaryReader {
    mutating func options() throws -> TaskOptions {
        var r = JSONReader(try raw())
        let options = try TaskOptions(reading: &r)
        guard r.atEnd() else { throw Truncated() }
        return options
    }
}
