/// An edge made by a file rather than by `deps`: a task's source that names, matches or lies
/// beneath another task's declared output (docs/manual/up-to-date.md), as messages show it.
public struct FileRead: Sendable, Equatable {
    /// The source as the task's `sources` gives it once expanded (`obj/*.o`).
    public var source: String
    /// The output it reads, as the writer declares it (`obj/main.o`): the source itself, a file
    /// the source's glob or directory holds, or the directory the source lies beneath.
    public var output: String
    /// What `--graph` says is read: the output a source names, holds or matches, or the source
    /// that lies beneath an output directory.
    public var file: String

    public init(source: String, output: String, file: String) {
        self.source = source
        self.output = output
        self.file = file
    }

    /// `'a' reads 'out/b.txt', an output of 'b'`, or, when the source is a glob or a directory,
    /// `'link' reads 'obj/*.o', and 'obj/main.o' is an output of 'compile[main.c]'`.
    public func describe(reader: String, writer: String) -> String {
        source == output
            ? "'\(reader)' reads '\(source)', an output of '\(writer)'"
            : "'\(reader)' reads '\(source)', and '\(output)' is an output of '\(writer)'"
    }
}
