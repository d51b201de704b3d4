#!/usr/bin/env python3
"""How long `opsrun --watch` takes from a change to a source to the start of the task's command.

    Benchmarks/watch_latency.py [--opsrun PATH] [--rounds N]

Starts `opsrun -w build` on a small project whose `build` task has one source; then, N times:
writes the source, and reads the moment the command started, which it writes itself (`date
+%s%N`, the same clock as Python's time.time_ns()). Waits for opsrun to say it is watching again
before the next change. Prints the median, the 90th percentile and the largest latency in
milliseconds. The figure includes the settle time (100 ms of quiet after the last change) by design.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

MANIFEST = """tasks:
  build:
    run: date +%s%N > started; cat src/input.txt > out.txt
    sources: [src/input.txt]
    outputs: [out.txt]
"""


def wait_for(predicate, what, seconds=30):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            sys.exit(f"gave up waiting for {what}")
        time.sleep(0.001)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opsrun", default=os.path.join(here, "..", ".build", "release", "opsrun"))
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    opsrun = os.path.abspath(args.opsrun)
    if not os.access(opsrun, os.X_OK):
        sys.exit(f"no opsrun at {opsrun}: swift build -c release --static-swift-stdlib, or --opsrun PATH")

    with tempfile.TemporaryDirectory(prefix="opsrun-watch-") as project:
        os.makedirs(os.path.join(project, "src"))
        with open(os.path.join(project, "Tasksfile.yaml"), "w") as f:
            f.write(MANIFEST)
        source = os.path.join(project, "src", "input.txt")
        started = os.path.join(project, "started")
        with open(source, "w") as f:
            f.write("0\n")
        log = open(os.path.join(project, "stderr"), "w+")
        process = subprocess.Popen([opsrun, "-w", "build"], cwd=project, stdout=subprocess.DEVNULL, stderr=log)

        def watching_count():
            with open(log.name) as f:
                return f.read().count("watching for changes")

        def start_time():
            try:
                with open(started) as f:
                    text = f.read().strip()
                return int(text) if text else None
            except FileNotFoundError:
                return None

        try:
            wait_for(lambda: watching_count() >= 1, "the first run")
            latencies = []
            for round in range(1, args.rounds + 1):
                before = start_time()
                with open(source, "w") as f:
                    f.write(f"{round}\n")
                changed = time.time_ns()
                wait_for(lambda: start_time() not in (None, before), f"the run of round {round}")
                latencies.append((start_time() - changed) / 1e6)
                wait_for(lambda: watching_count() >= round + 1, f"the end of round {round}")
        finally:
            process.terminate()
            process.wait(timeout=30)

    latencies.sort()
    p90 = latencies[max(0, int(round_up(len(latencies) * 0.9)) - 1)]
    print(f"opsrun --watch, change to command start, {len(latencies)} rounds: "
          f"median {statistics.median(latencies):.1f} ms, p90 {p90:.1f} ms, max {latencies[-1]:.1f} ms")


def round_up(x):
    return int(x) if x == int(x) else int(x) + 1


if __name__ == "__main__":
    main()
