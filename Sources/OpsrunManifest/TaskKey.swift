/// A key of a task's mapping, classified once (see `TaskSpecReader.keys` for the spellings).
enum TaskKey {
    case desc, deps, run, dir, env, sources, outputs, depfile, queue, priority, qos, timeout, retries, allowFailure, interactive
    case requires
    case cache
    case each
    case service, ready, readyTimeout, cleanup
    case shell, passEnv

    /// The key `text` names, or `nil` for an unknown one.
    ///
    /// Decided by length and first byte, then one whole comparison: equal small strings compare by
    /// their bits, while each unequal comparison goes the slow way.
    init?(_ text: String) {
        let utf8 = text.utf8
        guard let first = utf8.first else { return nil }
        let candidate: TaskKey
        switch (utf8.count, first) {
        case (4, UInt8(ascii: "d")): candidate = utf8.last == UInt8(ascii: "c") ? .desc : .deps
        case (3, UInt8(ascii: "r")): candidate = .run
        case (3, UInt8(ascii: "d")): candidate = .dir
        case (3, UInt8(ascii: "e")): candidate = .env
        case (7, UInt8(ascii: "s")): candidate = utf8.last == UInt8(ascii: "s") ? .sources : .service
        case (5, UInt8(ascii: "r")): candidate = .ready
        case (13, UInt8(ascii: "r")): candidate = .readyTimeout
        case (7, UInt8(ascii: "c")): candidate = .cleanup
        case (7, UInt8(ascii: "o")): candidate = .outputs
        case (7, UInt8(ascii: "d")): candidate = .depfile
        case (5, UInt8(ascii: "q")): candidate = .queue
        case (3, UInt8(ascii: "q")): candidate = .qos
        case (7, UInt8(ascii: "t")): candidate = .timeout
        case (7, UInt8(ascii: "r")): candidate = .retries
        case (8, UInt8(ascii: "r")): candidate = .requires
        case (13, UInt8(ascii: "a")): candidate = .allowFailure
        case (11, UInt8(ascii: "i")): candidate = .interactive
        case (4, UInt8(ascii: "e")): candidate = .each
        case (5, UInt8(ascii: "c")): candidate = .cache
        case (5, UInt8(ascii: "s")): candidate = .shell
        case (8, UInt8(ascii: "p")): candidate = utf8.last == UInt8(ascii: "v") ? .passEnv : .priority
        default: return nil
        }
        guard text == candidate.spelling else { return nil }
        self = candidate
    }

    /// The key as written in a manifest.
    var spelling: String {
        switch self {
        case .desc: "desc"
        case .deps: "deps"
        case .run: "run"
        case .dir: "dir"
        case .env: "env"
        case .sources: "sources"
        case .outputs: "outputs"
        case .depfile: "depfile"
        case .queue: "queue"
        case .priority: "priority"
        case .qos: "qos"
        case .timeout: "timeout"
        case .retries: "retries"
        case .allowFailure: "allow_failure"
        case .interactive: "interactive"
        case .requires: "requires"
        case .each: "each"
        case .service: "service"
        case .ready: "ready"
        case .readyTimeout: "ready_timeout"
        case .cleanup: "cleanup"
        case .cache: "cache"
        case .shell: "shell"
        case .passEnv: "pass_env"
        }
    }
}
