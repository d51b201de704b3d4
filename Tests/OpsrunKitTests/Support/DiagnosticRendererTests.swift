import OpsrunKit
import Testing
@testable import OpsrunCore

@Suite struct DiagnosticRendererTests {
    let location = OpsrunCore.SourceLocation(file: "Tasksfile.yaml", line: 2, column: 5)

    @Test func quotesTheLineAndPutsACaretUnderTheColumn() {
        let renderer = DiagnosticRenderer(sources: ["Tasksfile.yaml": "tasks:\n    dpes: [a]\n"])
        #expect(renderer.render(.error("unknown key 'dpes'", at: location)) == """
            Tasksfile.yaml:2:5: error: unknown key 'dpes'
                dpes: [a]
                ^
            """)
    }

    @Test func windowsLineEndingsStillQuoteTheRightLine() {
        let renderer = DiagnosticRenderer(sources: ["Tasksfile.yaml": "tasks:\r\n    dpes: [a]\r\n"])
        #expect(renderer.render(.error("unknown key 'dpes'", at: location)) == """
            Tasksfile.yaml:2:5: error: unknown key 'dpes'
                dpes: [a]
                ^
            """)
    }

    @Test func tabsBeforeTheColumnAreKeptSoTheCaretLinesUp() {
        let renderer = DiagnosticRenderer(sources: ["Tasksfile.yaml": "tasks:\n\t\tx: y\n"])
        let at = OpsrunCore.SourceLocation(file: "Tasksfile.yaml", line: 2, column: 3)
        #expect(renderer.render(.error("tab", at: at)) == "Tasksfile.yaml:2:3: error: tab\n\t\tx: y\n\t\t^")
    }

    @Test func notesFollowTheMessage() {
        let diagnostic = Diagnostic(.error, at: nil, file: "Tasksfile.yaml", "dependency cycle: a -> a", notes: ["  Tasksfile.yaml:3:12: 'a' depends on 'a'"])
        #expect(DiagnosticRenderer().render(diagnostic) == "Tasksfile.yaml: error: dependency cycle: a -> a\n  Tasksfile.yaml:3:12: 'a' depends on 'a'")
    }
}
