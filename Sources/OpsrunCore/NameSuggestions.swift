/// "Did you mean …?" over one list of names, asked again and again while one manifest is checked.
///
/// Each misspelt name is searched once, however often it is written, and all the searches
/// together compare at most `comparisonBudget` pairs: a manifest of 100,000 tasks with a thousand
/// references to misspelt names used to take seconds to be refused, one full search per
/// reference. Past the budget, errors come without a suggestion; the first ones have theirs.
package struct NameSuggestions {
    /// Name pairs compared, over every search of one list (about 0.2 s in a release build).
    static let comparisonBudget = 1_000_000

    let candidates: [String]
    /// Each candidate lowercased, as `Suggestion` compares them; made at the first search.
    private var lowered: [[UInt8]] = []
    private var found: [String: String?] = [:]
    private var comparisonsLeft = comparisonBudget

    package init(_ candidates: [String]) { self.candidates = candidates }

    /// `; did you mean 'x'?` or the empty string.
    package mutating func phrase(for word: String) -> String {
        nearest(to: word).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// What `Suggestion.nearest(to:in:)` says, remembered; `nil` once the budget is spent.
    mutating func nearest(to word: String) -> String? {
        if let known = found[word] { return known }
        guard comparisonsLeft >= candidates.count else { return nil }
        comparisonsLeft -= candidates.count
        if lowered.isEmpty { lowered = candidates.map { Array($0.lowercased().utf8) } }
        let w = Array(word.lowercased().utf8)
        let limit = Suggestion.limit(for: w)
        var best: (index: Int, distance: Int)?
        for (index, candidate) in lowered.enumerated() where candidates[index] != word {
            // Most names differ in length by more than the limit: no table to fill.
            if abs(candidate.count - w.count) > limit { continue }
            let d = Suggestion.distance(w, candidate, limit: limit)
            if d <= limit, d < (best?.distance ?? .max) { best = (index, d) }
        }
        let answer = best.map { candidates[$0.index] }
        found[word] = answer
        return answer
    }
}
