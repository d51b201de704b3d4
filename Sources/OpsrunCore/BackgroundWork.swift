/// Threads started for work nothing waits for until the end (writing the manifest cache), owned
/// by whoever made this: `finish()` joins them, and so does letting it go. An exit in the middle
/// of such work would leave a temporary file behind.
package final class BackgroundWork {
    private var threads: [JoinedThread<Void>] = []

    package init() {}

    package func start(_ body: @escaping @Sendable () -> Void) { threads.append(JoinedThread(body)) }

    /// Returns once every thread started here has ended.
    package func finish() {
        for thread in threads { thread.join() }
        threads.removeAll()
    }
}
