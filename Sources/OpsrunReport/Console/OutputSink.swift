import OpsrunCore
/// Where the run printers write: a file descriptor in a real run, memory in tests.
protocol OutputSink {
    func write(_ buffer: UnsafeRawBufferPointer)
}

extension OutputSink {
    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}

extension FileDescriptorWriter: OutputSink {}
