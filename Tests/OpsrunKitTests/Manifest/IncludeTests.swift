import Testing

@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunPlan

/// `includes:` (docs/manual/includes.md): included manifests' tasks under their namespace, names resolved per
/// file, each task with its manifest's directory and `env`, errors and cycles in their files.
@Suite struct IncludeTests {
    let scratch = ScratchDirectory()

    func load(_ file: String = "Tasksfile.yaml") throws(ManifestLoadError) -> Manifest {
        let text = String(decoding: scratch.bytes(file), as: UTF8.self)
        let directory = Directories.parentPath(of: file)
        return try ManifestLoader.loadWithIncludes(
            text: text, file: file, directory: directory.isEmpty ? scratch.path : scratch.absolute(directory)
        ).manifest
    }

    func errors(_ file: String = "Tasksfile.yaml") -> [String] {
        do {
            _ = try load(file)
            return []
        } catch {
            return error.diagnostics.map { ([$0.description] + $0.notes).joined(separator: "\n") }
        }
    }

    func writeMonorepo() {
        scratch.write("Tasksfile.yaml", """
            env: { MODE: release }
            includes:
              web: web
              api: { path: services/api/Tasksfile.yaml, optional: true }
              docs: { path: docs, optional: true }
            tasks:
              codegen: echo gen
              all: { deps: [web:build, api:test] }
            """)
        scratch.write("web/Tasksfile.yaml", """
            default: build
            env: { APP: web }
            queues: { net: { max: 1 } }
            includes: { ui: ui }
            tasks:
              build: { deps: [":codegen", lint, ui:build], run: make, queue: net }
              lint: { run: lint, dir: src }
            """)
        scratch.write("web/ui/Tasksfile.yaml", "tasks:\n  build: { deps: [':codegen'], run: ui }\n")
        scratch.write("services/api/Tasksfile.yaml", "tasks:\n  test: { deps: [':codegen'], run: test }\n")
    }

    @Test func aRootThatOnlyIncludesNeedsNoTasksOfItsOwn() throws {
        scratch.write("Tasksfile.yaml", "includes:\n  web: web\n")
        scratch.write("web/Tasksfile.yaml", "tasks:\n  build: make\n")
        #expect(try load().tasks.map(\.name) == ["web:build"])
        scratch.write("Tasksfile.yaml", "env: { A: b }\n")
        #expect(errors() == ["Tasksfile.yaml:1:1: error: the manifest has no 'tasks' mapping"])
    }

    @Test func includedTasksAreNamedInTheirNamespaceAndTheirDepsMeanTheirOwnTasks() throws {
        writeMonorepo()
        let manifest = try load()
        #expect(manifest.tasks.map(\.name) == ["codegen", "all", "web:build", "web:lint", "web:ui:build", "api:test"])
        let build = manifest.tasks[2]
        #expect(build.deps.map(\.value) == ["codegen", "web:lint", "web:ui:build"])
        #expect(build.deps[0].location == SourceLocation(file: "web/Tasksfile.yaml", line: 6, column: 19))
        #expect(build.queue?.value == "web:net")
        #expect(manifest.queues.map(\.name) == ["web:net"])
        #expect(manifest.tasks[4].deps.map(\.value) == ["codegen"])
        #expect(manifest.namespaces.map(\.name) == ["web", "web:ui", "api"])
        #expect(manifest.namespaces[0].defaultTasks == ["web:build"])
        #expect(manifest.rootReferences.isEmpty)
    }

    @Test func includedTasksWorkInTheirOwnDirectoryWithTheirManifestsEnvOnTop() throws {
        writeMonorepo()
        let manifest = try load()
        #expect(manifest.tasks.map(\.baseDirectory) == [nil, nil, "web", "web", "web/ui", "services/api"])
        #expect(manifest.tasks[3].workingDirectory(expandedDir: "src") == "web/src")
        #expect(manifest.tasks[2].workingDirectory(expandedDir: nil) == "web")
        #expect(manifest.tasks[3].workingDirectory(expandedDir: "/tmp") == "/tmp")
        #expect(manifest.tasks[2].environment.map(\.name) == ["APP"])
        #expect(manifest.environment.map(\.name) == ["MODE"])
    }

    @Test func aMissingOptionalIncludeIsSkippedAndAMissingOneIsAnErrorAtItsPath() {
        writeMonorepo()
        scratch.remove("services")
        #expect(errors() == ["Tasksfile.yaml:8:28: error: unknown task 'api:test' in deps of 'all'"])
        scratch.write("Tasksfile.yaml", "includes: { web: webb }\ntasks:\n  a: echo\n")
        #expect(errors() == [
            "Tasksfile.yaml:1:18: error: include 'web': 'webb' does not exist (add 'optional: true' if it may be missing); did you mean 'web'?"
        ])
        scratch.write("Tasksfile.yaml", "includes: { web: ./nothing/like/it }\ntasks:\n  a: echo\n")
        #expect(errors() == [
            "Tasksfile.yaml:1:18: error: include 'web': 'nothing/like/it' does not exist (add 'optional: true' if it may be missing)"
        ])
    }

    @Test func unknownNamesInAnIncludedFilePointAtThatFileWithSuggestions() {
        writeMonorepo()
        scratch.write("web/Tasksfile.yaml", """
            tasks:
              build: { deps: [":codegn", lnt, ui:buld], run: make, queue: ":net" }
              lint: { run: lint, dpes: [] }
            """)
        #expect(errors() == [
            // Each task named as a run names it, whichever step found the error.
            "web/Tasksfile.yaml:2:30: error: unknown task 'lnt' in deps of 'web:build'; did you mean 'lint'?",
            "web/Tasksfile.yaml:2:35: error: unknown task 'ui:buld' in deps of 'web:build'",
            "web/Tasksfile.yaml:2:63: error: unknown queue ':net' in task 'web:build'",
            "web/Tasksfile.yaml:3:22: error: unknown key 'dpes' in task 'web:lint'; did you mean 'deps'?",
        ])
        // `:codegn` is left for a run of web:build to refuse (web may be run on its own).
        scratch.write("web/Tasksfile.yaml", "tasks:\n  build: { deps: [':codegn'], run: make }\n")
        #expect((try? load())?.rootReferences.map(\.reference.value) == [":codegn"])
    }

    @Test func badIncludeEntriesAreAllReportedWithTheirPlaces() {
        scratch.write("Tasksfile.yaml", """
            includes:
              a:b: web
              web: { taskfile: web }
              api: { path: api, optional: yes }
              docs: [docs]
            tasks:
              t: echo
            """)
        #expect(errors() == [
            "Tasksfile.yaml:2:3: error: invalid namespace 'a:b': ':' separates a namespace from a task name; nest includes instead",
            "Tasksfile.yaml:3:3: error: include 'web' needs 'path': a directory with a Tasksfile.yaml, or a manifest file",
            "Tasksfile.yaml:3:10: error: unknown key 'taskfile' in include 'web'; did you mean 'path'?",
            "Tasksfile.yaml:4:31: error: 'optional' of include 'api' must be true or false, not 'yes'",
            "Tasksfile.yaml:5:9: error: include 'docs' must be a path or a mapping like { path: web, optional: true }, not a list",
        ])
        scratch.write("Tasksfile.yaml", "include: { web: web }\ntasks:\n  t: echo\n")
        #expect(errors() == ["Tasksfile.yaml:1:1: error: unknown top-level key 'include'; did you mean 'includes'?"])
        // The characters a namespace may hold are listed without ':'.
        scratch.write("Tasksfile.yaml", "includes: { we b: web }\ntasks:\n  t: echo\n")
        #expect(errors() == [
            "Tasksfile.yaml:1:13: error: invalid namespace name 'we b': a space is not allowed; use ASCII letters, digits, '_', '-' and '.'",
        ])
    }

    @Test func anIncludeCycleIsAnErrorWithThePlaceOfEachEntry() {
        scratch.write("Tasksfile.yaml", "includes:\n  web: web\ntasks:\n  a: echo\n")
        scratch.write("web/Tasksfile.yaml", "includes:\n  back: ..\ntasks:\n  b: echo\n")
        #expect(errors() == [
            """
            Tasksfile.yaml: error: include cycle: Tasksfile.yaml -> web/Tasksfile.yaml -> Tasksfile.yaml
              Tasksfile.yaml:2:3: 'Tasksfile.yaml' includes 'web/Tasksfile.yaml' as 'web'
              web/Tasksfile.yaml:2:3: 'web/Tasksfile.yaml' includes 'Tasksfile.yaml' as 'back'
            """
        ])
    }

    /// The errors of loading the whole project (its graph too, where cycles are found), each
    /// with its notes.
    func projectErrors() -> [String] {
        do {
            _ = try Project.load(explicitFile: nil, workingDirectory: scratch.path)
            return []
        } catch {
            return error.diagnostics.map { ([$0.description] + $0.notes).joined(separator: "\n") }
        }
    }

    @Test func aDependencyCycleAcrossFilesGivesEachEdgesFileLineAndColumn() {
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  a: { deps: [web:b], run: echo }\n")
        scratch.write("web/Tasksfile.yaml", "tasks:\n  b: { deps: [':a'], run: echo }\n")
        #expect(projectErrors() == [
            """
            Tasksfile.yaml: error: dependency cycle: a -> web:b -> a
              Tasksfile.yaml:3:15: 'a' depends on 'web:b'
              web/Tasksfile.yaml:2:15: 'web:b' depends on 'a'
            """
        ])
    }

    @Test func aTaskNamedWithoutItsNamespaceSuggestsTheNamespacedOne() throws {
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  all: echo\n")
        scratch.write("web/Tasksfile.yaml", "includes: { ui: ui }\ntasks:\n  build: echo\n")
        scratch.write("web/ui/Tasksfile.yaml", "tasks:\n  bundle: echo\n")
        let project = try Project.load(explicitFile: nil, workingDirectory: scratch.path)
        func unknown(_ name: String) -> String {
            do {
                _ = try project.roots(named: [name])
                return ""
            } catch {
                return error.diagnostics.map(\.description).joined()
            }
        }
        #expect(unknown("build") == "error: unknown task 'build' (not in Tasksfile.yaml); did you mean 'web:build'?")
        #expect(unknown("ui:bundel") == "error: unknown task 'ui:bundel' (not in Tasksfile.yaml); did you mean 'web:ui:bundle'?")
        #expect(unknown("alll") == "error: unknown task 'alll' (not in Tasksfile.yaml); did you mean 'all'?")
    }

    @Test func aDependencyOnANamespaceSaysToNameOneOfItsTasks() {
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  all: { deps: [web], run: echo }\n")
        scratch.write("web/Tasksfile.yaml", "default: build\ntasks:\n  build: echo\n")
        #expect(errors() == [
            "Tasksfile.yaml:3:17: error: unknown task 'web' in deps of 'all'; 'web' is an included manifest: name one of its tasks ('web:TASK')",
        ])
    }

    @Test func anIncludePathIsShownWithoutDotSegmentsOrDoubledSlashes() throws {
        // Before: `./web/` showed as `./web//Tasksfile.yaml` in every message and in --list.
        scratch.write("Tasksfile.yaml", "includes: { web: ./web/, w2: { path: web//Tasksfile.yaml } }\ntasks:\n  a: echo\n")
        scratch.write("web/Tasksfile.yaml", "tasks:\n  c: { deps: [nope], run: echo }\n")
        #expect(errors() == [
            "web/Tasksfile.yaml:2:15: error: unknown task 'nope' in deps of 'web:c'",
            "web/Tasksfile.yaml:2:15: error: unknown task 'nope' in deps of 'w2:c'",
        ])
        #expect(IncludeLoader.tidied("../a/./b//") == "../a/b")
        #expect(IncludeLoader.tidied("/") == "/")
        #expect(IncludeLoader.tidied("./") == ".")
    }

    @Test func aMisspeltNamespaceInDepsSuggestsTheInclude() {
        // Before: no suggestion (the root's own tasks were the only candidates).
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  all: { deps: [wbe:build], run: echo }\n")
        scratch.write("web/Tasksfile.yaml", "tasks:\n  build: echo\n")
        #expect(errors() == [
            "Tasksfile.yaml:3:17: error: unknown task 'wbe:build' in deps of 'all'; did you mean 'web:build'?",
        ])
    }

    @Test func aDependencyCycleInsideAnIncludedFileIsHeadedWithThatFile() {
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  a: echo\n")
        scratch.write("web/Tasksfile.yaml", "tasks:\n  b: { deps: [c], run: echo }\n  c: { deps: [b], run: echo }\n")
        #expect(projectErrors() == [
            """
            web/Tasksfile.yaml: error: dependency cycle: web:b -> web:c -> web:b
              web/Tasksfile.yaml:2:15: 'web:b' depends on 'web:c'
              web/Tasksfile.yaml:3:15: 'web:c' depends on 'web:b'
            """
        ])
    }

    @Test func aSubProjectRunAloneKeepsItsRootReferencesForTheRunToRefuse() throws {
        writeMonorepo()
        let alone = try load("web/Tasksfile.yaml")
        #expect(alone.rootReferences.map(\.task) == ["build", "ui:build"])
        #expect(alone.rootReferences[0].reference.value == ":codegen")
        #expect(alone.tasks.map(\.name).contains("ui:build"))
    }

    @Test func aTaskAndANamespaceOfTheSameNameAreAnError() {
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  web: echo\n  web:b: echo\n")
        scratch.write("web/Tasksfile.yaml", "tasks:\n  b: echo\n")
        let found = errors()
        #expect(found.contains { $0.hasPrefix("web/Tasksfile.yaml:2:3: error: task 'web:b' is defined twice: here and at Tasksfile.yaml:4:3") })
        #expect(found.contains { $0.hasPrefix("Tasksfile.yaml:1:13: error: include 'web' has the name of task 'web'") })
        #expect(found.contains {
            $0.hasPrefix("Tasksfile.yaml:4:3: error: task 'web:b' is named inside the namespace of include 'web'; "
                + "rename it, or move it into that manifest as 'b'")
        })
    }

    @Test func aRootTaskInsideAnIncludesNamespaceIsAnError() {
        // Before: accepted, listed among the root's tasks, with no namespace in --list's JSON.
        scratch.write("Tasksfile.yaml", "includes: { web: web }\ntasks:\n  web:extra: echo x\n  webby:ok: echo ok\n")
        scratch.write("web/Tasksfile.yaml", "includes: { ui: ui }\ntasks:\n  b: echo\n  ui:extra: echo\n")
        scratch.write("web/ui/Tasksfile.yaml", "tasks:\n  c: echo\n")
        #expect(errors() == [
            "Tasksfile.yaml:3:3: error: task 'web:extra' is named inside the namespace of include 'web'; "
                + "rename it, or move it into that manifest as 'extra'",
            "web/Tasksfile.yaml:4:3: error: task 'web:ui:extra' is named inside the namespace of include 'ui'; "
                + "rename it, or move it into that manifest as 'extra'",
        ])
    }

    @Test func aNamespaceNamesItsDefaultOnTheCommandLine() throws {
        writeMonorepo()
        let project = try Project.load(explicitFile: nil, workingDirectory: scratch.path)
        #expect(try project.roots(named: ["web"]).map { project.graph.names[$0] } == ["web:build"])
        #expect(throws: ProjectError.self) { try project.roots(named: ["api"]) }
    }

    /// `default: web` (and an included manifest's `default: ui`) means that manifest's default.
    @Test func aDefaultMayNameAnIncludedManifest() throws {
        writeMonorepo()
        scratch.write("Tasksfile.yaml", "default: [web]\nincludes: { web: web }\ntasks:\n  codegen: echo gen\n")
        scratch.write("web/Tasksfile.yaml", "default: ui\nincludes: { ui: ui }\ntasks:\n  lint: echo\n")
        scratch.write("web/ui/Tasksfile.yaml", "default: build\ntasks:\n  build: echo\n")
        let project = try Project.load(explicitFile: nil, workingDirectory: scratch.path)
        #expect(try project.roots(named: []).map { project.graph.names[$0] } == ["web:ui:build"])
        scratch.write("Tasksfile.yaml", "default: [wbe]\nincludes: { web: web }\ntasks:\n  codegen: echo gen\n")
        #expect(errors() == ["Tasksfile.yaml:1:11: error: unknown task 'wbe' in 'default'"])
    }
}
