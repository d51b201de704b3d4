import Testing

@testable import OpsrunKit
@testable import OpsrunManifest

@Suite struct InterpolationTests {
    let variables = ["HOME": "/home/me", "EMPTY": "", "A_1": "x"]

    func expand(_ template: String) -> String {
        Interpolation.expand(template) { variables[$0] }
    }

    @Test func bracedNamesAreReplacedByTheirValues() {
        #expect(expand("${HOME}/bin") == "/home/me/bin")
        #expect(expand("${A_1}${A_1}-${EMPTY}-") == "xx--")
    }

    @Test func unknownNamesBecomeEmptyLikeAShell() {
        #expect(expand("a${NOPE}b") == "ab")
    }

    @Test func doubleDollarIsALiteralDollar() {
        #expect(expand("$${HOME}") == "${HOME}")
        #expect(expand("cost: $$5") == "cost: $5")
        #expect(expand("$$$${HOME}") == "$${HOME}")
    }

    @Test func textThatOnlyLooksLikeAReferenceStays() {
        #expect(expand("$HOME") == "$HOME")
        #expect(expand("price $") == "price $")
        #expect(expand("${HOME") == "${HOME")
        #expect(expand("${}") == "${}")
        #expect(expand("${A B}") == "${A B}")
        #expect(expand("${HOME:-x}") == "${HOME:-x}")
    }

    @Test func valuesAreNotExpandedAgain() {
        #expect(Interpolation.expand("${X}") { $0 == "X" ? "${Y}" : "no" } == "${Y}")
    }

    @Test func nonASCIITextPassesThrough() {
        #expect(expand("café ${HOME} ☕︎") == "café /home/me ☕︎")
    }

    @Test func referencesAreListedOnceInOrder() {
        #expect(Interpolation.references(in: "${B}/${A}/${B}/$${C}/$D") == ["B", "A"])
    }

    @Test func longTemplatesExpandFully() {
        let template = String(repeating: "${A_1}$$", count: 100_000)
        #expect(expand(template) == String(repeating: "x$", count: 100_000))
    }
}
