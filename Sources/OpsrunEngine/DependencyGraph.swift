/// The dependents of every operation as flat adjacency arrays, and each one's critical path.
struct DependencyGraph {
    /// `dependents[dependentStart[i] ..< dependentStart[i + 1]]` depend on operation `i`.
    let dependentStart: [Int]
    let dependents: [Int]
    /// Number of prerequisites of each operation (each listed edge counts).
    let prerequisiteCount: [Int]

    init(prerequisites: [[Int]]) {
        let count = prerequisites.count
        var prerequisiteCount = [Int](repeating: 0, count: count)
        var start = [Int](repeating: 0, count: count + 1)
        for (index, list) in prerequisites.enumerated() {
            prerequisiteCount[index] = list.count
            for prerequisite in list {
                precondition(
                    prerequisites.indices.contains(prerequisite) && prerequisite != index,
                    "operation \(index) has an invalid prerequisite \(prerequisite)")
                start[prerequisite + 1] += 1
            }
        }
        for index in 0..<count { start[index + 1] += start[index] }
        var fill = start
        var dependents = [Int](repeating: 0, count: start[count])
        for (index, list) in prerequisites.enumerated() {
            for prerequisite in list {
                dependents[fill[prerequisite]] = index
                fill[prerequisite] += 1
            }
        }
        self.dependentStart = start
        self.dependents = dependents
        self.prerequisiteCount = prerequisiteCount
    }

    func dependents(of index: Int) -> ArraySlice<Int> {
        dependents[dependentStart[index]..<dependentStart[index + 1]]
    }

    /// The critical path of each operation: the largest sum of `costs` along a chain from it through
    /// its dependents, its own included. With every cost 1, the number of operations on the
    /// longest chain. Kahn's topological order, then one pass in reverse: linear, no recursion.
    func criticalPaths(costs: [UInt64]) -> [UInt64] {
        let count = prerequisiteCount.count
        precondition(costs.count == count, "one cost per operation")
        var remaining = prerequisiteCount
        var order = (0..<count).filter { remaining[$0] == 0 }
        order.reserveCapacity(count)
        var next = 0
        while next < order.count {
            let index = order[next]
            next += 1
            for dependent in self.dependents(of: index) {
                remaining[dependent] -= 1
                if remaining[dependent] == 0 { order.append(dependent) }
            }
        }
        // The lead rejects cycles before anything is scheduled (docs/manual/manifest.md).
        precondition(order.count == count, "the operations contain a dependency cycle")
        var path = costs
        for index in order.reversed() {
            var longest: UInt64 = 0
            for dependent in self.dependents(of: index) { longest = max(longest, path[dependent]) }
            // Saturating: a sum past 2^64 microseconds would only be a wrong order, not a crash.
            let (sum, overflow) = costs[index].addingReportingOverflow(longest)
            path[index] = overflow ? .max : sum
        }
        return path
    }
}
