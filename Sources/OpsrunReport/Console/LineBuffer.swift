/// Cuts a task's output stream into whole lines for `--output prefixed`.
///
/// Bytes without a newline yet are kept until their line ends; a "line" longer than `maxPending`
/// is handed on in pieces, so memory stays bounded however a task prints.
struct LineBuffer {
    private var pending: [UInt8] = []
    let maxPending: Int

    init(maxPending: Int = 64 * 1024) { self.maxPending = maxPending }

    /// Appends `bytes` and calls `emit` with each completed line, without its newline.
    mutating func append(_ bytes: [UInt8], emit: (ArraySlice<UInt8>) -> Void) {
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if pending.isEmpty {
                emit(bytes[start..<newline])
            } else {
                pending += bytes[start..<newline]
                emit(pending[...])
                pending.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
        pending += bytes[start...]
        if pending.count >= maxPending {
            emit(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// The last line when the stream ended without a newline, if any.
    mutating func finish(emit: (ArraySlice<UInt8>) -> Void) {
        guard !pending.isEmpty else { return }
        emit(pending[...])
        pending.removeAll()
    }
}
