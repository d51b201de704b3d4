import Testing

@testable import OpsrunKit

/// `--list-names` prints `NAME<tab>DESC` for the completion scripts: a tab or a second line in a
/// `desc` would split one task into two entries.
@Suite struct CompletionDescriptionTests {
    @Test func aDescriptionIsItsFirstLineWithTabsAsSpaces() {
        #expect(Driver.completionDescription("Build\tthe app") == "Build the app")
        #expect(Driver.completionDescription("first line\nsecond") == "first line")
        #expect(Driver.completionDescription("") == "")
    }
}
