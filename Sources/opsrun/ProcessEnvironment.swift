#if canImport(Glibc)
    import Glibc
#endif

/// opsrun's own environment, read once from `environ` (the base layer of every task's).
enum ProcessEnvironment {
    static var current: [String: String] {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            // Split at the first `=` in the bytes: a `Character` search over every variable was a
            // fifth of a one-task no-op's instructions.
            if let equals = strchr(entry, 0x3D) {
                let name = UnsafeRawBufferPointer(start: entry, count: equals - entry)
                values[String(decoding: name, as: UTF8.self)] = String(cString: equals + 1)
            }
            pointer += 1
        }
        return values
    }
}
