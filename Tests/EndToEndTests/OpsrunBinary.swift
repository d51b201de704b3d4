import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `opsrun` binary the way a user would, capturing what it prints and how it exits.
struct OpsrunBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `opsrun` built beside this test bundle (SwiftPM builds it because the tests depend on it).
    static let path: String = {
        if let explicit = ProcessInfo.processInfo.environment["OPSRUN_BINARY"] { return explicit }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The test runner may be inside a bundle folder; walk up until the binary is beside us.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("opsrun").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/opsrun").standardized.path
    }()

    /// The repository's Examples folder.
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples").standardized

    /// How long a test waits for opsrun to exit, unless it says otherwise: generous, for a debug
    /// build on a loaded machine.
    static let defaultDeadlineSeconds = 60.0

    /// Runs `opsrun arguments` in `directory` and waits for it (see `Running.wait`).
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Result {
        let started = try start(arguments, in: directory, environment: environment)
        return started.wait(sourceLocation: sourceLocation)
    }

    /// A started `opsrun`, for tests that signal it while it runs.
    struct Running {
        let process: Process
        /// Where its standard output and error go; nil when the test gave its own.
        let outURL: URL?
        let errURL: URL?

        var pid: Int32 { process.processIdentifier }

        /// The result once opsrun has exited. When it has not within `seconds`, it and its
        /// process group get SIGKILL and the test an issue, so a hang fails the test rather than
        /// the suite.
        @discardableResult
        func wait(
            seconds: Double = OpsrunBinary.defaultDeadlineSeconds,
            sourceLocation: SourceLocation = #_sourceLocation
        ) -> Result {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                let group = getpgid(pid)
                kill(pid, SIGKILL)
                if group == pid { kill(-group, SIGKILL) }
                process.waitUntilExit()
                let result = collect()
                Issue.record(
                    """
                    opsrun did not exit within \(seconds) s; killed. Its output so far:
                    \(result.stdout.suffix(2000))
                    \(result.stderr.suffix(2000))
                    """, sourceLocation: sourceLocation)
                return result
            }
            process.waitUntilExit()
            return collect()
        }

        /// For a test that stops early: SIGTERM, so opsrun stops its tasks, then SIGKILL if it
        /// has not exited within 10 seconds.
        func stopIfRunning() {
            guard process.isRunning else { return }
            kill(pid, SIGTERM)
            wait(seconds: 10)
        }

        /// What opsrun has written to its standard output so far.
        var outputSoFar: String {
            outURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
        }

        /// Waits until opsrun's standard output contains `text`; false (and an issue) when it
        /// does not within `seconds`.
        @discardableResult
        func waitForOutput(
            containing text: String, seconds: Double = OpsrunBinary.defaultDeadlineSeconds,
            sourceLocation: SourceLocation = #_sourceLocation
        ) -> Bool {
            waitUntil(
                "opsrun's output to contain \(text.debugDescription)", seconds: seconds,
                sourceLocation: sourceLocation
            ) { outputSoFar.contains(text) }
        }

        private func collect() -> Result {
            let out = outURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
            let err = errURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
            for url in [outURL, errURL].compactMap({ $0 }) { try? FileManager.default.removeItem(at: url) }
            return Result(status: process.terminationStatus, stdout: out, stderr: err)
        }
    }

    /// The output cache of runs in `directory`: beside a temporary project (removed with it),
    /// else one per test process.
    static func cacheDirectory(for directory: URL) -> String {
        let temporary = FileManager.default.temporaryDirectory.standardized.path
        let path = directory.standardized.path
        if path.hasPrefix(temporary + "/") { return path + ".opsrun-cache" }
        return temporary + "/opsrun-e2e-cache-\(getpid())"
    }

    /// Starts `opsrun arguments`, through `launcher` when given (`["/usr/bin/nohup"]`, a shell
    /// that lowers a limit first: its words come before opsrun's path); its standard output to
    /// `standardOutput` when given, else to a file `Running` reads.
    static func start(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        launcher: [String] = [], standardOutput: FileHandle? = nil
    ) throws -> Running {
        let process = Process()
        let words = launcher + [path] + arguments
        process.executableURL = URL(fileURLWithPath: words[0])
        process.arguments = Array(words.dropFirst())
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "GITHUB_ACTIONS")
        // Never the user's ~/.cache, and no project restores what another test stored.
        env.removeValue(forKey: "OPSRUN_NO_CACHE")
        env.removeValue(forKey: "OPSRUN_REMOTE_CACHE")
        env["OPSRUN_CACHE_DIR"] = cacheDirectory(for: directory)
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let tmp = FileManager.default.temporaryDirectory
        let outURL = standardOutput == nil ? tmp.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).out") : nil
        let errURL = tmp.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).err")
        if let outURL {
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: outURL)
        } else {
            process.standardOutput = standardOutput
        }
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, outURL: outURL, errURL: errURL)
    }
}

/// A temporary project folder with a `Tasksfile.yaml`, removed when the test ends.
final class TemporaryProject {
    let url: URL

    init(_ manifest: String, files: [String: String] = [:]) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("opsrun-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try manifest.write(to: url.appendingPathComponent("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        for (name, text) in files {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
    }

    func run(
        _ arguments: String..., environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> OpsrunBinary.Result {
        try OpsrunBinary.run(arguments, in: url, environment: environment, sourceLocation: sourceLocation)
    }

    func start(_ arguments: String..., environment: [String: String] = [:]) throws -> OpsrunBinary.Running {
        try OpsrunBinary.start(arguments, in: url, environment: environment)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(atPath: OpsrunBinary.cacheDirectory(for: url))
    }
}
