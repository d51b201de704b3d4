import OpsrunEngine
import OpsrunReport

/// `--explain` in a run where no task has `sources` or `outputs`: there is no up-to-date
/// bookkeeping to ask (docs/manual/up-to-date.md), yet each task that runs still says why, in the
/// words the bookkeeping uses for such a task. Made only with `--explain`.
final class ExplainsAlwaysRuns: UpToDateChecking {
    private let specs: [OperationSpec]
    private let status: Status

    init(specs: [OperationSpec], status: Status) {
        self.specs = specs
        self.status = status
    }

    func decide(_ index: Int) -> UpToDateDecision {
        // Groups run nothing, so there is nothing to explain about them.
        if !specs[index].isGroup { status.explain("\(specs[index].name) runs: it has no sources") }
        return .mustRun
    }

    func willRun(_ index: Int) {}
    func didEnd(_ index: Int, succeeded: Bool) {}
    func runInterrupted() {}
}
