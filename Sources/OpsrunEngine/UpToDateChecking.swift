/// Decides whether a ready operation's work is already done (docs/manual/up-to-date.md), and hears how the
/// operations that did run ended, so it can record their success.
///
/// The engine knows nothing of files or hashes; the driver adapts the incremental state to this.
public protocol UpToDateChecking: AnyObject {
    /// Asked once per operation, when it becomes ready (so its prerequisites have ended), and
    /// again if it answered `.interrupted` and the run goes on.
    func decide(_ index: Int) -> UpToDateDecision
    /// These operations just became ready and will be decided one by one, in this order (told
    /// once each, before the first of them is decided): work for them may start ahead, such as
    /// fetching from a remote cache. Each is still decided; by default nothing happens here.
    func willDecide(_ indices: ArraySlice<Int>)
    /// Whether `willDecide` does anything, asked once when the engine is made: when not, the
    /// engine does not call it (a run without a remote cache pays nothing for it).
    var looksAhead: Bool { get }
    /// The operation is about to run (its first attempt, or a group about to finish).
    func willRun(_ index: Int)
    /// An operation that was announced by `willRun` ended; only a success may be recorded.
    func didEnd(_ index: Int, succeeded: Bool)
    /// A signal interrupted the run: nothing more starts, so long work (hashing) may stop short.
    func runInterrupted()
    /// Asked after `didEnd`: recording the operation (hashing its outputs, the files its depfile
    /// lists) gave way to a termination signal the runner has not handed over yet. The engine
    /// then waits for that signal before it starts anything or ends the run: an interrupted run
    /// never ends as a success.
    var gaveWayToSignal: Bool { get }
}

extension UpToDateChecking {
    public func willDecide(_ indices: ArraySlice<Int>) {}
    public var looksAhead: Bool { false }
    public var gaveWayToSignal: Bool { false }
}

/// What `UpToDateChecking.decide` found.
public enum UpToDateDecision: Equatable, Sendable {
    /// Finish the operation as up to date, without running it.
    case upToDate
    case mustRun
    /// Its outputs were restored from the output cache (docs/manual/cache.md): finish it as `restored`,
    /// replaying the log it wrote when it ran.
    case restored(standardOutput: [UInt8], standardError: [UInt8])
    /// The operation fails without starting, for the reason given (a source it names is missing).
    case cannotRun(String)
    /// A termination signal arrived while deciding (hashing a large source takes a while): the
    /// engine must take it from the runner before it starts anything.
    case interrupted
}
