import DownloadLedger
import Testing

@testable import LedgerFrontEnd

/// The readers of times, rates, sizes and whole numbers every front end uses (issue 10 §2, issue 11 §4).
@Suite struct ParsingTests {
    @Test func impossibleDatesAndTimesAreErrorsNotNormalised() throws {
        for bad in [
            "2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-11-29T25:00",
            "2026-11-29 23:61", "2026-11-29T12:00:60Z", "2026-11-29T12:00+24:00", "2026-11-29T12:00Z junk",
            "1e30", "nan", "inf", "-5", "1.", "9223372036854775807", "253402300800", "1969-12-31T23:59:59Z",
            "2026-11-29T12:00+01:0x",
        ] {
            #expect(throws: InputError.self, "\(bad)") { try Format.parseTime(bad) }
        }
        #expect(try Format.parseTime("2024-02-29T00:00:00Z") == 1_709_164_800_000)
        #expect(try Format.parseTime("2026-11-29T17:00:00.25+01:00") == 1_795_968_000_250)
        #expect(try Format.parseTime("2026-11-29T17:00:00.25+0100") == 1_795_968_000_250)
        #expect(try Format.parseTime("1795971600.5") == 1_795_971_600_500)
        #expect(try Format.parseTime("253402300799") == 253_402_300_799_000)
        #expect(try Format.parseTime("9999-12-31T23:59:59.999Z") == Numbers.time.upperBound)
    }

    @Test func ratesAreRangeCheckedAndNeverRoundToNoLimit() throws {
        #expect(try Format.parseRate("0") == 0)
        #expect(try Format.parseRate("0K") == 0)
        #expect(try Format.parseRate("500K") == 512_000)
        #expect(try Format.parseRate("500KB") == 500_000)
        #expect(try Format.parseRate("1.5MiB/s") == 1_572_864)
        #expect(try Format.parseRate("1.5MB/s") == 1_500_000)
        #expect(try Format.parseRate(".5K") == 512)
        #expect(try Format.parseRate("1000TB") == 1_000_000_000_000_000)
        for bad in [
            "0.0001K", "0.4", "1001T", "1000T", "5iB", "9999999999999999999G", "1e3", "NaN", "inf", "-1K",
            "0x10", "", "K",
            ".",
        ] {
            #expect(throws: InputError.self, "\(bad)") { try Format.parseRate(bad) }
        }
    }

    /// One rule for every size and rate the tool reads: a bare K, M, G… is 1024-based (as curl, wget and aria2c
    /// read `-k 4M` or `--limit-rate 1M`), with B 1000-based (as the tool prints sizes), with iB 1024-based.
    @Test func everySizeReadsABareUnitAs1024Based() throws {
        let cases: [(String, Int64)] = [
            ("4M", 4 << 20), ("4m", 4 << 20), ("4MiB", 4 << 20), ("4MB", 4_000_000), ("4 MB", 4_000_000),
            ("1K", 1024), ("1KB", 1000), ("1.5G", 1_610_612_736), ("1.5GB", 1_500_000_000), ("2000", 2000),
            ("2000B", 2000), ("16GiB", 16 << 30), ("1T", 1 << 40), ("1EB", 1_000_000_000_000_000_000),
        ]
        for (text, bytes) in cases {
            #expect(try Format.parseSize(text) == bytes, "\(text)")
        }
        // min-split-size is the same rule with aria2's bounds (1M to 1G, 1M being 1 MiB).
        #expect(try Format.parseSplitSize("1M") == 1 << 20)
        #expect(try Format.parseSplitSize("20M") == 20 << 20)
        #expect(try Format.parseSplitSize("1G") == 1 << 30)
        #expect(try Format.parseSplitSize("1048576") == 1 << 20)
        for bad in ["1MB", "1000K", "1.1G", "0", "1048575", "x", ""] {
            #expect(throws: InputError.self, "\(bad)") { try Format.parseSplitSize(bad) }
        }
        for bad in ["999", "0.9K", "1E", "2E", "KB", "5iB", "1KiBB", "1e6", "-1M", "M"] {
            #expect(throws: InputError.self, "\(bad)") { try Format.parseSize(bad) }
        }
    }

    @Test func wholeNumbersAreRangeChecked() throws {
        #expect(try Numbers.whole("9223372036854775807", "x", in: Numbers.taskID) == Int64.max)
        for bad in ["9223372036854775808", "0", "-1", "+1", " 1", "1.0", "١"] {
            #expect(throws: InputError.self, "\(bad)") { try Numbers.whole(bad, "x", in: Numbers.taskID) }
        }
    }

    @Test func aTaskIDIsADigitStringOrOneWithAHash() throws {
        #expect(try Numbers.parseTaskID("7") == 7)
        #expect(try Numbers.parseTaskID("#7") == 7)
        for bad in ["0", "#0", "##7", "-7", "#", "", "7a", "# 7"] {
            #expect(throws: InputError.self, "\(bad)") { try Numbers.parseTaskID(bad) }
        }
    }
}
