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

    @Test func aLongLineIsQuotedAroundTheColumnWithTheCaretUnderIt() {
        let line = String(repeating: "a", count: 200) + "\tkey" + String(repeating: "b", count: 200)
        let renderer = DiagnosticRenderer(sources: ["T.yaml": "x\n" + line + "\n"])
        let at = OpsrunCore.SourceLocation(file: "T.yaml", line: 2, column: 202)
        let quoted = String(repeating: "a", count: 59) + "\tkey" + String(repeating: "b", count: 57)
        #expect(renderer.render(.error("here", at: at)) == "T.yaml:2:202: error: here\n...\(quoted)...\n" + String(repeating: " ", count: 62) + "\t^")
    }

    @Test func theStartOrTheEndOfALongLineIsQuotedWithoutADotsAtThatEnd() {
        let line = "key" + String(repeating: "b", count: 300) + "end"
        let renderer = DiagnosticRenderer(sources: ["T.yaml": line])
        let first = OpsrunCore.SourceLocation(file: "T.yaml", line: 1, column: 1)
        #expect(renderer.render(.error("e", at: first)) == "T.yaml:1:1: error: e\nkey" + String(repeating: "b", count: 117) + "...\n^")
        let last = OpsrunCore.SourceLocation(file: "T.yaml", line: 1, column: 304)
        #expect(renderer.render(.error("e", at: last)) == "T.yaml:1:304: error: e\n..." + String(repeating: "b", count: 117) + "end\n" + String(repeating: " ", count: 120) + "^")
    }
}
