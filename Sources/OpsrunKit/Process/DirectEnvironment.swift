import Glibc

/// The environment `/bin/sh` would hand a program it execs, for a command run without it:
/// dash (and bash) drop entries whose name is not a shell name, keep the last of duplicates, and
/// set `PWD` to the working directory (the inherited value when it names that directory,
/// otherwise the physical path).
enum DirectEnvironment {
    static func make(from environment: [String], workingDirectory: String) -> [String] {
        var result: [String] = []
        result.reserveCapacity(environment.count + 1)
        var positions: [Substring: Int] = [:]
        var inheritedPWD: Substring?
        for entry in environment {
            guard let equals = entry.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = entry[..<equals]
            guard isShellName(name) else { continue }
            if name == "PWD" {
                inheritedPWD = entry[entry.utf8.index(after: equals)...]
                continue
            }
            if let position = positions[name] {
                result[position] = entry
            } else {
                positions[name] = result.count
                result.append(entry)
            }
        }
        result.append("PWD=" + shellPWD(inherited: inheritedPWD, workingDirectory: workingDirectory))
        return result
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
    private static func shellPWD(inherited: Substring?, workingDirectory: String) -> String {
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
