import OpsrunCore
import OpsrunReport
import OpsrunProcess

/// The executable owns the terminal and the process: it makes the streams, reads the environment
/// and sets the process up; the library is handed all three as values.
enum Terminal {
    /// Signals blocked, SIGCHLD taken over, orphans adopted: `main` touches it first thing, before
    /// any thread exists.
    static let host = ProcessHost.takeOverThisProcess()

    static let standardOutput = FileDescriptorWriter(fileDescriptor: 1)
    static let standardError = FileDescriptorWriter(fileDescriptor: 2)

    /// The voice of one invocation, on standard output and error, as this process's environment
    /// (`environment`) says output should look.
    static func status(environment: [String: String]) -> Status {
        Status(
            streams: OutputStreams(standardOutput: standardOutput, standardError: standardError),
            environment: OutputEnvironment(variables: environment))
    }
}
