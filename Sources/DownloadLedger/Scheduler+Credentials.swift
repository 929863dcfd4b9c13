import LedgerCore
import LedgerStore
import LedgerTransfer

/// The one place a credential is opened: the request handed to curl. Nothing else the scheduler or the ledger
/// shows ever holds one in clear.
extension Scheduler {
    /// The failure code of a task whose credential cannot be opened.
    static let credentialFailure = "credential"

    /// The request for `task`, its credentials opened from the vault; nil when one cannot be opened (its key is
    /// gone, or the value or the vault was altered): the task then fails with that reason, logged, and its slot
    /// is freed, rather than being requested without its credential or with a wrong one.
    func request(for task: DownloadTask, in list: DownloadList) -> TransferRequest? {
        do {
            return try TransferRequest(task: task, in: list) { sealed, place in
                try ledger.openCredential(sealed, task: task.id, context: place)
            }
        } catch let error where StoreError.isConnectionLoss(error) {
            // The vault is in the database, out of reach: the task waits for the next pass after the outage.
            finish(task.id)
            enterOutage(error, headBefore: nil)
            return nil
        } catch {
            let detail = (error as? VaultError)?.reason ?? "\(error)"
            let reason = TaskFailure(code: Self.credentialFailure, detail: detail, retryable: false)
            do {
                let seq = try ledger.record(.transferFailed(id: task.id, failure: reason, bytes: task.bytes))
                mailbox.appended(1, endingAt: seq)
            } catch {
                noteFailure(error)
            }
            finish(task.id)
            // The loop matches again for the slot this frees: nothing else wakes it, since the fact just recorded
            // is this scheduler's own and the change notification does not count it.
            mailbox.matchAgain()
            return nil
        }
    }
}
