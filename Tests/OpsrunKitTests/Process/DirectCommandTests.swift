import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunProcess

@Suite struct DirectCommandTests {
    @Test(arguments: [
        ("/bin/true", ["/bin/true"]),
        ("true", ["true"]),
        ("touch out/t0001", ["touch", "out/t0001"]),
        ("  cc\t-c  a.c -o a.o  ", ["cc", "-c", "a.c", "-o", "a.o"]),
        ("swift build -c release", ["swift", "build", "-c", "release"]),
        ("ls -l /tmp/été", ["ls", "-l", "/tmp/été"]),
        ("false", ["false"]),
        ("make -j2", ["make", "-j2"]),
        ("git commit -m x,y", ["git", "commit", "-m", "x,y"]),
    ])
    func commandsWithoutShellSyntaxRunDirectly(command: String, words: [String]) {
        #expect(DirectCommand.arguments(of: command) == words)
    }

    @Test(arguments: [
        "", "   ", "echo hi", "printf x", "cd /tmp", "exit 1", "export A", "set -e", ". ./env",
        ": nothing", "[ -f x ]", "test -f x", "pwd", "kill 1", "exec ls", "eval ls", "read x",
        "if", "for", "time ls", "! ls", "{ ls", "source x", "unset A", "alias a", "wait",
        "ls 'a b'", "ls \"a\"", "ls `x`", "ls $HOME", "ls ${A}", "a && b", "a || b", "a | b",
        "a; b", "a &", "a > f", "a < f", "(a)", "ls *.c", "ls ?", "ls [ab]", "ls # c", "ls ~",
        "A=1 ls", "ls %1", "ls !x", "ls {a,b}", "ls a\\ b", "ls\nls", "ls\r", "a ^ b",
    ])
    func commandsWithShellSyntaxKeepTheShell(command: String) {
        #expect(DirectCommand.arguments(of: command) == nil)
    }

    @Test func programsAreFoundAsTheShellWouldFindThem() throws {
        let locator = ProgramLocator()
        #expect(locator.locate("/bin/true", searchPath: nil) == "/bin/true")
        #expect(locator.locate("true", searchPath: "/nonexistent-opsrun:/usr/bin:/bin") == "/usr/bin/true")
        #expect(locator.locate("true", searchPath: "/usr/bin/:/bin") == "/usr/bin/true")
        // Found again from the cache.
        #expect(locator.locate("true", searchPath: "/usr/bin:/bin") == "/usr/bin/true")
        #expect(locator.locate("true", searchPath: "/usr/bin:/bin") == "/usr/bin/true")
        #expect(locator.locate("true", searchPath: nil) == nil)
        #expect(locator.locate("true", searchPath: "bin:/usr/bin") == nil)
        #expect(locator.locate("true", searchPath: ":/usr/bin") == nil)
        #expect(locator.locate("no-such-program-opsrun", searchPath: "/usr/bin:/bin") == nil)
        #expect(locator.locate("./true", searchPath: "/usr/bin") == nil)
        #expect(locator.locate("/nonexistent-opsrun/true", searchPath: nil) == nil)
        #expect(locator.locate("/tmp", searchPath: nil) == nil)
    }

    @Test func scriptsWithoutAnInterpreterLineAreLeftToTheShell() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let plain = directory + "/plain"
        let script = directory + "/script"
        let unreadable = directory + "/unreadable"
        try "echo plain\n".write(toFile: plain, atomically: false, encoding: .utf8)
        try "#!/bin/sh\necho script\n".write(toFile: script, atomically: false, encoding: .utf8)
        try "#!/bin/sh\n".write(toFile: unreadable, atomically: false, encoding: .utf8)
        chmod(plain, 0o755)
        chmod(script, 0o755)
        chmod(unreadable, 0o311)
        let locator = ProgramLocator()
        #expect(locator.locate("plain", searchPath: directory) == nil)
        #expect(locator.locate("script", searchPath: directory) == script)
        #expect(locator.locate(script, searchPath: nil) == script)
        if getuid() != 0 {
            #expect(locator.locate("unreadable", searchPath: directory) == nil)
        }
    }

    @Test func programAppearingEarlierInPathDuringARunIsFound() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let locator = ProgramLocator()
        let searchPath = directory + ":/usr/bin:/bin"
        #expect(locator.locate("true", searchPath: searchPath) == "/usr/bin/true")
        try "#!/bin/sh\n".write(toFile: directory + "/true", atomically: false, encoding: .utf8)
        chmod(directory + "/true", 0o755)
        #expect(locator.locate("true", searchPath: searchPath) == directory + "/true")
    }

    @Test func programMovedInOrMadeExecutableEarlierInPathIsFound() throws {
        let moved = makeTemporaryDirectory()
        let chmodded = makeTemporaryDirectory()
        defer {
            removeDirectory(moved)
            removeDirectory(chmodded)
        }
        let locator = ProgramLocator()
        let searchPath = moved + ":" + chmodded + ":/usr/bin:/bin"
        try "#!/bin/sh\n".write(toFile: chmodded + "/true", atomically: false, encoding: .utf8)
        #expect(locator.locate("true", searchPath: searchPath) == "/usr/bin/true")
        chmod(chmodded + "/true", 0o755)
        #expect(locator.locate("true", searchPath: searchPath) == chmodded + "/true")
        // Written elsewhere, then renamed into an earlier directory, as installers do.
        let staging = makeTemporaryDirectory()
        defer { removeDirectory(staging) }
        try "#!/bin/sh\n".write(toFile: staging + "/true", atomically: false, encoding: .utf8)
        chmod(staging + "/true", 0o755)
        #expect(rename(staging + "/true", moved + "/true") == 0)
        #expect(locator.locate("true", searchPath: searchPath) == moved + "/true")
    }

    @Test func pathDirectoryThatAppearsDuringARunIsSearched() throws {
        let parent = makeTemporaryDirectory()
        defer { removeDirectory(parent) }
        let later = parent + "/bin"
        let locator = ProgramLocator()
        let searchPath = later + ":/usr/bin:/bin"
        #expect(locator.locate("true", searchPath: searchPath) == "/usr/bin/true")
        mkdir(later, 0o755)
        try "#!/bin/sh\n".write(toFile: later + "/true", atomically: false, encoding: .utf8)
        chmod(later + "/true", 0o755)
        #expect(locator.locate("true", searchPath: searchPath) == later + "/true")
    }

    @Test func directEnvironmentIsWhatTheShellPassesOn() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let environment = DirectEnvironment.make(
            from: ["PATH=/bin", "A-B=1", "X=1", "1A=2", "PWD=/nonexistent", "X=2", "NOEQUALS", "_y=3"],
            workingDirectory: directory)
        #expect(environment == ["PATH=/bin", "X=2", "_y=3", "PWD=\(directory)"])
        // An inherited PWD naming the same directory is kept as written.
        let kept = DirectEnvironment.make(
            from: ["PWD=\(directory)/."], workingDirectory: directory)
        #expect(kept == ["PWD=\(directory)/."])
        #expect(DirectEnvironment.searchPath(in: ["PATH=/a", "B=1", "PATH=/b"]) == "/b")
        #expect(DirectEnvironment.searchPath(in: ["PATHS=/a"]) == nil)
    }
}
