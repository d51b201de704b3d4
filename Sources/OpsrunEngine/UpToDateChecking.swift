/// Decides whether a ready operation's work is already done (SPEC §5), and hears how the
/// operations that did run ended, so it can record their success.
///
/// The engine knows nothing of files or hashes; the driver adapts the incremental state to this.
public protocol UpToDateChecking: AnyObject {
    /// Asked once per operation, when it becomes ready (so its prerequisites have ended):
    /// `true` finishes it as `.upToDate` without running it.
    func isUpToDate(_ index: Int) -> Bool
    /// The operation is about to run (its first attempt, or a group about to finish).
    func willRun(_ index: Int)
    /// An operation that was announced by `willRun` ended; only a success may be recorded.
    func didEnd(_ index: Int, succeeded: Bool)
}
