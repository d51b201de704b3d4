import Glibc
import OpsrunKit
import Testing

@Suite struct ProcessSignalTests {
    /// A SIGTERM sent to this very thread while it blocks SIGTERM stays pending on the thread,
    /// where the runner's signalfd (read on the same thread) finds it; the rest of the test
    /// process never sees it. The CLI blocks it process-wide instead, the same path.
    @Test func blockedTerminationSignalIsReportedAsAnEvent() {
        var terminate = sigset_t()
        var previous = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &terminate, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let driver = RunnerDriver()
        // A job that would end the wait anyway, so a missed signal fails the test, not hangs it.
        driver.start(makeJob(["sleep 10"], timeoutMilliseconds: 5000))
        pthread_kill(pthread_self(), SIGTERM)
        driver.run { !$0.signals.isEmpty || $0.logs[1]!.result != nil }
        #expect(driver.signals == [SIGTERM])
        #expect(driver.logs[1]!.result == nil)
        // The runner did nothing on its own; the engine would now call terminateAll.
        driver.runner.terminateAll(immediately: true)
        driver.run()
        #expect(driver.logs[1]!.result?.terminatedByRequest == true)
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGTERM) == 0)
    }
}
