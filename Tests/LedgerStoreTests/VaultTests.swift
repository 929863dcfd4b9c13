import LedgerCore
import Testing

@testable import LedgerStore

/// The vault's cipher (AES-256-GCM) and the vault contract, on every store.
struct VaultTests {
    typealias Kind = EventStoreContractTests.Kind
    typealias Subject = EventStoreContractTests.Subject

    static let secret = Array("Bearer S3CR3T-token-0123456789".utf8)

    /// Known answers from the GCM specification (McGrew & Viega, test cases 13 and 14: AES-256, zero key and
    /// nonce), so the cipher is AES-256-GCM and not merely something that opens what it sealed.
    @Test func theCipherGivesGCMsKnownAnswers() throws {
        let zeroKey = try #require(VaultKey(task: 1, stored: [UInt8](repeating: 0, count: 32)))
        let nonce = [UInt8](repeating: 0, count: 12)
        let empty = try VaultCipher.run(encrypt: true, input: [], key: zeroKey, nonce: nonce, aad: [])
        #expect(hexString(empty) == "530f8afbc74536b9a963b4f1c4cb738b")
        let block = try VaultCipher.run(
            encrypt: true, input: [UInt8](repeating: 0, count: 16), key: zeroKey, nonce: nonce, aad: [])
        #expect(hexString(block) == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")
        let opened = try VaultCipher.run(encrypt: false, input: block, key: zeroKey, nonce: nonce, aad: [])
        #expect(opened == [UInt8](repeating: 0, count: 16))
    }

    @Test func aSealedValueOpensWithItsKeyAndPlaceOnly() throws {
        let key = try VaultKey.random(task: 7)
        let sealed = try key.seal(Self.secret, context: "header:authorization")
        #expect(sealed.keyTask == 7 && sealed.nonce.count == 12)
        #expect(sealed.box.count == Self.secret.count + 16)
        #expect(try key.open(sealed, context: "header:authorization") == Self.secret)
        // Sealed twice, the same secret looks different (random nonce).
        let again = try key.seal(Self.secret, context: "header:authorization")
        #expect(again.nonce != sealed.nonce && again.box != sealed.box)
        #expect(throws: VaultError.failedToOpen(task: 7, reason: "authentication failed (GCM tag mismatch)"))
        {
            try key.open(sealed, context: "header:cookie")
        }
        let otherKey = try VaultKey.random(task: 7)
        #expect(throws: VaultError.self) { try otherKey.open(sealed, context: "header:authorization") }
        let moved = SealedSecret(keyTask: 8, nonce: sealed.nonce, box: sealed.box)
        let eight = try VaultKey.random(task: 8)
        #expect(throws: VaultError.self) { try eight.open(moved, context: "header:authorization") }
        #expect(throws: VaultError.self) { try key.open(moved, context: "header:authorization") }
    }

    @Test func aTamperedValueFailsItsTagWithAClearReason() throws {
        let key = try VaultKey.random(task: 3)
        let sealed = try key.seal(Self.secret, context: "proxy")
        for index in [0, sealed.box.count / 2, sealed.box.count - 1] {
            var box = sealed.box
            box[index] ^= 0x01
            let tampered = SealedSecret(keyTask: 3, nonce: sealed.nonce, box: box)
            let error = #expect(throws: VaultError.self) { try key.open(tampered, context: "proxy") }
            #expect(error?.description.contains("GCM tag mismatch") == true)
        }
        var nonce = sealed.nonce
        nonce[0] ^= 0x80
        #expect(throws: VaultError.self) {
            try key.open(SealedSecret(keyTask: 3, nonce: nonce, box: sealed.box), context: "proxy")
        }
        let cut = SealedSecret(keyTask: 3, nonce: sealed.nonce, box: Array(sealed.box.prefix(10)))
        #expect(throws: VaultError.malformed("nonce or tag of the wrong length")) {
            try key.open(cut, context: "proxy")
        }
    }

    @Test func theTextFormRoundTripsAndRefusesWhatIsNotOne() throws {
        let sealed = try VaultKey.random(task: 42).seal(Self.secret, context: "c")
        let text = sealed.text
        #expect(text.hasPrefix("sealed:v1:42:") && SealedSecret.isSealed(text))
        #expect(SealedSecret(text: text) == sealed)
        #expect("\(sealed)" == "<sealed>" && !text.contains("S3CR3T"))
        let parts = text.split(separator: ":").map(String.init)
        for bad in [
            "", "sealed:v1:", "sealed:v2:42:\(parts[3]):\(parts[4])", "sealed:v1:0:\(parts[3]):\(parts[4])",
            "sealed:v1:042:\(parts[3]):\(parts[4])", "sealed:v1:-1:\(parts[3]):\(parts[4])",
            "sealed:v1:42:\(parts[3].dropLast()):\(parts[4])",
            "sealed:v1:42:\(parts[3]):\(parts[4].prefix(30))",
            "sealed:v1:42:\(parts[3]):\(parts[4].uppercased())", "sealed:v1:42:\(parts[3]):\(parts[4]):",
            "sealed:v1:99999999999999999999:\(parts[3]):\(parts[4])",
        ] {
            #expect(SealedSecret(text: bad) == nil, "\(bad)")
        }
    }

    @Test(arguments: Kind.allCases) func keysCommitWithTheirEventsAndPurgesDeleteThem(kind: Kind) throws {
        let store = try Subject(kind).store
        let seven = try VaultKey.random(task: 7)
        let eight = try VaultKey.random(task: 8)
        let sealed = try seven.seal(Self.secret, context: "header:authorization")
        _ = try store.append(
            [sampleEvent(7), sampleEvent(8)], expectingHead: 0, time: 1,
            vault: VaultChange(added: [seven, eight]))
        #expect(try store.vaultTasks() == [7, 8])
        #expect(try store.vaultKey(task: 7) == seven)
        #expect(try store.openSecret(sealed, context: "header:authorization") == Self.secret)
        // A refused append (stale head) stores no key.
        let nine = try VaultKey.random(task: 9)
        #expect(throws: StoreError.conflict(head: 2)) {
            try store.append([sampleEvent(9)], expectingHead: 1, time: 2, vault: VaultChange(added: [nine]))
        }
        #expect(try store.vaultKey(task: 9) == nil)
        // A second key for a task is refused, with its events.
        #expect(throws: (any Error).self) {
            try store.append([sampleEvent(8)], expectingHead: 2, time: 2, vault: VaultChange(added: [eight]))
        }
        #expect(try store.head() == 2)
        _ = try store.append(
            [sampleEvent(7, kind: "trashPurged")], expectingHead: 2, time: 3, vault: VaultChange(removed: [7])
        )
        #expect(try store.vaultTasks() == [8])
        #expect(throws: VaultError.purged(task: 7)) {
            try store.openSecret(sealed, context: "header:authorization")
        }
        #expect(try store.verifyChain().firstProblem == nil)
    }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        .joined()
}
