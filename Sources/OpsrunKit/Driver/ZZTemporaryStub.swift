extension RunSession {
    public func run(standardOutput: FileDescriptorWriter, standardError: FileDescriptorWriter, environment: [String: String]) -> ExitCode { .usage }
}
