import OpsrunCore
/// Reading `each:` of a task (docs/manual/each.md): a mapping of variable names to a glob or a list of values.
extension ManifestChecker {
    /// The `each` mapping of task `task`; `nil` when nothing usable is written (each problem is
    /// reported at its place).
    mutating func each(_ node: YAMLNode, task: String) -> EachSpec? {
        let whole = "'each' of task '\(task)'"
        guard case .mapping(let entries) = node.content else {
            error(
                "\(whole) must be a mapping of variable names to a glob or a list of values, not \(node.kindDescription)",
                at: node.location)
            return nil
        }
        if entries.isEmpty {
            error("\(whole) is empty; name at least one variable, as in { SRC: \"src/*.c\" }", at: node.location)
            return nil
        }
        var variables: [EachVariable] = []
        var valid = true
        for entry in entries {
            let name = entry.key
            if !ManifestNames.isEnvironmentName(name) {
                error(
                    "invalid variable name '\(name)' in \(whole); use letters, digits and '_', not starting with a digit",
                    at: entry.keyLocation)
                valid = false
            } else if name == "OPSRUN_TASK" {
                error("'OPSRUN_TASK' cannot be a variable of \(whole): opsrun sets it to the task's name", at: entry.keyLocation)
                valid = false
            }
            guard let values = eachValues(entry.value, variable: name, in: whole) else {
                valid = false
                continue
            }
            variables.append(EachVariable(name: name, location: entry.keyLocation, values: values))
        }
        return valid ? EachSpec(variables: variables, location: node.location) : nil
    }

    /// One variable's values: a glob (a string) or a list of strings, none empty, none repeated.
    private mutating func eachValues(_ node: YAMLNode, variable: String, in whole: String) -> EachValues? {
        let what = "'\(variable)' in \(whole)"
        switch node.content {
        case .scalar(let text, _):
            if node.isNull || Self.isBlank(text) {
                error("\(what) is empty; give a glob or a list of values", at: node.location)
                return nil
            }
            checkExpansions(text, at: node.location, in: what)
            return .glob(Located(text, at: node.location))
        case .mapping:
            error("\(what) must be a glob or a list of values, not a mapping", at: node.location)
            return nil
        case .sequence(let entries):
            if entries.isEmpty {
                error("\(what) is an empty list; give at least one value", at: node.location)
                return nil
            }
            var values: [Located<String>] = []
            values.reserveCapacity(entries.count)
            // The place of each value, to name the first of a repeat; a scan of the earlier ones
            // for a short list, a dictionary for a long one (100,000 values must stay linear).
            var firstPlace: [String: SourceLocation] = [:]
            let useDictionary = entries.count > 8
            if useDictionary { firstPlace.reserveCapacity(entries.count) }
            var valid = true
            for entry in entries {
                guard let text = entry.scalar else {
                    error("each value of \(what) must be a string, not \(entry.kindDescription)", at: entry.location)
                    valid = false
                    continue
                }
                if entry.isNull || Self.isBlank(text) {
                    error("a value of \(what) is empty", at: entry.location)
                    valid = false
                    continue
                }
                let first = useDictionary
                    ? firstPlace.updateValue(entry.location, forKey: text)
                    : values.first(where: { $0.value == text })?.location
                if let first {
                    if useDictionary { firstPlace[text] = first }
                    error(
                        "duplicate value '\(text)' of \(what) (first written at line \(first.line), column \(first.column))",
                        at: entry.location)
                    valid = false
                    continue
                }
                checkExpansions(text, at: entry.location, in: "a value of \(what)")
                values.append(Located(text, at: entry.location))
            }
            return valid ? .list(values) : nil
        }
    }
}
