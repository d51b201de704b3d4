import OpsrunCore
import Testing

@Suite struct TerminalTextTests {
    @Test func controlCharactersAreShownEscapedAndNothingElseChanges() {
        #expect(TerminalText.escapingControlCharacters("include/x.h") == "include/x.h")
        #expect(TerminalText.escapingControlCharacters("é/ü ✓.h") == "é/ü ✓.h")
        #expect(TerminalText.escapingControlCharacters("e\u{1B}[31mred.h") == #"e\u{1B}[31mred.h"#)
        #expect(TerminalText.escapingControlCharacters("a\nb\tc\rd\0") == #"a\nb\tc\rd\0"#)
        // DEL and the C1 controls (a lone CSI, U+009B, starts an escape on some terminals).
        #expect(TerminalText.escapingControlCharacters("\u{7F}\u{9B}2J") == #"\u{7F}\u{9B}2J"#)
    }
}
