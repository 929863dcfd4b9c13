import LedgerTransfer

/// Download folders opened for one piece of scheduler work, each at most once (``DownloadFolder`` opens a folder
/// and its two hidden folders: three `openat` and three `close`). A batch of facts looks into the folder of every
/// file that completed, twice: for the placed file's identity, then to remove its partial once the fact is
/// recorded; with 200 files finishing in one folder, that was two openings of it per file.
///
/// Short-lived, like the folders it holds: made for one batch and let go with it, so a folder replaced meanwhile
/// is opened afresh by the next batch. A folder that cannot be opened is remembered as such for the batch.
final class FolderMemo {
    private var opened: [String: DownloadFolder?] = [:]

    /// `directory` opened (without creating anything), or nil when it cannot be.
    func folder(_ directory: String) -> DownloadFolder? {
        if let known = opened[directory] { return known }
        let folder = try? DownloadFolder(directory: directory)
        opened[directory] = folder
        return folder
    }
}
