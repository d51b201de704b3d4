/// A failed operation and the operations its failure cancelled, as a tree (docs/manual/running.md's summary).
///
/// Flattened in preorder with depths, so a 100,000-long chain of cancellations builds and frees
/// without recursion.
public struct FailureTree: Sendable, Equatable {
    /// The operation that failed.
    public var failed: Int
    /// Preorder: each node's children are the operations whose immediate cancelled prerequisite is
    /// that node, in spec order. Depth 1 means cancelled directly by `failed`.
    public var cancelled: [Node]

    public struct Node: Sendable, Equatable {
        public var index: Int
        public var depth: Int

        public init(index: Int, depth: Int) {
            self.index = index
            self.depth = depth
        }
    }

    public init(failed: Int, cancelled: [Node]) {
        self.failed = failed
        self.cancelled = cancelled
    }
}

extension RunReport {
    /// For each real failure, in spec order, the tree of operations it cancelled.
    public func failureTrees() -> [FailureTree] {
        // Children lists for every operation, built in one pass so the walk is linear.
        var children = [[Int]](repeating: [], count: operations.count)
        for (index, operation) in operations.enumerated() {
            if case .cancelled(let cause) = operation.state,
                let parent = cause.immediatePrerequisite
            {
                children[parent].append(index)
            }
        }
        return failures.map { failed in
            var nodes: [FailureTree.Node] = []
            // Pushed in reverse so that children pop in spec order.
            var stack = children[failed].reversed().map { FailureTree.Node(index: $0, depth: 1) }
            while let node = stack.popLast() {
                nodes.append(node)
                stack.append(
                    contentsOf: children[node.index].reversed().map {
                        FailureTree.Node(index: $0, depth: node.depth + 1)
                    })
            }
            return FailureTree(failed: failed, cancelled: nodes)
        }
    }
}
