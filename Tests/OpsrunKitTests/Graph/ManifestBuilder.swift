import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunManifest
@testable import OpsrunGraph

/// Builds manifests as if each task were written in this block layout, so locations are realistic:
///
/// ```
/// tasks:                      line 1
///   compile:                  name at column 3
///     desc: Compile it        one line if any
///     deps: [fetch, gen]      first entry at column 12, then 2 past the previous name
///     run: cc -c main.c       one line per command
///     queue: net              one line if any
///     priority: high          one line if not normal
/// ```
struct ManifestBuilder {
    var file = "Tasksfile.yaml"
    private var line = 2
    private(set) var tasks: [TaskSpec] = []

    init(file: String = "Tasksfile.yaml") { self.file = file }

    mutating func task(
        _ name: String, deps: [String] = [], run: [String] = [], desc: String? = nil,
        queue: String? = nil, priority: QueuePriority = .normal
    ) {
        let nameLine = line
        line += 1
        if desc != nil { line += 1 }
        var located: [Located<String>] = []
        if !deps.isEmpty {
            var column = 12
            for dep in deps {
                located.append(Located(dep, at: at(line, column)))
                column += dep.count + 2
            }
            line += 1
        }
        var commands: [Located<String>] = []
        for command in run {
            commands.append(Located(command, at: at(line, 10)))
            line += 1
        }
        let queued = queue.map { q -> Located<String> in
            defer { line += 1 }
            return Located(q, at: at(line, 12))
        }
        if priority != .normal { line += 1 }
        tasks.append(
            TaskSpec(
                name: name, location: at(nameLine, 3), description: desc, deps: located,
                commands: commands.isEmpty && deps.isEmpty ? [Located("true", at: at(nameLine, 3))] : commands,
                queue: queued, priority: priority))
    }

    func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }

    var manifest: Manifest { Manifest(file: file, directory: "/project", tasks: tasks) }
    var graph: TaskGraph { TaskGraph(manifest: manifest) }

    /// A graph from `name: deps` pairs, each task running one command.
    static func graph(_ tasks: KeyValuePairs<String, [String]>) -> TaskGraph {
        var builder = ManifestBuilder()
        for (name, deps) in tasks { builder.task(name, deps: deps, run: ["echo \(name)"]) }
        return builder.graph
    }

    /// `t0 -> t1 -> … -> t(n-1)`, each depending on the next; the last on `t0` when `closed`.
    static func chain(_ n: Int, closed: Bool) -> TaskGraph {
        let file = "Tasksfile.yaml"
        var tasks: [TaskSpec] = []
        tasks.reserveCapacity(n)
        for i in 0..<n {
            let next = i + 1 < n ? i + 1 : (closed ? 0 : nil)
            let deps = next.map { [Located("t\($0)", at: SourceLocation(file: file, line: 3 * i + 3, column: 12))] } ?? []
            tasks.append(
                TaskSpec(
                    name: "t\(i)", location: SourceLocation(file: file, line: 3 * i + 2, column: 3), deps: deps,
                    commands: [Located("true", at: SourceLocation(file: file, line: 3 * i + 4, column: 10))]))
        }
        return TaskGraph(manifest: Manifest(file: file, directory: "/project", tasks: tasks))
    }
}
