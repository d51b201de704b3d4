import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest

/// A fresh directory under the system's temporary directory, removed when the test ends.
private final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = NSTemporaryDirectory() + "opsrun-locator-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = ManifestLocator.normalize(base)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Creates `relative` (and its parents) holding `text`, or a directory when `text` is nil.
    @discardableResult
    func create(_ relative: String, _ text: String? = nil) throws -> String {
        let full = path + "/" + relative
        if let text {
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        } else {
            try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        }
        return full
    }
}

private func failure(_ body: () throws(DiagnosticList) -> ManifestSource) -> [String] {
    do {
        _ = try body()
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}

@Suite struct ManifestLocatorTests {
    @Test func findsTheManifestInTheWorkingDirectory() throws {
        let dir = try TemporaryDirectory()
        try dir.create("Tasksfile.yaml", "tasks: { a: make }\n")
        let source = try ManifestLocator.locate(explicitFile: nil, workingDirectory: dir.path)
        #expect(source == ManifestSource(path: dir.path + "/Tasksfile.yaml", displayName: "Tasksfile.yaml", directory: dir.path))
        #expect(try source.readText() == "tasks: { a: make }\n")
    }

    @Test func prefersYamlOverYmlAndAcceptsYml() throws {
        let dir = try TemporaryDirectory()
        try dir.create("both/Tasksfile.yml", "")
        try dir.create("both/Tasksfile.yaml", "")
        try dir.create("yml/Tasksfile.yml", "")
        #expect(try ManifestLocator.locate(explicitFile: nil, workingDirectory: dir.path + "/both").displayName == "Tasksfile.yaml")
        #expect(try ManifestLocator.locate(explicitFile: nil, workingDirectory: dir.path + "/yml").displayName == "Tasksfile.yml")
    }

    @Test func findsTheNearestAncestorsManifestAndNamesItRelatively() throws {
        let dir = try TemporaryDirectory()
        try dir.create("Tasksfile.yaml", "")
        try dir.create("a/Tasksfile.yml", "")
        try dir.create("a/b/c")
        try dir.create("a/b/Tasksfile.yaml")  // a directory with the name is not a manifest
        let source = try ManifestLocator.locate(explicitFile: nil, workingDirectory: dir.path + "/a/b/c/")
        #expect(source == ManifestSource(path: dir.path + "/a/Tasksfile.yml", displayName: "../../Tasksfile.yml", directory: dir.path + "/a"))
    }

    @Test func explicitFileIsRelativeToTheWorkingDirectoryAndShownAsGiven() throws {
        let dir = try TemporaryDirectory()
        try dir.create("Tasksfile.yaml", "")
        let file = try dir.create("conf/ci.yaml", "")
        try dir.create("work")
        let relative = try ManifestLocator.locate(explicitFile: "../conf/ci.yaml", workingDirectory: dir.path + "/work")
        #expect(relative == ManifestSource(path: file, displayName: "../conf/ci.yaml", directory: dir.path + "/conf"))
        let absolute = try ManifestLocator.locate(explicitFile: file, workingDirectory: "/")
        #expect(absolute == ManifestSource(path: file, displayName: file, directory: dir.path + "/conf"))
    }

    @Test func theDisplayNameStartsWithTheDirectoryAsWritten() throws {
        let dir = try TemporaryDirectory()
        try dir.create("sub/Tasksfile.yaml", "")
        let found = try ManifestLocator.locate(explicitFile: nil, workingDirectory: dir.path + "/sub", shownAs: "sub//")
        #expect(found.displayName == "sub/Tasksfile.yaml")
        #expect(found.shownPath(".env") == "sub/.env")
        #expect(ManifestLocator.shownPath("Tasksfile.yaml", under: ".") == "Tasksfile.yaml")
        #expect(ManifestLocator.shownPath("Tasksfile.yaml", under: "/") == "/Tasksfile.yaml")
        #expect(ManifestLocator.shownPath("/etc/x.yaml", under: "sub") == "/etc/x.yaml")
    }

    @Test func explicitFileThatCannotBeReadIsAnError() throws {
        let dir = try TemporaryDirectory()
        try dir.create("conf")
        #expect(failure { () throws(DiagnosticList) in
            try ManifestLocator.locate(explicitFile: "missing.yaml", workingDirectory: dir.path)
        } == ["missing.yaml: error: cannot read the manifest: No such file or directory"])
        #expect(failure { () throws(DiagnosticList) in
            try ManifestLocator.locate(explicitFile: "conf", workingDirectory: dir.path)
        } == ["conf: error: is a directory, not a manifest file"])
    }

    @Test func noManifestAnywhereIsAnError() throws {
        // Assumes no Tasksfile in the temporary directory's ancestors (e.g. /tmp or /).
        let dir = try TemporaryDirectory()
        let work = try dir.create("x/y")
        #expect(failure { () throws(DiagnosticList) in
            try ManifestLocator.locate(explicitFile: nil, workingDirectory: work)
        } == ["error: no Tasksfile.yaml or Tasksfile.yml in \(work) or any directory above it; name one with -f"])
    }

    @Test func textThatIsNotUTF8IsAnError() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/Tasksfile.yaml"
        #expect(FileManager.default.createFile(atPath: path, contents: Data([0x61, 0xFF, 0x0A])))
        let source = try ManifestLocator.locate(explicitFile: nil, workingDirectory: dir.path)
        do {
            _ = try source.readText()
            Issue.record("read text that is not UTF-8")
        } catch {
            #expect(error.diagnostics.map(\.description) == ["Tasksfile.yaml:1:2: error: the manifest is not UTF-8 text: byte 0xFF here is not UTF-8"])
        }
    }

    @Test func pathsAreNormalizedLexically() {
        #expect(ManifestLocator.normalize("/a/./b//c/../d/") == "/a/b/d")
        #expect(ManifestLocator.normalize("/..") == "/")
        #expect(ManifestLocator.parent(of: "/a") == "/")
        #expect(ManifestLocator.parent(of: "/") == nil)
    }
}
