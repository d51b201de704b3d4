/// Text gathered into chunks of about 64 KiB, each handed on whole: a printer of a large output
/// (`--graph` of 100,000 tasks) writes as it goes, in a few system calls, never holding it all.
struct ChunkedOutput: ~Copyable {
    static let chunkSize = 64 * 1024
    private let emit: (String) -> Void
    private var pending = ""

    init(_ emit: @escaping (String) -> Void) {
        self.emit = emit
        pending.reserveCapacity(Self.chunkSize + 256)
    }

    mutating func append(_ text: String) {
        pending += text
        if pending.utf8.count >= Self.chunkSize { flush() }
    }

    /// Hands on what is pending; call at the end.
    mutating func flush() {
        guard !pending.isEmpty else { return }
        emit(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
