import CProcessShims
import Glibc

/// Waiting for a descriptor to become readable, or for a termination signal (Ctrl-C), whichever
/// comes first: how `--watch` waits between runs (docs/manual/watch.md), the signals being blocked and so
/// read from a signalfd, as the runner reads them during a run.
public enum SignalWait {
    public enum Outcome: Equatable {
        case readable
        /// The `also` descriptor is readable.
        case alsoReadable
        /// The signal's number; it is taken (read), so it does not also stop the next run.
        case signal(Int32)
        case timedOut
    }

    /// Waits up to `timeoutMilliseconds` (-1: without end) for `descriptor` or a termination signal.
    /// `also`: a second descriptor to wait for (`.alsoReadable`).
    ///
    /// A Ctrl-Z (SIGTSTP) meanwhile calls `suspend`, which returns once opsrun is continued, and the
    /// wait starts again; without it opsrun stops alone, as no task is running
    /// (`ProcessRunner.suspend()` also stops the services `--watch` keeps).
    public static func wait(
        for descriptor: Int32, also: Int32? = nil, timeoutMilliseconds: Int32, suspend: (() -> Void)? = nil
    ) -> Outcome {
        var signals = SignalHandling.runLoopSignals
        let signalFD = signalfd(-1, &signals, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        defer { if signalFD >= 0 { close(signalFD) } }
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if signalFD >= 0 { descriptors.append(pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)) }
        if let also { descriptors.append(pollfd(fd: also, events: Int16(POLLIN), revents: 0)) }
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return .timedOut }
            if signalFD >= 0, descriptors[1].revents & Int16(POLLIN) != 0 {
                var signals: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0, 0, 0)
                let taken = withUnsafeMutableBytes(of: &signals) {
                    cps_signalfd_read(signalFD, $0.baseAddress!.assumingMemoryBound(to: Int32.self))
                }
                let termination = withUnsafeBytes(of: &signals) { raw in
                    (0..<Int(max(taken, 0))).lazy.map { raw.load(fromByteOffset: $0 * 4, as: Int32.self) }
                        .first { $0 != SIGTSTP }
                }
                if let termination { return .signal(termination) }
                if taken > 0 {
                    (suspend ?? SelfStop.stopThisProcess)()
                    continue
                }
            }
            if descriptors[0].revents == 0, also != nil { return .alsoReadable }
            return .readable
        }
    }
}
