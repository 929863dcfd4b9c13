/// What `verify` found. Valid only when `problems` is empty.
public struct VerifyReport: Sendable {
    public var events: Int64
    public var head: Int64
    public var snapshotSeq: Int64?
    public var filesChecked: Int
    /// Finished files on other hosts' disks (a shared ledger): not checked here, since this host cannot see them.
    public var filesElsewhere: Int = 0
    public var problems: [String]

    public var isValid: Bool { problems.isEmpty }
}
