import OpsrunCore
import OpsrunReport

/// The executable owns the terminal: it makes the streams and reads the environment the library
/// is handed as values.
enum Terminal {
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
