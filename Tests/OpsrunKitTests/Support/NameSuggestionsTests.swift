import Testing

@testable import OpsrunKit
@testable import OpsrunCore

@Suite struct NameSuggestionsTests {
    @Test func suggestsWhatSuggestionSuggests() {
        let names = ["compile", "link", "Package", "test"]
        var suggestions = NameSuggestions(names)
        for word in ["complie", "lnik", "package", "tset", "deploy", "compile"] {
            #expect(suggestions.nearest(to: word) == Suggestion.nearest(to: word, in: names), "\(word)")
        }
        #expect(suggestions.phrase(for: "complie") == "; did you mean 'compile'?")
    }

    @Test func aNameAlreadySearchedCostsNothingAndTheBudgetBoundsTheRest() {
        let names = (0..<NameSuggestions.comparisonBudget / 4).map { "task\($0)" }
        var suggestions = NameSuggestions(names)
        for _ in 0..<100 { #expect(suggestions.nearest(to: "tsak7") == "task7") }
        #expect(suggestions.nearest(to: "tsak8") == "task8")
        #expect(suggestions.nearest(to: "tsak9") == "task9")
        #expect(suggestions.nearest(to: "tsak6") == "task6")
        // Four searches spent the budget: the fifth name gets no suggestion, the first still has its.
        #expect(suggestions.nearest(to: "tsak5") == nil)
        #expect(suggestions.nearest(to: "tsak7") == "task7")
    }
}
