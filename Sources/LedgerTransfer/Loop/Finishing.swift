import Glibc

/// The blocking end of one transfer, run on the ``CompletionQueue``: make the partial file durable, then either
/// verify and place it (``complete()``) or keep it for a resume (``stop()``).
///
/// The loop hands over the file and forgets the job before submitting this, so nothing else touches them: that is
/// what makes the `@unchecked Sendable` sound.
struct Finishing: @unchecked Sendable {
    let request: TransferRequest
    let file: PartialFile
    let follower: HashFollower
    let hashes: HashWorker
    /// The name to place the file under (or the first free variant of it).
    let name: String
    /// Leave the partial file in place after linking it (``TransferConfig/keepPlacedPartials``).
    let keepPartial: Bool
    /// ``TransferConfig/ledgerPath``: its names are never taken.
    let ledgerPath: String?
    /// Bytes kept in the partial file (a segmented file's holes not counted).
    let kept: Int64

    /// Wait for the hash and verify it, then link the file to a free final name, fsync the file and its directory
    /// (``FilePlacement/place(id:folder:base:keepPartial:ledgerPath:sync:)``, through the folder the partial file
    /// was opened in): `.completed` only once both are durable. The writeback is started first, so the disk works
    /// while the hash catches up.
    func complete() -> TransferEvent {
        let id = request.id
        do {
            file.startWriteback()
            let digest = hashes.digest(of: follower, size: file.size)
            hashes.forget(follower)
            let sha256 = try digest.get()
            if let expected = request.expectedSHA256?.lowercased(), expected != sha256 {
                file.remove()
                return .failed(
                    id: id, reason: .checksumMismatch(expected: expected, actual: sha256), retryable: false,
                    bytes: file.size)
            }
            let placed = try Self.waitingForDescriptors { () throws(TransferError) -> String in
                try FilePlacement.place(
                    id: request.id, folder: file.folder, base: name, keepPartial: keepPartial,
                    ledgerPath: ledgerPath, sync: file.sync)
            }
            return .completed(id: id, bytes: file.size, sha256: sha256, fileName: placed)
        } catch {
            hashes.forget(follower)
            if file.size == 0 { file.remove() }
            let reason = error.reason
            return .failed(id: id, reason: reason, retryable: reason.isRetryable, bytes: kept)
        }
    }

    /// Runs `work`, again every 50 ms for up to a minute while it fails for lack of descriptors (EMFILE, ENFILE):
    /// a complete file is not failed for what other transfers hold.
    static func waitingForDescriptors<T>(_ work: () throws(TransferError) -> T) throws(TransferError) -> T {
        var tries = 0
        while true {
            do {
                return try work()
            } catch .tooManyOpenFiles where tries < 1200 {
                tries += 1
                usleep(50_000)
            }
        }
    }

    /// Makes the received bytes durable for a later resume; an empty partial file is removed instead.
    func stop() -> TransferEvent {
        hashes.forget(follower)
        if file.size == 0 {
            file.remove()
        } else {
            try? file.sync()
        }
        return .stopped(id: request.id, bytes: kept)
    }
}
