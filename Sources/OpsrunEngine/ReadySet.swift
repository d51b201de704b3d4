/// The ready operations of a run, on the main queue and the named queues (ninja's pools).
///
/// An operation of a named queue is *admitted* to the main heap only while its queue has room;
/// otherwise it waits in its queue's own heap, so a full queue never blocks anything else. A slot
/// of a named queue is held from admission until the operation finishes.
struct ReadySet {
    private var main = ReadyHeap()
    private var waiting: [ReadyHeap]
    /// Per named queue: admitted operations, ready in `main` or executing.
    private var admitted: [Int]
    private let bounds: [Int]

    init(queueBounds: [Int]) {
        precondition(queueBounds.allSatisfy { $0 >= 1 }, "a queue's bound must be at least 1")
        bounds = queueBounds
        waiting = Array(repeating: ReadyHeap(), count: queueBounds.count)
        admitted = Array(repeating: 0, count: queueBounds.count)
    }

    /// The operation to start next, if any is admitted.
    var top: ReadyKey? { main.top }

    mutating func insert(_ key: ReadyKey, queue: Int?) {
        guard let queue else { return main.insert(key) }
        if admitted[queue] < bounds[queue] {
            admitted[queue] += 1
            main.insert(key)
        } else {
            waiting[queue].insert(key)
        }
    }

    mutating func popTop() -> ReadyKey? { main.popTop() }

    /// An operation of `queue` finished: its slot goes to the queue's next waiting operation.
    mutating func release(queue: Int) {
        if let next = waiting[queue].popTop() {
            main.insert(next)
        } else {
            admitted[queue] -= 1
        }
    }
}
