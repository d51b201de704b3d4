import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 28, item 11: a source that is neither a regular file nor a directory (a named pipe, a
/// device) is an error naming it and its place; nothing is read from it, so nothing hangs
/// (docs/manual/up-to-date.md).
@Suite struct SpecialFileSourcesTests {
    /// Generous for a debug build, far shorter than "for good".
    static let deadline = 30.0

    @Test func aNamedPipeAmongTheSourcesFailsItsTaskWithoutBeingRead() throws {
        let project = try TemporaryProject("""
            tasks:
              read: { sources: [in.txt, x.fifo], outputs: [out], run: touch out }
              after: { deps: [read], run: touch after }
            """, files: ["in.txt": "in\n"])
        #expect(mkfifo(project.path("x.fifo"), 0o644) == 0)
        let result = try project.start("after").wait(seconds: Self.deadline)
        #expect(result.status == 1)
        #expect(result.stderr == """
            Tasksfile.yaml:2:29: error: task 'read': source 'x.fifo' is a named pipe, not a file

            """)
        #expect(result.stdout.hasSuffix("""
            0 succeeded, 1 failed, 1 cancelled
            FAILED   read      could not start: source 'x.fifo' is a named pipe, not a file
              cancelled  after     prerequisite 'read' failed

            """), "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: project.path("out")))
    }

    @Test func aNamedPipeBeneathASourceDirectoryOrMatchedByAGlobIsNamedAtItsPattern() throws {
        let project = try TemporaryProject("""
            tasks:
              tree: { sources: [src], outputs: [tree.out], run: touch tree.out }
              glob: { sources: ["pipes/*"], outputs: [glob.out], run: touch glob.out }
            """, files: ["src/a.txt": "a\n", "pipes/b.txt": "b\n"])
        #expect(mkfifo(project.path("src/.p.fifo"), 0o644) == 0)
        #expect(mkfifo(project.path("pipes/q.fifo"), 0o644) == 0)
        let result = try project.start("-k", "-j", "1", "tree", "glob").wait(seconds: Self.deadline)
        #expect(result.status == 1)
        #expect(result.stderr == """
            Tasksfile.yaml:2:21: error: task 'tree': source 'src/.p.fifo' is a named pipe, not a file
            Tasksfile.yaml:3:21: error: task 'glob': source 'pipes/q.fifo' is a named pipe, not a file

            """)
    }

    /// A file the depfile listed last time that is now a named pipe: an error at the depfile.
    @Test func aDepfileEntryThatBecameANamedPipeFailsTheTaskAtTheDepfile() throws {
        let project = try TemporaryProject("""
            tasks:
              cc:
                sources: [main.c]
                outputs: [main.o]
                depfile: main.d
                run: "touch main.o && echo 'main.o: main.c in.h' > main.d"
            """, files: ["main.c": "main\n", "in.h": "in\n"])
        #expect(try project.run("cc").status == 0)
        try FileManager.default.removeItem(atPath: project.path("in.h"))
        #expect(mkfifo(project.path("in.h"), 0o644) == 0)
        let result = try project.start("cc").wait(seconds: Self.deadline)
        #expect(result.status == 1)
        #expect(result.stderr == """
            Tasksfile.yaml:5:14: error: task 'cc': source 'in.h', listed by its depfile 'main.d', is a named pipe, not a file

            """)
    }

    /// A depfile that lists a device after a success: nothing is read from it, and, since what
    /// the command read cannot be known, the task runs again next time.
    @Test func aDepfileListingADeviceIsNotReadAndTheTaskRunsAgain() throws {
        let project = try TemporaryProject("""
            tasks:
              cc:
                sources: [main.c]
                outputs: [main.o]
                depfile: main.d
                run: "touch main.o && echo 'main.o: main.c /dev/zero' > main.d"
            """, files: ["main.c": "main\n"])
        let first = try project.start("cc").wait(seconds: Self.deadline)
        #expect(first.status == 0)
        #expect(first.stderr == """
            Tasksfile.yaml:5:14: warning: task 'cc': its depfile 'main.d' lists '/dev/zero', which is a device, \
            not a file; nothing is read from it, and the task runs again next time

            """)
        let second = try project.start("cc", "--explain").wait(seconds: Self.deadline)
        #expect(second.status == 0)
        #expect(second.stdout.hasPrefix("cc runs: its depfile main.d could not be read after its last run\n"), "\(second.stdout)")
    }
}
