import CProcessShims
import Glibc

/// One epoll set over the children's pipes and pidfds, plus a signalfd for the termination
/// signals and SIGTSTP (`SignalHandling.runLoopSignals`), and SIGCHLD when child exits come that way (`ProcessRunner.ChildExitNotice`).
final class EventPoller {
    private let epollFD: Int32
    private let signalFD: Int32
    private let tokens: UnsafeMutablePointer<UInt64>
    private static let capacity: Int32 = 64

    init(childExitSignal: Bool) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epollFD >= 0, "epoll_create1 failed: errno \(errno)")
        // The signalfd only ever sees signals that are blocked; when the CLI has not blocked them
        // (as in tests) it stays silent and they act as usual.
        var signals = SignalHandling.runLoopSignals
        if childExitSignal { sigaddset(&signals, SIGCHLD) }
        signalFD = signalfd(-1, &signals, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        precondition(signalFD >= 0, "signalfd failed: errno \(errno)")
        tokens = .allocate(capacity: Int(Self.capacity))
        add(signalFD, .signal)
    }

    deinit {
        close(signalFD)
        close(epollFD)
        tokens.deallocate()
    }

    /// Readable when any descriptor added (or a signal) is: for waiting on it with others.
    var descriptor: Int32 { epollFD }

    func add(_ descriptor: Int32, _ token: PollToken) {
        let status = cps_epoll_add(epollFD, descriptor, token.rawValue)
        precondition(status == 0, "epoll_ctl(ADD) failed: errno \(errno)")
    }

    /// Unregisters and closes a descriptor. The explicit removal matters: epoll forgets a
    /// descriptor on close only if no copy of it survives anywhere (say, in a child another thread
    /// is forking), and a forgotten one at EOF would wake every wait.
    func removeAndClose(_ descriptor: Int32) {
        _ = cps_epoll_remove(epollFD, descriptor)
        close(descriptor)
    }

    /// Blocks up to `timeoutMilliseconds` (-1: no limit) and calls `body` with each thing that
    /// became ready, in order; none after a timeout or EINTR.
    func wait(timeoutMilliseconds: Int32, _ body: (PollToken) -> Void) {
        let count = cps_epoll_wait(epollFD, tokens, Self.capacity, timeoutMilliseconds)
        for index in 0..<Int(max(count, 0)) { body(PollToken(rawValue: tokens[index])) }
    }

    /// Calls `body` with each signal queued on the signalfd, oldest first: usually one read.
    func takeSignals(_ body: (Int32) -> Void) {
        var signals: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0, 0, 0)
        var taken: Int32
        repeat {
            taken = withUnsafeMutableBytes(of: &signals) {
                cps_signalfd_read(signalFD, $0.baseAddress!.assumingMemoryBound(to: Int32.self))
            }
            withUnsafeBytes(of: &signals) { raw in
                for index in 0..<Int(taken) { body(raw.load(fromByteOffset: index * 4, as: Int32.self)) }
            }
        } while taken == 8
    }
}
