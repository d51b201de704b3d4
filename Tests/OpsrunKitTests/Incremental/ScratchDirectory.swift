import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it at deinit.
final class ScratchDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("opsrun-incremental-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func absolute(_ relative: String) -> String { path + "/" + relative }

    /// The project's `.opsrun` directory and its state file, for the state's tests.
    var state: (directory: String, file: String) { (absolute(".opsrun"), absolute(".opsrun/state")) }

    /// Writes `content` to `relative`, creating its directories.
    func write(_ relative: String, _ content: String) {
        let url = URL(fileURLWithPath: absolute(relative))
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(content.utf8).write(to: url)
    }

    func makeDirectory(_ relative: String) {
        try! FileManager.default.createDirectory(atPath: absolute(relative), withIntermediateDirectories: true)
    }

    func link(_ relative: String, to target: String) {
        try! FileManager.default.createSymbolicLink(atPath: absolute(relative), withDestinationPath: target)
    }

    func remove(_ relative: String) { try? FileManager.default.removeItem(atPath: absolute(relative)) }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: absolute(relative)) }

    func bytes(_ relative: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: absolute(relative)) ?? Data()) }

    func writeBytes(_ relative: String, _ bytes: [UInt8]) {
        try! Data(bytes).write(to: URL(fileURLWithPath: absolute(relative)))
    }
}

extension ScratchDirectory {
    /// The bytes of an absolute path; empty when missing.
    static func read(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

    static func writeFile(_ path: String, _ bytes: [UInt8]) {
        try! Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
