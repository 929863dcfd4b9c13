/// What a front end shows while its downloader runs (the CLI's progress lines): started when the run starts,
/// stopped, after its last report, when the run ends.
public protocol ProgressDisplay: Sendable {
    /// Starts showing progress.
    func start()
    /// Shows the last changes and stops.
    func stop() async
}
