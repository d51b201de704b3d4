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

    /// Runs `opsrun arguments` in `directory` and waits for it.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) throws -> Result {
        let started = try start(arguments, in: directory, environment: environment)
        return started.wait()
    }

    /// A started `opsrun`, for tests that signal it while it runs.
    struct Running {
        let process: Process
        let outURL: URL
        let errURL: URL

        var pid: Int32 { process.processIdentifier }

        func wait() -> Result {
            process.waitUntilExit()
            let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
            return Result(status: process.terminationStatus, stdout: out, stderr: err)
        }

        /// Waits at most `seconds` for it to exit; `nil` when it had not by then (it is killed).
        func wait(seconds: Double) -> Result? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            guard process.isRunning else { return wait() }
            kill(pid, SIGKILL)
            _ = wait()
            return nil
        }
    }

    static func start(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "GITHUB_ACTIONS")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let tmp = FileManager.default.temporaryDirectory
        let outURL = tmp.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).out")
        let errURL = tmp.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
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

    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> OpsrunBinary.Result {
        try OpsrunBinary.run(arguments, in: url, environment: environment)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
