import Testing

@testable import OpsrunCore

/// `FileText.absolute`: a task's directory and a depfile's inputs made absolute the way the
/// kernel reads a path without links: `.` dropped, `..` takes one component back, never above `/`.
@Suite struct AbsolutePathTests {
    @Test func relativePathsJoinTheBaseAndDotsResolveTextually() {
        #expect(FileText.absolute("src", relativeTo: "/work/p") == "/work/p/src")
        #expect(FileText.absolute("./src/../include/./x.h", relativeTo: "/work/p") == "/work/p/include/x.h")
        #expect(FileText.absolute("../../..", relativeTo: "/work/p") == "/")
        #expect(FileText.absolute("..", relativeTo: "/") == "/")
        #expect(FileText.absolute(".", relativeTo: "/work//p/") == "/work/p")
        #expect(FileText.absolute("", relativeTo: "/work/p") == "/work/p")
    }

    @Test func absolutePathsIgnoreTheBaseAndKeepNamesThatOnlyLookLikeDots() {
        #expect(FileText.absolute("/etc/./x/../hosts", relativeTo: "/work") == "/etc/hosts")
        #expect(FileText.absolute("a/.../..b/.c", relativeTo: "/w") == "/w/a/.../..b/.c")
        #expect(FileText.absolute("café/日本/../x", relativeTo: "/w") == "/w/café/x")
    }
}
