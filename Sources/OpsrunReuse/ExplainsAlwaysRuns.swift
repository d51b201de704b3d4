import OpsrunEngine

/// `--explain` in a run where no task has `sources` or `outputs`: there is no up-to-date
/// bookkeeping to ask (docs/manual/up-to-date.md), yet each task that runs still says why, in the
/// words the bookkeeping uses for such a task. Made only with `--explain`.
package final class ExplainsAlwaysRuns: UpToDateChecking {
    private let specs: [OperationSpec]
    private let explain: (String) -> Void

    package init(specs: [OperationSpec], explain: @escaping (String) -> Void) {
        self.specs = specs
        self.explain = explain
    }

    package func decide(_ index: Int) -> UpToDateDecision {
        // Groups run nothing, so there is nothing to explain about them.
        if !specs[index].isGroup { explain("\(specs[index].name) runs: it has no sources") }
        return .mustRun
    }

    package func willRun(_ index: Int) {}
    package func didEnd(_ index: Int, succeeded: Bool) {}
    package func runInterrupted() {}
}
