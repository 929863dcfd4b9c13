import LedgerTransfer
import Testing

struct FailureReasonTests {
    static let all: [FailureReason] = [
        .http(503), .connection("Connection refused"), .timeout, .tooManyRedirects,
        .checksumMismatch(expected: "ab", actual: "cd"), .diskFull, .fileSystem("Permission denied: x:y"),
        .rangeNotSatisfiable, .sizeMismatch(expected: 10, actual: 7), .invalidURL("ftp://x"),
        .tls("bad cert"),
    ]

    @Test(arguments: all)
    func restoresFromCodeAndDetail(reason: FailureReason) {
        #expect(FailureReason(code: reason.code, detail: reason.detail) == reason)
    }

    @Test func refusesUnknownCodesAndBadDetails() {
        #expect(FailureReason(code: "nope", detail: "") == nil)
        #expect(FailureReason(code: "http", detail: "x") == nil)
        #expect(FailureReason(code: "sizeMismatch", detail: "1") == nil)
    }

    @Test func retryableFaultsAreTheTransientOnes() {
        let retryable = Self.all.filter(\.isRetryable)
        #expect(
            retryable == [
                .http(503), .connection("Connection refused"), .timeout,
                .sizeMismatch(expected: 10, actual: 7),
            ])
        #expect(FailureReason.http(408).isRetryable)
        #expect(FailureReason.http(429).isRetryable)
        #expect(!FailureReason.http(404).isRetryable)
        #expect(!FailureReason.http(403).isRetryable)
    }

    @Test func describesItselfInOneLine() {
        #expect(FailureReason.http(404).description == "HTTP status 404")
        #expect(!Self.all.contains { $0.description.contains("\n") })
    }
}
