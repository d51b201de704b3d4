import OpsrunCore
import OpsrunEngine
import OpsrunGraph
import OpsrunManifest
import OpsrunPlan

/// A task's depfile as `-n` shows it: its path (variables expanded) and the files it listed after
/// the task's last success, as recorded (`nil`: no record of them).
public struct PlanDepfile: Equatable, Sendable {
    public var path: String
    public var inputs: [String]?

    public init(path: String, inputs: [String]?) {
        self.path = path
        self.inputs = inputs
    }
}

/// `-n/--dry-run`: the plan of a run, wave by wave, with each task's commands.
public enum PlanPrinter {
    /// The formats `--dry-run` can print.
    public static let formats: [OutputFormat] = [.text, .json]

    /// The plan in `format`; `upToDate` holds the ids of tasks that would be skipped as up to date,
    /// `arguments` the arguments after `--` by task id, shown after each of its commands.
    ///
    /// `text`, waves numbered from 1, tasks in the order the queue would pick them:
    /// ```
    /// wave 1:
    ///   fetch (queue net)
    ///     $ curl -fsSL "$URL" -o src.tgz
    /// wave 2:
    ///   compile (priority high, up to date)
    ///     $ cc -MMD -c main.c
    ///     depfile main.d: main.c include/x.h
    ///   all (group)
    ///   test
    ///     $ pytest "$@"  # args: -v '-k foo'
    /// wave 3:
    ///   compile (2 instances)         (an `each` task, once its instances have finished)
    ///   db (service, stopped after wave 3)
    ///     $ postgres -D data
    ///     ready $ pg_isready
    ///     cleanup $ ./collect-logs
    /// ```
    /// `json`, fields in this order (`depfile` only for a task with one; `inputs` null when none
    /// are recorded):
    /// ```
    /// {"waves": [[{"name": "compile", "commands": ["cc -c main.c"], "queue": "net" | null,
    ///              "priority": "normal", "deps": ["fetch"], "upToDate": false,
    ///              "depfile": {"path": "main.d", "inputs": ["main.c", "include/x.h"] | null}}]]}
    /// ```
    /// and, for the task named before `--` only, `"arguments": ["-v", "-k foo"]` after `commands`;
    /// for a service, `"service": {"ready": "pg_isready" | null, "ready_timeout_ms": 60000,
    /// "stopped_after_wave": 3}`; for a task with cleanup commands, `"cleanup": ["./collect-logs"]`.
    /// `depfiles`: by task id, for the tasks that have one.
    /// `shownCommands`: a task's commands as the text shows them (with the variables opsrun sets
    /// substituted, `ShownCommand`); the JSON keeps them as written, which is what the shell runs.
    /// Throws a diagnostic for `dot` and `mermaid`, which do not apply to a plan.
    public static func render(
        _ plan: Plan, of graph: TaskGraph, format: OutputFormat, upToDate: Set<Int> = [],
        arguments: [Int: [String]] = [:], depfiles: [Int: PlanDepfile] = [:],
        shownCommands: ((Int) -> [String]?)? = nil
    ) throws(Diagnostic) -> String {
        switch format {
        case .text:
            return text(plan, graph, upToDate, arguments, depfiles, shownCommands ?? { _ in nil })
        case .json: return json(plan, graph, upToDate, arguments, depfiles)
        case .dot, .mermaid: throw OutputFormat.unsupported(format, by: "--dry-run", supported: formats)
        }
    }

    static func text(
        _ plan: Plan, _ graph: TaskGraph, _ upToDate: Set<Int>, _ arguments: [Int: [String]],
        _ depfiles: [Int: PlanDepfile], _ shownCommands: (Int) -> [String]?
    ) -> String {
        var out = ""
        for (k, wave) in plan.waves.enumerated() {
            out += "wave \(k + 1):\n"
            for id in wave {
                let task = graph.tasks[id]
                var notes: [String] = []
                if task.each != nil {
                    // The task of an `each`'s instances, which finishes when they all have.
                    let count = graph.prerequisites[id].lazy.filter { graph.tasks[$0].instance != nil }.count
                    notes.append(count == 0 ? "no instances" : "\(count) instance\(count == 1 ? "" : "s")")
                } else if task.isGroup {
                    notes.append("group")
                }
                if task.service != nil {
                    // A service no wave stops did not start: what needs it is up to date.
                    notes.append(
                        plan.serviceStops[id].map { "service, stopped after wave \($0 + 1)" }
                            ?? "service, not started: what needs it is up to date")
                }
                if let queue = task.queue { notes.append("queue \(queue.value)") }
                if task.priority != .normal { notes.append("priority \(task.priority.name)") }
                if upToDate.contains(id) { notes.append("up to date") }
                out += "  " + graph.names[id]
                out += notes.isEmpty ? "\n" : " (" + notes.joined(separator: ", ") + ")\n"
                let shownCommands = task.isGroup ? nil : shownCommands(id)
                for (k, command) in task.commands.enumerated() {
                    // A multi-line command (a `|` block) keeps its later lines under the first
                    // one's text; the block's final newline would only add a blank line.
                    let shown = ArgumentsNote.appended(to: shownCommands?[k] ?? command.value, arguments[id] ?? [])
                    var lines = shown.split(separator: "\n", omittingEmptySubsequences: false)
                    while lines.count > 1, lines.last!.isEmpty { lines.removeLast() }
                    out += "    $ " + lines.joined(separator: "\n      ") + "\n"
                }
                if let ready = task.service?.ready { out += "    ready $ " + ready.value + "\n" }
                for command in task.cleanup { out += "    cleanup $ " + command.value + "\n" }
                if let depfile = depfiles[id] {
                    // Names a command wrote: their control characters must not reach the terminal.
                    let inputs = depfile.inputs.map { inputs in
                        inputs.isEmpty ? "no files" : inputs.map(TerminalText.escapingControlCharacters).joined(separator: " ")
                    } ?? "not read yet"
                    out += "    depfile \(TerminalText.escapingControlCharacters(depfile.path)): \(inputs)\n"
                }
            }
        }
        return out
    }

    static func json(
        _ plan: Plan, _ graph: TaskGraph, _ upToDate: Set<Int>, _ arguments: [Int: [String]],
        _ depfiles: [Int: PlanDepfile]
    ) -> String {
        let waves = plan.waves.map { wave in
            OrderedJSON.array(
                wave.map { id in
                    let task = graph.tasks[id]
                    var fields: [(String, OrderedJSON)] = [
                        ("name", .string(graph.names[id])),
                        ("commands", .strings(task.commands.map { $0.value })),
                    ]
                    if let taskArguments = arguments[id] { fields.append(("arguments", .strings(taskArguments))) }
                    fields += [
                        ("queue", .optional(task.queue?.value)),
                        ("priority", .string(task.priority.name)),
                        ("deps", .strings(graph.prerequisites[id].map { graph.names[$0] })),
                        ("upToDate", .bool(upToDate.contains(id))),
                    ]
                    if let service = task.service {
                        fields.append(("service", .object([
                            ("ready", .optional(service.ready?.value)),
                            ("ready_timeout_ms", .int(service.readyTimeoutMilliseconds)),
                            ("stopped_after_wave", plan.serviceStops[id].map { .int($0 + 1) } ?? .null),
                        ])))
                    }
                    if !task.cleanup.isEmpty { fields.append(("cleanup", .strings(task.cleanup.map { $0.value }))) }
                    if let depfile = depfiles[id] {
                        fields.append(("depfile", .object([
                            ("path", .string(depfile.path)), ("inputs", depfile.inputs.map(OrderedJSON.strings) ?? .null),
                        ])))
                    }
                    return .object(fields)
                })
        }
        return OrderedJSON.object([("waves", .array(waves))]).rendered
    }
}
