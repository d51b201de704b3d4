import OpsrunCore
import OpsrunIncremental

/// What the cache keeps for a task with a depfile under its key without discovered inputs
/// (docs/cache.md, "Depfile tasks"), as ccache's direct mode: the inputs each stored run's depfile
/// listed, with their SHA-256, newest first. A restore takes the first candidate whose inputs all
/// have that content now; its entry is under `CacheKey(candidateOf:inputs:)`.
///
/// Read from a cache or a server, it is hostile: the decoder takes exactly the format below and
/// nothing more (no byte after it, no count beyond its bounds, inputs in strictly ascending order
/// of their path's bytes), and refuses a list larger than `sizeLimit` before holding it.
///
///     "opsrun depfile candidates 1\n"
///     u32 candidates (1...maximumCandidates)
///     per candidate: u32 inputs (1...maximumInputs),
///         per input: u32 path length (1...maximumPathBytes), the path (UTF-8, no NUL), 32 digest bytes
///
/// (u32: little-endian.) A path is as the depfile listed it: relative to the task's directory, or
/// absolute (a system header); it is only ever read.
package struct DepfileCandidates: Equatable, Sendable {
    /// Newest first; each candidate's inputs sorted by path, each path once.
    package private(set) var candidates: [[FileDigest]]

    package static let maximumCandidates = 8
    package static let maximumInputs = 20_000
    package static let maximumPathBytes = 4096
    /// The most an encoded list may be; a larger one is refused as it comes.
    package static let sizeLimit: Int64 = 4 << 20
    /// The one output file of the entry that names the list (never written anywhere: a restore
    /// of an ordinary entry refuses it, since no task declares it).
    package static let entryPath = ".opsrun-depfile-candidates"

    static let magic = Array("opsrun depfile candidates 1\n".utf8)

    package init() { candidates = [] }

    /// `candidates` newest first; those that are not valid (see `isValid`) are left out.
    package init(_ candidates: [[FileDigest]]) {
        self.init()
        for candidate in candidates.reversed() { add(candidate) }
    }

    /// Whether the inputs may be a candidate: 1...maximumInputs of them, sorted strictly by path
    /// bytes, each path non-empty, at most maximumPathBytes, without NUL, in one spelling only
    /// (`isCanonical`), and not under /proc, /sys or /dev.
    package static func isValid(_ inputs: [FileDigest]) -> Bool {
        guard !inputs.isEmpty, inputs.count <= maximumInputs else { return false }
        var previous: String?
        for input in inputs {
            let count = input.path.utf8.count
            guard count > 0, count <= maximumPathBytes, !input.path.utf8.contains(0), isCanonical(input.path),
                !isSystemPseudoFile(input.path)
            else { return false }
            if let previous, !UTF8Text.precedes(previous, input.path) { return false }
            previous = input.path
        }
        return true
    }

    /// A path written one way only: no empty or `.` component, `..` only leading a relative path.
    /// Otherwise a list could name one large file under many spellings, each read apart
    /// (adversarial probe: eight spellings of one 4 GiB file were read eight times).
    static func isCanonical(_ path: String) -> Bool {
        let absolute = path.utf8.first == UInt8(ascii: "/")
        let components = (absolute ? path.dropFirst() : Substring(path)).split(separator: "/", omittingEmptySubsequences: false)
        var leading = !absolute
        for component in components {
            if component.isEmpty || component == "." { return false }
            if component == ".." {
                if !leading { return false }
            } else {
                leading = false
            }
        }
        return true
    }

    /// Files no compiler reads and that are not what their size says (`/proc/self/pagemap` reads
    /// 256 GiB and says 0 bytes): a list naming one is refused.
    static func isSystemPseudoFile(_ path: String) -> Bool {
        ["/proc/", "/sys/", "/dev/"].contains { path.utf8.starts(with: $0.utf8) }
    }

    /// Adds `inputs` as the newest candidate (an equal one moves to the front), keeping at most
    /// `maximumCandidates` and, dropping the oldest, an encoding within `sizeLimit`. Invalid
    /// inputs, or ones that alone exceed the limit, change nothing.
    package mutating func add(_ inputs: [FileDigest]) {
        guard Self.isValid(inputs), Int64(Self.encodedSize(of: [inputs])) <= Self.sizeLimit else { return }
        var list = [inputs] + candidates.filter { $0 != inputs }
        if list.count > Self.maximumCandidates { list.removeLast(list.count - Self.maximumCandidates) }
        while list.count > 1, Int64(Self.encodedSize(of: list)) > Self.sizeLimit { list.removeLast() }
        candidates = list
    }

    /// The candidates of both, `self`'s first (newest), within the bounds.
    package func merged(with older: DepfileCandidates) -> DepfileCandidates {
        var result = older
        for candidate in candidates.reversed() { result.add(candidate) }
        return result
    }

    package func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.encodedSize(of: candidates))
        func add(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes.append(contentsOf: $0) } }
        add(candidates.count)
        for candidate in candidates {
            add(candidate.count)
            for input in candidate {
                add(input.path.utf8.count)
                bytes.append(contentsOf: input.path.utf8)
                bytes.append(contentsOf: input.digest.bytes)
            }
        }
        return bytes
    }

    private static func encodedSize(of candidates: [[FileDigest]]) -> Int {
        candidates.reduce(magic.count + 4) { size, candidate in
            candidate.reduce(size + 4) { $0 + 4 + $1.path.utf8.count + 32 }
        }
    }

    /// Reads a list; `nil` for anything but exactly the format above within its bounds.
    package init?(decoding bytes: [UInt8]) {
        guard Int64(bytes.count) <= Self.sizeLimit, bytes.starts(with: Self.magic) else { return nil }
        var reader = Reader(bytes: bytes, offset: Self.magic.count)
        guard let count = reader.count(in: 1...Self.maximumCandidates) else { return nil }
        var candidates: [[FileDigest]] = []
        for _ in 0..<count {
            guard let inputCount = reader.count(in: 1...Self.maximumInputs) else { return nil }
            var inputs: [FileDigest] = []
            for _ in 0..<inputCount {
                guard let length = reader.count(in: 1...Self.maximumPathBytes), let pathBytes = reader.take(length),
                    !pathBytes.contains(0), let path = String(validating: pathBytes, as: UTF8.self),
                    let digestBytes = reader.take(32), let digest = ContentDigest(bytes: digestBytes)
                else { return nil }
                inputs.append(FileDigest(path: path, digest: digest))
            }
            guard Self.isValid(inputs), !candidates.contains(inputs) else { return nil }
            candidates.append(inputs)
        }
        guard reader.isAtEnd else { return nil }
        self.candidates = candidates
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func count(in range: ClosedRange<Int>) -> Int? {
            guard let raw = take(4) else { return nil }
            let value = raw.reversed().reduce(0) { $0 << 8 | Int($1) }
            return range.contains(value) ? value : nil
        }

        var isAtEnd: Bool { offset == bytes.count }
    }
}
