import Glibc

/// The environment `/bin/sh` would hand a program it execs, for a command run without it:
/// dash (and bash) drop entries whose name is not a shell name, keep the last of duplicates, and
/// set `PWD` to the working directory (the inherited value when it names that directory,
/// otherwise the physical path).
enum DirectEnvironment {
    static func make(from environment: [String], workingDirectory: String) -> [String] {
        make(from: environment) { shellPWD(inherited: $0, workingDirectory: workingDirectory) }
            .entries
    }

    /// The environment, and for each entry of `environment` where it went in the result (-1 when
    /// dropped or overridden by a later duplicate); `PWD` is last, its value from `pwd`, which
    /// gets the inherited value.
    static func make(from environment: [String], pwd: (Substring?) -> String)
        -> (entries: [String], positions: [Int])
    {
        var result: [String] = []
        result.reserveCapacity(environment.count + 1)
        var sources: [Int] = []
        sources.reserveCapacity(environment.count + 1)
        var positions = [Int](repeating: -1, count: environment.count)
        var resultPosition: [Substring: Int] = [:]
        var inheritedPWD: Substring?
        for (index, entry) in environment.enumerated() {
            guard let name = name(of: entry), isShellName(name) else { continue }
            if name == "PWD" {
                inheritedPWD = entry[entry.utf8.index(after: name.endIndex)...]
                continue
            }
            if let position = resultPosition[name] {
                positions[sources[position]] = -1
                result[position] = entry
                sources[position] = index
                positions[index] = position
            } else {
                resultPosition[name] = result.count
                positions[index] = result.count
                sources.append(index)
                result.append(entry)
            }
        }
        result.append("PWD=" + pwd(inheritedPWD))
        return (result, positions)
    }

    /// The part of `NAME=VALUE` before the first `=`; nil without one.
    static func name(of entry: String) -> Substring? {
        guard let equals = entry.utf8.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        return entry[..<equals]
    }

    /// The value of PATH the shell would search, the last one given.
    static func searchPath(in environment: [String]) -> String? {
        for entry in environment.reversed() where entry.utf8.starts(with: "PATH=".utf8) {
            return String(entry.dropFirst(5))
        }
        return nil
    }

    private static func isShellName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
    }

    /// dash's `getpwd`: an absolute inherited PWD naming the same directory is kept, otherwise
    /// the physical path.
    static func shellPWD(inherited: Substring?, workingDirectory: String) -> String {
        var directory = stat()
        let directoryKnown = stat(workingDirectory, &directory) == 0
        if let inherited, inherited.utf8.first == UInt8(ascii: "/"), directoryKnown {
            var named = stat()
            let path = String(inherited)
            if stat(path, &named) == 0 && named.st_dev == directory.st_dev
                && named.st_ino == directory.st_ino
            {
                return path
            }
        }
        guard let resolved = realpath(workingDirectory, nil) else { return workingDirectory }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
