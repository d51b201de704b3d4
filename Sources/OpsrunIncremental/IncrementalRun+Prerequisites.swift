// How a task's prerequisites bear on it in this run (see IncrementalRun.swift, top): which ones
// count (a group stands for its own), what they left, and whether one that runs first, or ran
// without declaring outputs, makes the task run whatever its record says.

extension IncrementalRun {
    // MARK: - Prerequisites

    /// Whether a success of `task` is recorded: with neither sources nor outputs it always runs.
    func isRecorded(_ task: IncrementalTaskSpec) -> Bool {
        task.declaresInputs || !task.outputs.isEmpty
    }

    /// Why a task its record finds up to date runs after all, if it does: a prerequisite that runs
    /// first (in a dry run), or, without sources, one that ran without declaring outputs.
    /// `indices`: the same prerequisites as indices in `tasks`, when the check has them.
    func prerequisiteVerdict(
        of task: IncrementalTaskSpec, prerequisites: [String], indices: [Int]?
    ) -> UpToDateVerdict? {
        if !pending.isEmpty, let waiting = prerequisites.first(where: { pending.contains($0) }) {
            return .mustRun(.prerequisiteRunsFirst(waiting))
        }
        guard !task.declaresInputs else { return nil }
        func ranWithoutOutputs(_ spec: IncrementalTaskSpec, upToDate: Bool) -> Bool {
            spec.outputs.isEmpty && !spec.isService && !upToDate
        }
        let ran = indices.map { indices in
            indices.first { isChecked[$0] && ranWithoutOutputs(tasks[$0], upToDate: wasUpToDate[$0]) }.map { tasks[$0].name }
        } ?? prerequisites.first { name in
            checkedSpec(named: name).map { ranWithoutOutputs($0, upToDate: upToDate(name)) } ?? false
        }
        return ran.map { .mustRun(.prerequisiteRanWithoutOutputs($0)) }
    }

    /// A group with neither sources nor outputs: up to date when all its prerequisites were.
    func groupVerdict(of task: IncrementalTaskSpec, prerequisiteIndices: [Int]?) -> UpToDateVerdict {
        if let prerequisiteIndices {
            let ran = prerequisiteIndices.first { !(isChecked[$0] && wasUpToDate[$0]) }
            return ran.map { .mustRun(.prerequisiteRan(tasks[$0].name)) } ?? .upToDate(.prerequisitesUpToDate)
        }
        if let waiting = task.prerequisites.first(where: { pending.contains($0) }) {
            return .mustRun(.prerequisiteRunsFirst(waiting))
        }
        if let ran = task.prerequisites.first(where: { !upToDate($0) }) { return .mustRun(.prerequisiteRan(ran)) }
        return .upToDate(.prerequisitesUpToDate)
    }

    /// Whether the task named was checked and found up to date in this run.
    func upToDate(_ name: String) -> Bool {
        if let index = index(named: name), isChecked[index] { return wasUpToDate[index] }
        return upToDateNames.contains(name)
    }

    // MARK: - Gathering

    /// The absolute directory of the task named, if it was checked in this run.
    func checkedDirectory(of name: String) -> String? { checkedSpec(named: name)?.absoluteDirectory }

    func checkedSpec(named name: String) -> IncrementalTaskSpec? {
        if let index = index(named: name), isChecked[index] { return tasks[index] }
        return checkedSpecs[name]
    }

    func index(named name: String) -> Int? {
        if taskIndexByName == nil {
            taskIndexByName = Dictionary(tasks.indices.map { (tasks[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return taskIndexByName?[name]
    }

    /// The prerequisites whose outputs count, with groups replaced by their own prerequisites.
    func effectivePrerequisites(of task: IncrementalTaskSpec) -> [String] {
        var result: [String] = []
        var seen: Set<String> = []
        var work = Array(task.prerequisites.reversed())
        while let name = work.popLast() {
            guard seen.insert(name).inserted else { continue }
            if let spec = checkedSpec(named: name), spec.commands.isEmpty {
                work.append(contentsOf: spec.prerequisites.reversed())
                if spec.outputs.isEmpty { continue }
            }
            result.append(name)
        }
        return result
    }

    /// `effectivePrerequisites(of:)` for the `index`th of `tasks`, as indices, when it and every
    /// group it walks through were checked with their prerequisites' indices (a run's are): no
    /// lookup by name. c300's link, behind a group of 300 instances: 75 -> 25 us of its check
    /// (timestamps, 120 runs).
    func effectivePrerequisites(ofIndex index: Int) -> [Int]? {
        guard let direct = prerequisiteIndicesOfTask[index] else { return nil }
        var result: [Int] = []
        var seen: Set<Int> = []
        var work = Array(direct.reversed())
        while let next = work.popLast() {
            guard seen.insert(next).inserted else { continue }
            if isChecked[next], tasks[next].commands.isEmpty {
                guard let inner = prerequisiteIndicesOfTask[next] else { return nil }
                work.append(contentsOf: inner.reversed())
                if tasks[next].outputs.isEmpty { continue }
            }
            result.append(next)
        }
        return result
    }

    /// The prerequisite's outputs as it left them in this run, or as they are on disk now.
    func outputsLeft(by name: String) -> [FileDigest] {
        if let known = exports[name] { return known }
        guard let spec = checkedSpec(named: name) else { return [] }
        return outputStates(of: spec).compactMap { state in state.digest.map { FileDigest(path: state.path, digest: $0) } }
    }
}
