/// Generated manifests, large enough to be cached, for the codec and cache tests.
enum ManifestCacheFixture {
    /// `tasks` tasks `t0`, `t1`, … each with a description, a command, a source and an output,
    /// most depending on one to three earlier tasks (chosen by `seed`), then `all` depending on the
    /// last ten. About 130 bytes per task: 600 tasks pass the cache's 64 KiB threshold.
    static func yaml(tasks count: Int, seed: UInt64 = 1) -> String {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var lines = ["version: 1", "default: all", "tasks:"]
        for i in 0..<count {
            lines.append("  t\(i):")
            lines.append("    desc: Task number \(i) of the generated manifest")
            if i > 0 {
                let deps = Set((0..<(1 + next(3))).map { _ in next(i) }).sorted().map { "t\($0)" }
                lines.append("    deps: [\(deps.joined(separator: ", "))]")
            }
            lines.append("    run: echo building t\(i) > out/t\(i)")
            lines.append("    sources: [src/t\(i).txt]")
            lines.append("    outputs: [out/t\(i)]")
        }
        lines.append("  all:")
        lines.append("    deps: [\((max(0, count - 10)..<count).map { "t\($0)" }.joined(separator: ", "))]")
        return lines.joined(separator: "\n") + "\n"
    }
}
