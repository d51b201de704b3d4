import OpsrunCore

// Expanding a glob walks only the directories the pattern can reach, with an explicit work list
// (no recursion, so a tree thousands of levels deep is fine) and a visited set of
// (directory, pattern position) pairs, so `a/**/b/**/c` never walks a subtree twice for the same
// position. Symbolic links to directories are followed, as the shell and Python's glob follow them
// (`src/shared -> ../shared` makes `src/**/*.c` see `src/shared/y.c`). A link named by a literal or
// a single-segment wildcard costs nothing special: the pattern's own length bounds that. Under `**`
// a link could loop (`loop -> ..`) or multiply the walk, so linked directories are walked last, in
// byte order, and only those whose directory (device and inode) was not walked yet at that pattern
// position: a directory reachable without a link keeps its own path, a loop ends where it closes.
// The identities cost one stat per directory walked, and only when such a link is met at all.
// Results are files, never directories, sorted by their UTF-8 bytes, so the order — and every
// fingerprint built from it — is the same on every machine and in every locale.

/// The paths one pattern names.
public struct GlobExpansion: Hashable, Sendable {
    /// Matching paths as the pattern writes them (relative to the base directory, or absolute),
    /// sorted by UTF-8 bytes, without duplicates.
    public var paths: [String]
    /// The pattern has no wildcard and nothing is at the path it names (for a source, a run makes
    /// that an error unless a task of the run declares the path as an output).
    public var isMissing: Bool

    public init(paths: [String], isMissing: Bool = false) {
        self.paths = paths
        self.isMissing = isMissing
    }
}

extension GlobPattern {
    /// The files this pattern matches under `baseDirectory` (ignored for an absolute pattern).
    ///
    /// A pattern without wildcards names one path and matches it whatever it is, a directory
    /// included; with wildcards, only non-directories match.
    public func expand(in baseDirectory: String, files: any FileAccess = DiskFiles()) -> GlobExpansion {
        let root = isAbsolute ? "/" : baseDirectory
        func absolute(_ display: String) -> String {
            isAbsolute ? display : FileSystem.join(root, display)
        }
        if !hasWildcards {
            let path = literalPath
            return files.status(absolute(path)) == nil
                ? GlobExpansion(paths: [], isMissing: true) : GlobExpansion(paths: [path])
        }

        var results: [String] = []
        var visited: Set<Position> = []
        var work: [Position] = []
        var listings: [String: [DirectoryEntry]] = [:]
        func list(_ prefix: String) -> [DirectoryEntry] {
            if let cached = listings[prefix] { return cached }
            let listed = files.entries(of: prefix.isEmpty ? root : absolute(prefix)) ?? []
            listings[prefix] = listed
            return listed
        }
        func push(_ prefix: String, _ index: Int) {
            let position = Position(prefix: prefix, index: index)
            if visited.insert(position).inserted { work.append(position) }
        }

        // Directories reached through a link under `**`, walked once the rest is done; then the
        // `**` positions walked, by directory identity (`nil` until a link is met).
        var linked: [Position] = []
        var walked: Set<WalkedDirectory>?
        func isFirstWalk(of prefix: String, at index: Int) -> Bool {
            guard let identity = files.identity(of: prefix.isEmpty ? root : absolute(prefix)) else { return false }
            return walked!.insert(WalkedDirectory(identity: identity, index: index)).inserted
        }

        push(isAbsolute ? "/" : "", 0)
        while true {
            if work.isEmpty, !linked.isEmpty {
                if walked == nil {
                    walked = []
                    for position in visited where segments[position.index] == .anyDirectories {
                        _ = isFirstWalk(of: position.prefix, at: position.index)
                    }
                }
                // Popped from the end: the smallest path first, so which one of several links to
                // one directory is walked does not depend on the order a directory lists them.
                work = linked.sorted { UTF8Text.precedes($0.prefix, $1.prefix) }.reversed()
                linked = []
                for position in work { visited.insert(position) }
            }
            guard let position = work.popLast() else { break }
            let prefix = position.prefix
            let isLast = position.index == segments.count - 1
            switch segments[position.index] {
            case .literal(let name):
                guard let status = files.status(absolute(prefix + name)) else { continue }
                if isLast {
                    if status.kind != .directory { results.append(prefix + name) }
                } else if status.kind == .directory {
                    push(prefix + name + "/", position.index + 1)
                }
            case .wildcard(let matcher):
                for entry in list(prefix)
                where !Self.alwaysSkipped.contains(entry.name) && (includesHiddenNames || matcher.matches(entry.name)) {
                    let path = prefix + entry.name
                    // Follow a link here: its target's type decides.
                    let kind = entry.kind == .symbolicLink || entry.kind == nil
                        ? files.status(absolute(path))?.kind : entry.kind
                    guard let kind else { continue }
                    if isLast {
                        if kind != .directory { results.append(path) }
                    } else if kind == .directory {
                        push(path + "/", position.index + 1)
                    }
                }
            case .anyDirectories:
                if walked != nil, !isFirstWalk(of: prefix, at: position.index) { continue }
                push(prefix, position.index + 1)
                for entry in list(prefix)
                where (includesHiddenNames || !entry.name.hasPrefix(".")) && !Self.alwaysSkipped.contains(entry.name) {
                    let path = prefix + entry.name
                    let kind = entry.kind ?? files.status(absolute(path), followingLinks: false)?.kind
                    if kind == .directory {
                        push(path + "/", position.index)
                    } else if kind == .symbolicLink, files.status(absolute(path))?.kind == .directory {
                        // Not marked visited yet: the first identities taken must not include it.
                        linked.append(Position(prefix: path + "/", index: position.index))
                    }
                }
            }
        }
        return GlobExpansion(paths: Self.sortedUnique(results))
    }

    /// Several patterns' files together (sorted, without duplicates), and the patterns without
    /// wildcards that named nothing.
    public static func expand(_ patterns: [String], in baseDirectory: String) -> (paths: [String], missing: [String]) {
        var paths: [String] = []
        var missing: [String] = []
        for text in patterns {
            let expansion = GlobPattern(text).expand(in: baseDirectory)
            if expansion.isMissing { missing.append(text) }
            paths.append(contentsOf: expansion.paths)
        }
        return (sortedUnique(paths), missing)
    }

    static func sortedUnique(_ paths: [String]) -> [String] {
        var sorted = paths.sorted(by: UTF8Text.precedes)
        var write = 0
        for read in sorted.indices where read == 0 || sorted[read] != sorted[write - 1] {
            sorted[write] = sorted[read]
            write += 1
        }
        sorted.removeSubrange(write...)
        return sorted
    }

    /// A directory reached (as its display prefix, ending in `/` or empty) at a pattern position.
    private struct Position: Hashable {
        var prefix: String
        var index: Int
    }

    /// A directory walked at a `**` position, by what it is rather than by the path that reached it.
    private struct WalkedDirectory: Hashable {
        var identity: FileIdentity
        var index: Int
    }
}
