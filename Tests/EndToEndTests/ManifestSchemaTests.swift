import Foundation
import Testing

/// docs/manual/fitting-in.md: the JSON Schema of `Tasksfile.yaml` (docs/tasksfile.schema.json) is checked by a real
/// draft 2020-12 validator (Python's jsonschema, as editors' validators are): every manifest of
/// the repository passes, and what opsrun refuses it refuses too.
@Suite struct ManifestSchemaTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized

    /// Prints `ok PATH` or `invalid PATH: first error` for each file after the repository's path.
    static let validator = """
        import json, sys
        try:
            import jsonschema, yaml
        except ImportError as missing:
            sys.exit(f"these tests need python3 with jsonschema and yaml (.ci/run installs them): {missing}")
        with open(sys.argv[2] + "/docs/tasksfile.schema.json") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        for path in sys.argv[3:]:
            with open(path) as f:
                errors = sorted(validator.iter_errors(yaml.safe_load(f)), key=lambda e: list(e.absolute_path))
            print(f"ok {path}" if not errors else f"invalid {path}: {errors[0].message}")
        """

    /// What the validator says of each of `files`, in order.
    func validate(_ files: [String]) -> [String] {
        let result = OpsrunBinary.run(
            launcher: ["/usr/bin/env", "python3", "-c", Self.validator], [Self.repository.path] + files,
            in: Self.repository)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Every `Tasksfile.yaml` under Examples/ (nested ones too), the repository's own, and the
    /// one `--init` writes.
    @Test func everyManifestOfTheRepositoryIsValid() throws {
        var files: [String] = []
        let examples = Self.repository.appendingPathComponent("Examples")
        let walker = FileManager.default.enumerator(atPath: examples.path)
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix("Tasksfile.yaml") || path.hasSuffix("Tasksfile.yml") {
                files.append(examples.appendingPathComponent(path).path)
            }
        }
        #expect(files.count >= 6)
        files.append(Self.repository.appendingPathComponent("Tasksfile.yaml").path)
        let starter = try TemporaryProject("")
        try FileManager.default.removeItem(atPath: starter.path("Tasksfile.yaml"))
        #expect(try starter.run("--init").status == 0)
        files.append(starter.path("Tasksfile.yaml"))
        #expect(validate(files) == files.map { "ok " + $0 })
    }

    /// Unknown keys, at the top and in a task, are refused, by opsrun and by the schema alike;
    /// `x-` keys, anchors and the keys of docs/manual/ci.md, docs/manual/cache.md are accepted.
    @Test func theSchemaRefusesWhatOpsrunRefuses() throws {
        let bad = [
            "bogus: 1\ntasks:\n  a: echo\n",
            "tasks:\n  a: { run: echo, dpes: [b] }\n",
            "tasks:\n  a: { desc: only a description }\n",
            "tasks:\n  a: { run: echo, priority: urgent }\n",
            "tasks:\n  a: { run: echo, timeout: soon }\n",
            "queues:\n  net: { max: 2, min: 1 }\ntasks:\n  a: echo\n",
            "tasks:\n  a: { run: echo, each: { 1X: [a] } }\n",
            "tasks:\n  -a: echo\n  b=c: echo\n",
        ]
        let good = [
            "x-common: &common { run: echo, retries: 1 }\ntasks:\n  a: *common\n  b: { <<: *common, desc: 1.10, allow_failure: yes }\n  c: true\n",
            """
            includes:
              web: web
              api: { path: services/api/Tasksfile.yaml, optional: true }
            tasks:
              db: { service: true, run: postgres, ready: pg_isready, ready_timeout: 30s, cache: false }
              it: { deps: [db, ":x"], run: ./it, cleanup: [./logs], requires: [TOKEN], depfile: it.d, each: { OS: [linux, mac] } }

            """,
        ]
        let project = try TemporaryProject("tasks: { a: echo }\n", files: Dictionary(uniqueKeysWithValues: (bad + good).enumerated().map { ("m\($0.offset).yaml", $0.element) }))
        let names = (bad + good).indices.map { project.path("m\($0).yaml") }
        let verdicts = validate(names)
        #expect(verdicts.count == names.count)
        for (index, verdict) in verdicts.enumerated() {
            #expect(verdict.hasPrefix(index < bad.count ? "invalid " : "ok "), "\(verdict)")
        }
        // opsrun agrees on the bad ones (the good ones use keys another layer reads).
        for index in bad.indices {
            #expect(try project.run("-f", "m\(index).yaml", "--list").status == 2, "\(bad[index])")
        }
        #expect(verdicts[0].hasSuffix("'bogus' does not match any of the regexes: '^x-'"))
    }
}
