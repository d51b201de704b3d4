import SwiftProtobuf

/// What a cache holds for one task: its output files by content, with their modes, and its log.
/// Encoded as the Remote Execution API's `ActionResult` (SPEC §12), locally as on a server.
package struct CacheEntry: Equatable, Sendable {
    /// A blob of the content-addressed store: its SHA-256 and its size.
    package struct Blob: Equatable, Sendable {
        package var hash: String
        package var size: Int64

        package init(hash: String, size: Int64) {
            self.hash = hash
            self.size = size
        }
    }

    package struct File: Equatable, Sendable {
        /// Relative to the task's directory, as its `outputs` name it.
        package var path: String
        package var blob: Blob
        /// The permission bits (`0o755`).
        package var mode: UInt32

        package init(path: String, blob: Blob, mode: UInt32) {
            self.path = path
            self.blob = blob
            self.mode = mode
        }
    }

    package var files: [File]
    package var standardOutput: Blob?
    package var standardError: Blob?

    package init(files: [File], standardOutput: Blob? = nil, standardError: Blob? = nil) {
        self.files = files
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Every blob the entry needs, logs included.
    package var blobs: [Blob] { files.map(\.blob) + [standardOutput, standardError].compactMap { $0 } }

    /// The entry in an `ActionResult`'s wire format.
    package var encoded: [UInt8] {
        var result = Build_Bazel_Remote_Execution_V2_ActionResult()
        result.exitCode = 0
        result.outputFiles = files.map { file in
            var output = Build_Bazel_Remote_Execution_V2_OutputFile()
            output.path = file.path
            output.digest = Self.digest(file.blob)
            output.isExecutable = file.mode & 0o111 != 0
            var properties = Build_Bazel_Remote_Execution_V2_NodeProperties()
            properties.unixMode = Google_Protobuf_UInt32Value(file.mode)
            output.nodeProperties = properties
            return output
        }
        if let standardOutput { result.stdoutDigest = Self.digest(standardOutput) }
        if let standardError { result.stderrDigest = Self.digest(standardError) }
        return (try? result.serializedBytes()) ?? []
    }

    /// Reads an `ActionResult`; `nil` for bytes that are not one opsrun can restore (garbage, a
    /// failed action, a digest that is not a SHA-256, a path that would leave the task's directory).
    package init?(decoding bytes: [UInt8]) {
        guard let result = try? Build_Bazel_Remote_Execution_V2_ActionResult(serializedBytes: bytes),
            result.exitCode == 0
        else { return nil }
        var files: [File] = []
        for output in result.outputFiles {
            guard output.hasDigest, let blob = Self.blob(output.digest), Self.isSafeRelativePath(output.path) else {
                return nil
            }
            let mode: UInt32 =
                output.nodeProperties.hasUnixMode
                ? output.nodeProperties.unixMode.value & 0o7777 : (output.isExecutable ? 0o755 : 0o644)
            files.append(File(path: output.path, blob: blob, mode: mode))
        }
        self.files = files
        if result.hasStdoutDigest {
            guard let blob = Self.blob(result.stdoutDigest) else { return nil }
            standardOutput = blob
        }
        if result.hasStderrDigest {
            guard let blob = Self.blob(result.stderrDigest) else { return nil }
            standardError = blob
        }
    }

    private static func digest(_ blob: Blob) -> Build_Bazel_Remote_Execution_V2_Digest {
        var digest = Build_Bazel_Remote_Execution_V2_Digest()
        digest.hash = blob.hash
        digest.sizeBytes = blob.size
        return digest
    }

    private static func blob(_ digest: Build_Bazel_Remote_Execution_V2_Digest) -> Blob? {
        guard Hex.isSHA256(digest.hash), digest.sizeBytes >= 0 else { return nil }
        return Blob(hash: digest.hash, size: digest.sizeBytes)
    }

    /// Relative, without `.` or `..` components: an entry from a server can only write below the
    /// task's directory.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part != "." && part != ".."
        }
    }
}
