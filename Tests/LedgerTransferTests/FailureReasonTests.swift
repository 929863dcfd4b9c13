import LedgerTransfer
import Testing

struct FailureReasonTests {
    static let all: [FailureReason] = [
        .http(503), .connection("Connection refused"), .timeout("Operation too slow"), .tooManyRedirects,
        .checksumMismatch(expected: "ab", actual: "cd"), .diskFull, .fileSystem("Permission denied: x:y"),
        .rangeNotSatisfiable, .sizeMismatch(expected: 10, actual: 7), .invalidURL("ftp://x"),
        .tls("bad cert"), .protocolViolation("status 999 is outside 100–599"),
        .tooLarge(limit: 1000, announced: 5000), .tooLarge(limit: 1000, announced: nil),
        .tooManyOpenFiles("cannot open x: Too many open files"),
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
                .http(503), .connection("Connection refused"), .timeout("Operation too slow"),
                .sizeMismatch(expected: 10, actual: 7),
                .tooManyOpenFiles("cannot open x: Too many open files"),
            ])
        #expect(FailureReason.http(408).isRetryable)
        #expect(FailureReason.http(429).isRetryable)
        #expect(!FailureReason.http(404).isRetryable)
        #expect(!FailureReason.http(403).isRetryable)
        #expect(!FailureReason.http(999).isRetryable)
        #expect(!FailureReason.http(600).isRetryable)
    }

    @Test func describesItselfInOneSentence() {
        #expect(FailureReason.http(404).description == "the server answered HTTP 404 (Not Found)")
        #expect(!Self.all.contains { $0.description.contains("\n") || $0.description.isEmpty })
        let hash = "55dd" + String(repeating: "1", count: 60)
        let zeros = String(repeating: "0", count: 64)
        #expect(
            FailureReason.checksumMismatch(expected: hash, actual: zeros).description
                == "checksum mismatch: expected 55dd11111111…, got 000000000000…")
        #expect(
            FailureReason.sizeMismatch(expected: 2_400_000, actual: 960_000).description
                == "connection closed after 960 KB of 2.4 MB")
        #expect(FailureReason.diskFull.description == "disk full: no space left for the partial file")
        #expect(FailureReason.timeout("").description == "timed out")
        #expect(FailureReason.tooManyRedirects.description.hasPrefix("too many redirects"))
        #expect(FailureReason.rangeNotSatisfiable.description.hasPrefix("range not satisfiable"))
        #expect(
            FailureReason.tooLarge(limit: 1_000_000, announced: nil).description
                == "too large: the body went past the 1.0 MB maximum size without an announced length")
    }

    @Test func storedFailuresReadAsSentencesEvenUnknownOnes() {
        // What the ledger stores (code, detail) gives the same sentence; a code this version does not know (or a
        // detail it cannot read) still reads as a line, never an empty one.
        for reason in Self.all {
            #expect(FailureReason.sentence(code: reason.code, detail: reason.detail) == reason.description)
        }
        #expect(
            FailureReason.sentence(code: "diskFull", detail: "")
                == "disk full: no space left for the partial file")
        #expect(FailureReason.sentence(code: "quantumFlux", detail: "") == "quantumFlux")
        #expect(FailureReason.sentence(code: "sizeMismatch", detail: "x") == "sizeMismatch: x")
        #expect(FailureReason.sentence(code: "", detail: "") == "unknown error")
    }
}
