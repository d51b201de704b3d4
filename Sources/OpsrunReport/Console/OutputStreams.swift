import OpsrunCore

/// The two streams opsrun speaks on, handed over by the executable (which owns the terminal).
public struct OutputStreams: Sendable {
    public var standardOutput: FileDescriptorWriter
    public var standardError: FileDescriptorWriter

    public init(standardOutput: FileDescriptorWriter, standardError: FileDescriptorWriter) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}
