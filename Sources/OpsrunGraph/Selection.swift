/// Selecting what a run needs: the named tasks and everything they need, transitively.
extension TaskGraph {
    /// Every task `roots` need, the roots included, as a mask indexed by task id.
    ///
    /// Iterative, so a 100,000-task chain cannot overflow the stack. Ids out of range are ignored.
    public func closureMask(of roots: [Int]) -> [Bool] {
        var selected = [Bool](repeating: false, count: count)
        for root in roots { addClosure(of: root, to: &selected) }
        return selected
    }

    /// Marks `root` and everything it needs in `selected`, stopping at tasks already marked.
    public func addClosure(of root: Int, to selected: inout [Bool]) {
        guard root >= 0 && root < count && !selected[root] else { return }
        selected[root] = true
        var stack = [root]
        while let task = stack.popLast() {
            for p in prerequisites[task] where !selected[p] {
                selected[p] = true
                stack.append(p)
            }
        }
    }

    /// Every task `roots` need, the roots included, as ids in manifest order.
    public func closure(of roots: [Int]) -> [Int] {
        let mask = closureMask(of: roots)
        return mask.indices.filter { mask[$0] }
    }
}
