#if canImport(Glibc)
    import Glibc
#endif

/// opsrun's own environment, read once from `environ` (the base layer of every task's).
enum ProcessEnvironment {
    static var current: [String: String] {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                values[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            pointer += 1
        }
        return values
    }
}
