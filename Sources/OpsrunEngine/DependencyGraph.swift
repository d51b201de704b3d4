/// The dependents of every operation as flat adjacency arrays, and each one's critical path.
struct DependencyGraph {
    /// `dependents[dependentStart[i] ..< dependentStart[i + 1]]` depend on operation `i`.
    let dependentStart: [Int]
    let dependents: [Int]
    /// Number of prerequisites of each operation (each listed edge counts).
    let prerequisiteCount: [Int]
    /// Operations on the longest chain from each operation through its dependents, itself included.
    let pathLength: [Int]

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
        self.pathLength = Self.longestChains(
            prerequisites: prerequisites, dependentStart: start, dependents: dependents,
            prerequisiteCount: prerequisiteCount)
    }

    func dependents(of index: Int) -> ArraySlice<Int> {
        dependents[dependentStart[index]..<dependentStart[index + 1]]
    }

    /// Kahn's topological order, then one pass in reverse: linear and without recursion.
    private static func longestChains(
        prerequisites: [[Int]], dependentStart: [Int], dependents: [Int], prerequisiteCount: [Int]
    ) -> [Int] {
        var remaining = prerequisiteCount
        var order = prerequisites.indices.filter { remaining[$0] == 0 }
        order.reserveCapacity(prerequisites.count)
        var next = 0
        while next < order.count {
            let index = order[next]
            next += 1
            for dependent in dependents[dependentStart[index]..<dependentStart[index + 1]] {
                remaining[dependent] -= 1
                if remaining[dependent] == 0 { order.append(dependent) }
            }
        }
        // The lead rejects cycles before anything is scheduled (SPEC §3).
        precondition(
            order.count == prerequisites.count, "the operations contain a dependency cycle")
        var length = [Int](repeating: 1, count: prerequisites.count)
        for index in order.reversed() {
            for dependent in dependents[dependentStart[index]..<dependentStart[index + 1]] {
                length[index] = max(length[index], length[dependent] + 1)
            }
        }
        return length
    }
}
