/// The manifest `opsrun --init` writes (docs/manual/fitting-in.md): valid as it stands, runnable at once, and
/// commented so that a newcomer sees the keys they will want next without reading the README.
public enum StarterManifest {
    public static let text = """
        # Tasksfile.yaml: this project's tasks, run by opsrun.
        #   opsrun --list      the tasks and what they are for
        #   opsrun             run 'default' and everything it needs
        #   opsrun test        run 'test' after its prerequisites, each task at most once
        #   opsrun -n test     show the plan; run nothing
        version: 1
        default: build                  # a task, or a list of tasks

        env:                            # exported to every command; ${NAME} reads the environment
          BUILD_DIR: build

        tasks:
          setup:
            desc: Make the build directory
            run: mkdir -p "$BUILD_DIR"

          build:
            desc: Build the project
            deps: [setup]               # run first; tasks that do not depend on each other run at once
            run:                        # one command, or a list run in order by /bin/sh
              - echo "building into $BUILD_DIR"
            # sources: ["src/**/*"]     # with outputs: skipped while these and the commands are unchanged
            # outputs: ["build/app"]

          test:
            desc: Run the tests
            deps: [build]
            run: echo "testing"
            # timeout: 10m              # stop it after that long
            # retries: 1                # run it again once after a failure

          clean:
            desc: Remove what the build made
            run: rm -rf "$BUILD_DIR"

        """
}
