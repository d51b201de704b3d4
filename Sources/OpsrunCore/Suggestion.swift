/// "Did you mean …?" — the nearest candidate by edit distance, when it is near enough.
public enum Suggestion {
    /// The candidate closest to `word`, or `nil` when none is plausibly a misspelling of it.
    public static func nearest(to word: String, in candidates: some Sequence<String>) -> String? {
        let w = Array(word.lowercased().utf8)
        let limit = limit(for: w)
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let d = distance(w, Array(candidate.lowercased().utf8), limit: limit)
            if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.name
    }

    /// The most edits a misspelling of `word` (lowercased) may be away: about one per three
    /// characters, at least one, as compilers allow.
    static func limit(for word: [UInt8]) -> Int { max(1, word.count / 3) }

    /// `; did you mean 'x'?` or the empty string.
    public static func phrase(for word: String, in candidates: some Sequence<String>) -> String {
        nearest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// `phrase` for a task's name, which may also be the name of a task in an included manifest
    /// written without its namespace (`build` for `web:build`, `ui:biuld` for `web:ui:build`):
    /// when no name is near the whole, the nearest whose part after a `:` is near it.
    public static func taskPhrase(for word: String, in candidates: [String]) -> String {
        nearestTask(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The name `taskPhrase` suggests, or `nil`.
    public static func nearestTask(to word: String, in candidates: [String]) -> String? {
        if let near = nearest(to: word, in: candidates) { return near }
        let w = Array(word.lowercased().utf8)
        let limit = limit(for: w)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let bytes = Array(candidate.lowercased().utf8)
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ":") {
                let d = distance(w, Array(bytes[(index + 1)...]), limit: limit)
                if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
            }
        }
        return best?.name
    }

    /// Damerau–Levenshtein (optimal string alignment) distance, giving up past `limit`.
    static func distance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev2 = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            var rowMin = cur[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    v = min(v, prev2[j - 2] + 1)
                }
                cur[j] = v
                rowMin = min(rowMin, v)
            }
            if rowMin > limit { return limit + 1 }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[b.count]
    }
}
