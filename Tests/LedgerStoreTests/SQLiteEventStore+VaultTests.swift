import Foundation
import LedgerCore
import TestSupport
import Testing

@testable import LedgerStore

/// The vault in the ledger file: what its bytes, its `-wal` and a backup hold, and what a purge leaves.
struct SQLiteVaultTests {
    let directory: TemporaryDirectory
    var path: String { directory.file("ledger.sqlite") }

    init() throws { directory = try TemporaryDirectory() }

    static let secret = Array("Cookie-S3CR3T-vault-value".utf8)

    /// An event whose payload carries `sealed` as its header value (as LedgerCore's add would).
    static func sealedEvent(_ task: Int64, _ sealed: SealedSecret) -> NewEvent {
        NewEvent(
            kind: "tasksAdded", version: 1, tasks: [task],
            payload: Array(#"{"id":\#(task),"headers":[["Cookie","\#(sealed.text)"]]}"#.utf8))
    }

    @Test func theFileHoldsTheSealedFormAndTheKeyButNeverTheSecret() throws {
        let key = try VaultKey.random(task: 1)
        let sealed = try key.seal(Self.secret, context: "header:cookie")
        let store = try SQLiteEventStore(path: path)
        _ = try store.append(
            [Self.sealedEvent(1, sealed)], expectingHead: 0, time: 1, vault: .init(added: [key]))
        let wal = try fileBytes(path + "-wal")
        #expect(occurs(Array(sealed.text.utf8), in: wal))
        #expect(occurs(key.bytes, in: wal))
        #expect(!occurs(Self.secret, in: wal))
        #expect(store.checkpoint())
        let file = try fileBytes(path)
        #expect(occurs(Array(sealed.text.utf8), in: file) && occurs(key.bytes, in: file))
        #expect(!occurs(Self.secret, in: file))
        // The sealed value reads back from another connection, read-only too.
        let reader = try SQLiteEventStore(path: path, readOnly: true)
        #expect(try reader.openSecret(sealed, context: "header:cookie") == Self.secret)
    }

    /// The file holds the keys: once it has one, only its owner reads it (and its backups).
    @Test func aBackupCarriesTheVault() throws {
        do {
            // Without credentials the file keeps the mode it was given.
            let plain = try SQLiteEventStore(path: directory.file("plain.sqlite"))
            chmod(directory.file("plain.sqlite"), 0o644)
            _ = try plain.append([sampleEvent(1)], expectingHead: 0, time: 1)
            #expect(try mode(directory.file("plain.sqlite")) == 0o644)
        }
        let key = try VaultKey.random(task: 1)
        let sealed = try key.seal(Self.secret, context: "header:cookie")
        let store = try SQLiteEventStore(path: path)
        chmod(path, 0o644)
        _ = try store.append(
            [Self.sealedEvent(1, sealed)], expectingHead: 0, time: 1, vault: .init(added: [key]))
        let copy = directory.file("copy.sqlite")
        #expect(try store.backup(to: copy) == 1)
        #expect(try mode(path) == 0o600 && mode(path + "-wal") == 0o600 && mode(copy) == 0o600)
        let backup = try SQLiteEventStore(path: copy, readOnly: true)
        #expect(try backup.openSecret(sealed, context: "header:cookie") == Self.secret)
        #expect(!occurs(Self.secret, in: try fileBytes(copy)))
    }

    @Test func aPurgeOverwritesTheKeyAndLeavesTheLogVerifiable() throws {
        let keys = try (1...3).map { try VaultKey.random(task: $0) }
        let sealed = try keys.map { try $0.seal(Self.secret, context: "header:cookie") }
        let store = try SQLiteEventStore(path: path)
        _ = try store.append(
            (0..<3).map { Self.sealedEvent(Int64($0 + 1), sealed[$0]) }, expectingHead: 0, time: 1,
            vault: .init(added: keys))
        #expect(store.checkpoint())
        #expect(occurs(keys[1].bytes, in: try fileBytes(path)))
        _ = try store.append(
            [sampleEvent(2, kind: "trashPurged")], expectingHead: 3, time: 2, vault: .init(removed: [2]))
        #expect(try store.vaultTasks() == [1, 3])
        #expect(store.checkpoint())
        // secure_delete: the deleted key's bytes are gone from the file, its neighbours' are not.
        let file = try fileBytes(path)
        #expect(!occurs(keys[1].bytes, in: file))
        #expect(occurs(keys[0].bytes, in: file) && occurs(keys[2].bytes, in: file))
        #expect(throws: VaultError.purged(task: 2)) {
            try store.openSecret(sealed[1], context: "header:cookie")
        }
        #expect(try store.openSecret(sealed[2], context: "header:cookie") == Self.secret)
        let report = try store.verifyChain()
        #expect(report.firstProblem == nil && report.head == 4)
    }

    @Test func aKeyReplacedInTheFileFailsToOpenClearly() throws {
        let key = try VaultKey.random(task: 1)
        let sealed = try key.seal(Self.secret, context: "header:cookie")
        do {
            let store = try SQLiteEventStore(path: path)
            _ = try store.append(
                [Self.sealedEvent(1, sealed)], expectingHead: 0, time: 1, vault: .init(added: [key]))
        }
        try Database(path: path).execute("UPDATE vault_keys SET key = randomblob(32)")
        let store = try SQLiteEventStore(path: path)
        let error = #expect(throws: VaultError.self) {
            try store.openSecret(sealed, context: "header:cookie")
        }
        #expect(error == .failedToOpen(task: 1, reason: "authentication failed (GCM tag mismatch)"))
        // A damaged row (not 32 bytes) cannot be written: the table checks it.
        #expect(throws: DatabaseError.self) {
            try Database(path: path).execute("UPDATE vault_keys SET key = randomblob(31)")
        }
    }

    @Test func anOlderLedgerGainsTheVaultOnOpen() throws {
        do {
            let db = try Database(path: path)
            try Migration.migrate(db, upTo: 3)
        }
        let old = try SQLiteEventStore(path: path, readOnly: true)
        #expect(!old.hasVault)
        #expect(try old.vaultTasks().isEmpty)
        #expect(try old.vaultKey(task: 1) == nil)
        let store = try SQLiteEventStore(path: path)
        #expect(store.hasVault)
        let key = try VaultKey.random(task: 1)
        _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 1, vault: .init(added: [key]))
        #expect(try store.vaultKey(task: 1) == key)
    }
}

/// A file's bytes, wrapped so a failed expectation prints its size, not every byte.
struct FileBytes: CustomStringConvertible {
    var bytes: [UInt8]
    var description: String { "\(bytes.count) bytes" }
}

func fileBytes(_ path: String) throws -> FileBytes {
    FileBytes(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
}

/// Whether `needle` occurs in `haystack` (a plain scan: files here are small).
func occurs(_ needle: [UInt8], in file: FileBytes) -> Bool {
    let haystack = file.bytes
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var index = 0
    while let start = haystack[index...].firstIndex(of: first), start + needle.count <= haystack.count {
        if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        index = start + 1
    }
    return false
}

/// The permission bits of `path`.
func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int) ?? -1
}
