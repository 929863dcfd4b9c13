extension Aria2Service {
    /// Whether `token` is the secret (compared in time that depends only on the lengths); false when there is no
    /// secret, so a check that needs one (JSONP) fails on an open server.
    public func accepts(token: [UInt8]) -> Bool {
        guard let secret else { return false }
        return Self.same(token, secret)
    }
}
