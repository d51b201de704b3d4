import OpsrunCore
import OpsrunGraph
import OpsrunIncremental
import OpsrunManifest

/// Two tasks of a run declaring one output (`outputs: [build/obj.o]` in an `each` task, where
/// `build/${SRC%.c}.o` was meant) would each make the other out of date, run after run, or write
/// the file at the same time: an error before anything starts, as ninja's "multiple rules
/// generate". Only outputs without wildcards are compared, as written after `${...}` expansion
/// and normalized (`./build//a.o` is `build/a.o`), from each task's directory.
public enum SharedOutputs {
    /// One error per task (an instance's task) that declares an output an earlier task of the run
    /// declared too. `specs[i]` is task `selection[i]` of `graph`, as `incrementalSpecs` makes them.
    public static func problems(of specs: [IncrementalTaskSpec], selection: [Int], graph: TaskGraph) -> [Diagnostic] {
        // Keyed by the path relative to the directory most tasks run in (the first task's, the
        // manifest's as a rule), absolute otherwise: most keys are then the short path as written,
        // with no absolute path made for each (a settled 10,000-task no-op: 518 M -> 484 M
        // instructions, callgrind).
        let common = specs.first?.absoluteDirectory ?? ""
        let commonPrefix = common.hasSuffix("/") ? common : common + "/"
        func key(_ path: String, in directory: String) -> String {
            if path.utf8.first != UInt8(ascii: "/") {
                if directory == common { return path }
                return relative(directory + "/" + path)
            }
            return relative(path)
        }
        func relative(_ absolute: String) -> String {
            absolute.utf8.starts(with: commonPrefix.utf8) ? String(absolute.dropFirst(commonPrefix.count)) : absolute
        }
        var owners: [String: Int] = [:]
        owners.reserveCapacity(specs.count)
        var reported: Set<String> = []
        var diagnostics: [Diagnostic] = []
        for (index, spec) in specs.enumerated() where !spec.outputs.isEmpty {
            for (k, output) in spec.outputs.enumerated() {
                // An empty one is EmptyPaths' error, not a shared output.
                guard !output.isEmpty, let path = GlobPattern.literalPath(of: output) else { continue }
                let key = key(path, in: spec.absoluteDirectory)
                guard let owner = owners[key] else {
                    owners[key] = index
                    continue
                }
                guard owner != index else { continue }
                let task = graph.tasks[selection[index]]
                guard reported.insert(task.instance?.task ?? task.name).inserted else { continue }
                diagnostics.append(.error(
                    "output '\(output)' of task '\(spec.name)' is also an output of task '\(specs[owner].name)'; "
                        + "a file can be the output of one task only",
                    at: task.outputs[k].location))
            }
        }
        return diagnostics
    }
}
