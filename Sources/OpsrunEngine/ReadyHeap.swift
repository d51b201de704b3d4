/// What decides which ready operation starts first: priority, then critical path, then spec order.
struct ReadyKey: Sendable, Equatable {
    var priority: Int
    /// The cost of the longest chain from this operation to the end of the graph, its own included
    /// (`DependencyGraph.criticalPaths`): long work behind it starts it first.
    var criticalPath: UInt64
    var index: Int

    /// Whether `self` starts before `other`.
    func precedes(_ other: ReadyKey) -> Bool {
        if priority != other.priority { return priority > other.priority }
        if criticalPath != other.criticalPath { return criticalPath > other.criticalPath }
        return index < other.index
    }
}

/// A binary heap of ready operations whose top is the one to start next: O(log n) insert and pop.
struct ReadyHeap: Sendable {
    private var keys: [ReadyKey] = []

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }
    var top: ReadyKey? { keys.first }

    mutating func insert(_ key: ReadyKey) {
        keys.append(key)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard keys[child].precedes(keys[parent]) else { break }
            keys.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popTop() -> ReadyKey? {
        guard !keys.isEmpty else { return nil }
        keys.swapAt(0, keys.count - 1)
        let top = keys.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < keys.count && keys[left].precedes(keys[first]) { first = left }
            if right < keys.count && keys[right].precedes(keys[first]) { first = right }
            if first == parent { break }
            keys.swapAt(parent, first)
            parent = first
        }
        return top
    }
}
