import LedgerTransfer

/// Download folders opened for one turn of the scheduler, each at most once (``DownloadFolder`` opens a folder and
/// its two hidden folders: three `openat` and three `close`). A turn looks into the folder of every file that
/// completed twice (the placed file's identity, then the removal of its partial once the fact is recorded), and
/// into the folder of every transfer it starts or prepares (the resume check of its partial): with 200 files in one
/// folder, each ending as its successor starts, that was three openings of the folder per file.
///
/// Short-lived, like the folders it holds: made for one turn and let go with it, so a folder replaced meanwhile is
/// opened afresh by the next turn. A folder that cannot be opened, or has no hidden folders yet, is remembered as
/// such for the turn: no partial of a task the turn starts can be there then.
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
