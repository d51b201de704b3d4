import CProcessShims
import Glibc
import OpsrunEngine

/// The pipes running commands write their standard output and error into, kept from one command
/// to the next.
///
/// A fresh pair per command cost two `pipe2`, two `epoll_ctl` ADDs and DELs and six `close`s, and
/// a second wakeup when the pipes' end-of-file arrived before the exit did: about 4 % of a 2,000
/// `/bin/true` run (switched off later, 1.08× on that fan-in, 1.05× on the DAG: Benchmarks/README.md).
/// Here opsrun keeps both ends of each pair, registered once; a command gets the
/// write ends as its descriptors 1 and 2, and when it has exited and its process group is empty,
/// what it wrote is drained and the pair goes back to the pool.
///
/// Since opsrun holds the write ends, end-of-file never comes: a command's end is its exit, and
/// the drain stops when the pipe is empty. A pair whose command left processes behind in its group
/// is closed instead (`retire`), so they get EPIPE as before and never write into another task's
/// output. A process that left the group and kept the descriptor cannot be seen; if it writes
/// while its pair is idle, the pair is retired then, or when it is next taken; only what it writes
/// while another job holds the pair shows as that job's output.
final class OutputPipes {
    struct Pair {
        var output: (read: Int32, write: Int32)
        var error: (read: Int32, write: Int32)

        func reading(_ stream: OutputStreamKind) -> Int32 {
            stream == .standardOutput ? output.read : error.read
        }
    }

    /// By index (in poll tokens); nil once retired.
    private var pairs: [Pair?] = []
    /// The job slot each pair is lent to; nil while idle.
    private var owners: [Int?] = []
    private var idle: [Int] = []
    private var retired: [Int] = []

    /// A pair for the job in `slot`, from the pool or new; nil (errno set) when no pipe can be made.
    func acquire(for slot: Int, poller: EventPoller) -> Int? {
        while let index = idle.popLast() {
            guard !hasUnreadBytes(pairs[index]!) else {
                retire(index, poller: poller)
                continue
            }
            owners[index] = slot
            return index
        }
        guard let output = Self.makePipe() else { return nil }
        guard let error = Self.makePipe() else {
            let saved = errno
            close(output.read)
            close(output.write)
            errno = saved
            return nil
        }
        let index = retired.popLast() ?? pairs.count
        if index == pairs.count {
            pairs.append(nil)
            owners.append(nil)
        }
        pairs[index] = Pair(output: output, error: error)
        owners[index] = slot
        poller.add(output.read, .output(pipes: index, .standardOutput))
        poller.add(error.read, .output(pipes: index, .standardError))
        return index
    }

    /// The pair at `index`; nil once retired (an event of the same batch may still name it).
    subscript(index: Int) -> Pair? { index < pairs.count ? pairs[index] : nil }

    /// The slot of the job the pair is lent to, nil when idle or retired.
    func owner(of index: Int) -> Int? {
        index < owners.count ? owners[index] : nil
    }

    /// Returns a drained pair to the pool.
    func release(_ index: Int) {
        owners[index] = nil
        idle.append(index)
    }

    /// Closes a pair for good: whoever still holds its write ends gets EPIPE.
    func retire(_ index: Int, poller: EventPoller) {
        guard let pair = pairs[index] else { return }
        for descriptor in [pair.output.read, pair.error.read] { poller.removeAndClose(descriptor) }
        close(pair.output.write)
        close(pair.error.write)
        pairs[index] = nil
        if owners[index] == nil { idle.removeAll { $0 == index } }
        owners[index] = nil
        retired.append(index)
    }

    /// Closes every pair; for when the runner shuts down.
    func retireAll(poller: EventPoller) {
        for index in pairs.indices where pairs[index] != nil { retire(index, poller: poller) }
    }

    /// Whether anything was written to the pair since it was drained (by a process that kept it).
    private func hasUnreadBytes(_ pair: Pair) -> Bool {
        let unread = Self.unread(pair)
        return unread.output || unread.error
    }

    /// Which of the pair's pipes hold bytes now: one `poll` for both.
    static func unread(_ pair: Pair) -> (output: Bool, error: Bool) {
        var descriptors = (
            pollfd(fd: pair.output.read, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pair.error.read, events: Int16(POLLIN), revents: 0)
        )
        let ready = withUnsafeMutableBytes(of: &descriptors) {
            poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, 0)
        }
        guard ready > 0 else { return (false, false) }
        return (descriptors.0.revents != 0, descriptors.1.revents != 0)
    }

    /// A pipe with both ends close-on-exec (the child's copies, made by dup2, are not) and the
    /// read end (ours) non-blocking; the write end stays blocking, as a program expects of its
    /// standard output.
    private static func makePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard FileDescriptorLimit.retryingOnExhaustion({ cps_pipe_cloexec(&ends) == 0 ? true : nil }) != nil else {
            return nil
        }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return (ends[0], ends[1])
    }
}
