#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwiftProtobuf

/// What a cache holds for one task: its output files by content, with their modes, and its log.
/// Encoded as the Remote Execution API's `ActionResult` (docs/manual/cache.md), locally as on a server.
///
/// Locally, small files and logs are inlined (`contents`, `stdout_raw`, `stderr_raw`), so storing
/// a task creates one file rather than one per output: creating files is most of what storing
/// costs. What goes to a server names every blob by digest only, as the protocol asks of clients.
package struct CacheEntry: Equatable, Sendable {
    /// A blob of the content-addressed store: its SHA-256 and its size.
    package struct Blob: Equatable, Sendable {
        package var hash: String
        package var size: Int64

        package init(hash: String, size: Int64) {
            self.hash = hash
            self.size = size
        }

        /// The blob of `bytes`.
        package init(of bytes: [UInt8]) {
            self.init(hash: Hex.sha256(bytes), size: Int64(bytes.count))
        }
    }

    package struct File: Equatable, Sendable {
        /// Relative to the task's directory, as its `outputs` name it.
        package var path: String
        package var blob: Blob
        /// The permission bits (`0o755`).
        package var mode: UInt32
        /// The bytes themselves, when the entry holds them (checked against `blob` when read).
        package var contents: [UInt8]?

        package init(path: String, blob: Blob, mode: UInt32, contents: [UInt8]? = nil) {
            self.path = path
            self.blob = blob
            self.mode = mode
            self.contents = contents
        }
    }

    /// A log stream: its blob, and its bytes when inlined.
    package struct Log: Equatable, Sendable {
        package var blob: Blob
        package var contents: [UInt8]?

        package init(blob: Blob, contents: [UInt8]? = nil) {
            self.blob = blob
            self.contents = contents
        }
    }

    /// Files and logs up to this size are inlined in a local entry.
    package static let inlineLimit = 64 * 1024

    /// The most an entry from a server may be: a larger answer is refused as it comes.
    package static let sizeLimit: Int64 = 16 << 20

    /// The permission bits an entry may give an output (docs/manual/cache.md): no setuid, setgid
    /// or sticky bit, nothing writable by others than the owner.
    package static let modeMask: UInt32 = 0o755

    /// The SHA-256 of no bytes: the only digest a blob of size 0 may have.
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    package var files: [File]
    package var standardOutput: Log?
    package var standardError: Log?

    package init(files: [File], standardOutput: Log? = nil, standardError: Log? = nil) {
        self.files = files
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The blobs the entry needs from a content-addressed store (those it does not hold itself).
    package var blobs: [Blob] {
        files.filter { $0.contents == nil }.map { $0.blob }
            + [standardOutput, standardError].compactMap { $0 }.filter { $0.contents == nil }.map { $0.blob }
    }

    /// Every blob it names, inlined or not, with the bytes it holds of them.
    package var allBlobs: [(blob: Blob, contents: [UInt8]?)] {
        files.map { ($0.blob, $0.contents) } + [standardOutput, standardError].compactMap { $0 }.map { ($0.blob, $0.contents) }
    }

    /// The entry in an `ActionResult`'s wire format; `inlining`: with the bytes it holds (local).
    package func encoded(inlining: Bool) -> [UInt8] {
        var result = Build_Bazel_Remote_Execution_V2_ActionResult()
        result.exitCode = 0
        result.outputFiles = files.map { file in
            var output = Build_Bazel_Remote_Execution_V2_OutputFile()
            output.path = file.path
            output.digest = Self.digest(file.blob)
            output.isExecutable = file.mode & 0o111 != 0
            if inlining, let contents = file.contents { output.contents = Data(contents) }
            var properties = Build_Bazel_Remote_Execution_V2_NodeProperties()
            properties.unixMode = Google_Protobuf_UInt32Value(file.mode)
            output.nodeProperties = properties
            return output
        }
        if let standardOutput {
            result.stdoutDigest = Self.digest(standardOutput.blob)
            if inlining, let contents = standardOutput.contents { result.stdoutRaw = Data(contents) }
        }
        if let standardError {
            result.stderrDigest = Self.digest(standardError.blob)
            if inlining, let contents = standardError.contents { result.stderrRaw = Data(contents) }
        }
        return (try? result.serializedBytes()) ?? []
    }

    /// Reads an `ActionResult`; `nil` for bytes that are not one opsrun can restore (garbage, a
    /// failed action, a digest that is not a SHA-256, a size 0 with another digest than no bytes',
    /// inlined bytes that are not their digest's). Its paths are checked by the restore, which
    /// knows where the task may write (`OutputPlace`); its modes keep no bit beyond 0755.
    package init?(decoding bytes: [UInt8]) {
        guard let result = try? Build_Bazel_Remote_Execution_V2_ActionResult(serializedBytes: bytes),
            result.exitCode == 0
        else { return nil }
        var files: [File] = []
        for output in result.outputFiles {
            guard output.hasDigest, let blob = Self.blob(output.digest), let contents = Self.contents(output.contents, of: blob)
            else { return nil }
            let mode: UInt32 =
                output.nodeProperties.hasUnixMode
                ? output.nodeProperties.unixMode.value & Self.modeMask : (output.isExecutable ? 0o755 : 0o644)
            files.append(File(path: output.path, blob: blob, mode: mode, contents: contents))
        }
        self.files = files
        if result.hasStdoutDigest {
            guard let blob = Self.blob(result.stdoutDigest), let contents = Self.contents(result.stdoutRaw, of: blob)
            else { return nil }
            standardOutput = Log(blob: blob, contents: contents)
        }
        if result.hasStderrDigest {
            guard let blob = Self.blob(result.stderrDigest), let contents = Self.contents(result.stderrRaw, of: blob)
            else { return nil }
            standardError = Log(blob: blob, contents: contents)
        }
    }

    /// The inlined bytes as `.some(bytes)`; `.some(nil)` when none are (an empty blob needs none);
    /// `nil` when they are not the blob's. (A blob of size 0 is the digest of no bytes: `blob(_:)`
    /// refuses any other, which a restore would write as an empty file.)
    private static func contents(_ data: Data, of blob: Blob) -> [UInt8]?? {
        if blob.size == 0 { return data.isEmpty ? .some([]) : nil }
        if data.isEmpty { return .some(nil) }
        let bytes = [UInt8](data)
        guard Blob(of: bytes) == blob else { return nil }
        return .some(bytes)
    }

    private static func digest(_ blob: Blob) -> Build_Bazel_Remote_Execution_V2_Digest {
        var digest = Build_Bazel_Remote_Execution_V2_Digest()
        digest.hash = blob.hash
        digest.sizeBytes = blob.size
        return digest
    }

    private static func blob(_ digest: Build_Bazel_Remote_Execution_V2_Digest) -> Blob? {
        guard Hex.isSHA256(digest.hash), digest.sizeBytes > 0 || (digest.sizeBytes == 0 && digest.hash == emptyHash)
        else { return nil }
        return Blob(hash: digest.hash, size: digest.sizeBytes)
    }

    /// Relative, without `.` or `..` components: what a store may name.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part != "." && part != ".."
        }
    }
}
