#!/usr/bin/env python3
"""The output cache on a C build (docs/manual/cache.md, issue 30): c300 (projects.py: 300 modules
and main.c compiled by cc with depfiles, then linked) built from a fresh tree three ways, interleaved:

  off      opsrun -j 2 --no-cache            every compile and the link run
  warm     opsrun -j 2 (local cache filled)  every compile and the link restored from the local cache
  nginx    opsrun -j 2 --remote-cache URL    every compile and the link restored from nginx on loopback
           (empty local cache; the server was filled once before the rounds)

Each restored tree's build/app must be byte-identical to the one `off` built, and the summary must
say that nothing ran. Targets (issue 30): warm <= 0.25 x off, nginx <= 0.5 x off.

    Benchmarks/cache_c.py [--opsrun PATH] [--rounds 5] [--files 300]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cache  # noqa: E402  (nginx)
import projects  # noqa: E402  (the c300 project)


def run(argv, cwd, env):
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    lines = result.stdout.strip().splitlines()
    summary = next((line for line in reversed(lines) if "succeeded" in line), "")
    if result.returncode != 0 or "warning" in result.stderr:
        raise SystemExit(f"cache_c.py: {' '.join(argv)}: exit {result.returncode}, {summary!r}\n{result.stderr[-2000:]}")
    return elapsed, summary


def counts(summary):
    found = dict((word, int(n)) for n, word in re.findall(r"(\d+) (succeeded|restored)", summary))
    return found.get("succeeded", 0), found.get("restored", 0)


def fresh(project):
    for path in ("build", ".opsrun"):
        shutil.rmtree(os.path.join(project, path), ignore_errors=True)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--opsrun", default=os.path.join(HERE, "..", ".build", "release", "opsrun"))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--work", help="where the project and caches go (default: the system's temporary directory)")
    a = p.parse_args(argv)
    opsrun = os.path.abspath(a.opsrun)
    work = tempfile.mkdtemp(prefix="opsrun-cache-c-", dir=a.work)
    project = os.path.join(work, "c300")
    projects.write_project(project, [(f"m{i:03d}", f"h{i % 30:02d}.h", 12) for i in range(a.files)])
    local, fetched = os.path.join(work, "local"), os.path.join(work, "fetched")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPSRUN_")}
    nginx, url = cache.start_nginx(os.path.join(work, "nginx"))
    try:
        base = [opsrun, "-j", "2"]
        # Fill the local cache and the server once; `off` is the reference build.
        fresh(project)
        run(base + ["--cache-dir", local], project, env)
        fresh(project)
        run(base + ["--cache-dir", os.path.join(work, "filler"), "--remote-cache", url], project, env)
        fresh(project)
        _, summary = run(base + ["--no-cache"], project, env)
        tasks, _ = counts(summary)
        with open(os.path.join(project, "build", "app"), "rb") as f:
            reference = f.read()
        modes = {
            "off": (base + ["--no-cache"], []),
            "warm": (base + ["--cache-dir", local], []),
            "nginx": (base + ["--cache-dir", fetched, "--remote-cache", url], [fetched]),
        }
        times = {mode: [] for mode in modes}
        order = list(modes)
        for r in range(a.rounds):
            for mode in order[r % 3:] + order[:r % 3]:
                command, caches = modes[mode]
                fresh(project)
                for path in caches:
                    shutil.rmtree(path, ignore_errors=True)
                elapsed, summary = run(command, project, env)
                ran, restored = counts(summary)
                if mode != "off" and (ran, restored) != (0, tasks):
                    raise SystemExit(f"cache_c.py: {mode}: expected 0 succeeded, {tasks} restored: {summary!r}")
                with open(os.path.join(project, "build", "app"), "rb") as f:
                    if f.read() != reference:
                        raise SystemExit(f"cache_c.py: {mode}: build/app differs from the --no-cache build")
                times[mode].append(elapsed)
                print(f"   round {r} {mode:<6} {elapsed:.3f} s  {summary.strip()}", flush=True)
    finally:
        nginx.kill()
        nginx.wait()
        shutil.rmtree(work, ignore_errors=True)
    off = statistics.median(times["off"])
    print(f"\nc300 ({a.files + 1} compiles and a link, -j 2), medians of {a.rounds} interleaved rounds, "
          f"load {os.getloadavg()[0]:.2f}:")
    for mode in modes:
        m = statistics.median(times[mode])
        spread = f"{min(times[mode]):.3f}-{max(times[mode]):.3f}"
        target = {"warm": 0.25, "nginx": 0.5}.get(mode)
        verdict = "" if target is None else f"  {m / off:.3f} x off (target <= {target}: {'PASS' if m / off <= target else 'not met'})"
        print(f"  {mode:<6} {m:.3f} s (spread {spread}){verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
