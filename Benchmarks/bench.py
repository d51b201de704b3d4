#!/usr/bin/env python3
"""Run opsrun beside make, ninja, go-task, just and the floor on the same graphs, interleaved.

Usually started by Benchmarks/run.sh, which makes the virtualenv with the anchors first.
Prints, per workload, the median wall time and peak memory of every tool, the ratios of opsrun to
each, and at the end PASS/FAIL for the targets of issues 4 and 5. Exits 0 whatever the figures:
it is a measurement. Results also go to Benchmarks/work/results.json and results.md.
"""

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

import generate
import modules

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The README's release build (a quicker start: docs/process-handling.md).
RELEASE_TOOLSET = ["--toolset", os.path.join(ROOT, "release.toolset.json")]
WORK = os.path.join(HERE, "work")
VENV_BIN = os.path.join(HERE, ".venv", "bin")
# floor-vfork is the floor with vfork and a bare child: a reference for how much below the floor
# a spawner that waits for each exec can go; the targets use `floor`.
TOOLS = ("make", "ninja", "task", "just", "opsrun", "floor", "floor-vfork")
# opsrun again, with its manifest cache (.opsrun/manifest.cache) removed before every run: the first
# run after an edit. "opsrun" alone is every later run, which finds the cache.
COLD = "opsrun-cold"
MEASURE = None  # the compiled measure.c, set in main
FAKECC = None  # the compiled fakecc.c (the generated modules' compiler), set in main
MODULE_TOOLS = ("make", "ninja", "opsrun")


class Workload:
    """One graph and how the tools are asked about it: `run` it, `dry` run it, or `noop` rebuild."""

    def __init__(self, name, kind, shape, n, cmd, jobs, tools, what):
        self.name, self.kind, self.shape, self.n = name, kind, shape, n
        self.cmd, self.jobs, self.tools, self.what = cmd, jobs, tools, what


def workloads(quick):
    small = 200 if quick else 2000
    big = 10_000 if quick else 100_000
    noop = 1_000 if quick else 10_000
    return [
        Workload("fanin-true", "run", "fanin", small, "true", 2, TOOLS,
                 f"{small} x /bin/true and a sink, -j 2"),
        Workload("dag-true", "run", "dag", small, "true", 2, TOOLS,
                 f"{small} x /bin/true, layered DAG (<=4 deps on the layer before), -j 2"),
        Workload("chain-true", "run", "chain", small, "true", 2, TOOLS,
                 f"{small} x /bin/true in a line, -j 2 (floor at -j 1: nothing can overlap)"),
        Workload("dag-touch", "run", "dag", small, "touch", 2, TOOLS,
                 f"{small} x touch out/NAME, layered DAG, -j 2"),
        Workload("dry-dag", "dry", "dag", big, "true", 2, ("make", "ninja", "opsrun", COLD),
                 f"{big}-task layered DAG, dry run (-n), output to /dev/null"),
        Workload("noop", "noop", "fanin", noop, "touch", 2, ("make", "ninja", "task", "opsrun"),
                 f"{noop} up-to-date tasks, one source and one output each: the second run"),
    ] + [
        # The generated modules (modules.py): a fake compiler, so only the tools' own work shows.
        Workload(f"modules-noop-{label}", "modules-noop", None, n, None, 2, MODULE_TOOLS,
                 f"{n:,} generated modules and a link, fake compiler, depfiles: the no-op")
        for label, n in (("1k", 100 if quick else 1_000), ("10k", 300 if quick else 10_000),
                         ("100k", 1_000 if quick else 100_000))
    ] + [
        Workload("modules-edit-10k", "modules-edit", None, 300 if quick else 10_000, None, 2, MODULE_TOOLS,
                 f"{300 if quick else 10_000:,} generated modules: edit a header 10 of them include, rebuild "
                 f"(10 compiles and the link)"),
    ]


# ---------------------------------------------------------------- finding and building the tools

def find_tool(name):
    venv = os.path.join(VENV_BIN, name)
    if os.access(venv, os.X_OK):
        return venv
    return shutil.which(name)


def build_opsrun(explicit):
    """Returns (path, None) or (None, why not)."""
    path = explicit or os.environ.get("OPSRUN")
    if path:
        path = os.path.abspath(path)
        return (path, None) if os.access(path, os.X_OK) else (None, f"OPSRUN={path} is not executable")
    print("building opsrun: swift build -c release --static-swift-stdlib (log: Benchmarks/work/swift-build.log)",
          flush=True)
    log = os.path.join(WORK, "swift-build.log")
    with open(log, "w") as f:
        rc = subprocess.call(["swift", "build", "-c", "release", "--static-swift-stdlib", *RELEASE_TOOLSET], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        with open(log) as f:
            tail = "".join(f.readlines()[-15:])
        return None, f"swift build -c release --static-swift-stdlib failed (exit {rc}):\n{tail}"
    out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                         capture_output=True, text=True).stdout.strip()
    path = os.path.join(out, "opsrun")
    return (path, None) if os.access(path, os.X_OK) else (None, f"no binary at {path}")


def installed_copy(path, directory):
    """A copy of the binary, as the README's `install` makes one, which is what users run. The
    file the linker writes is cached by the kernel in 4 KiB pages (gold writes it through a
    mapping), a copy in large folios: every page fault at start then costs less, and a one-task
    no-op takes 1.5 ms from a copy against 1.9 ms from `.build/release/opsrun`."""
    os.makedirs(directory, exist_ok=True)
    copy = os.path.join(directory, os.path.basename(path))
    shutil.copy2(path, copy)
    return copy


def run_scheduler_bench(opsrun_path, rounds):
    """Issue 4's third target: opsrun-scheduler-bench (the engine alone, 100,000 tasks, a runner
    that starts nothing). Returns ({shape: {"tasks", "wall", "min"}}, None) or (None, why not)."""
    path = os.path.join(os.path.dirname(opsrun_path), "opsrun-scheduler-bench") if opsrun_path else None
    if not path or not os.access(path, os.X_OK):
        log = os.path.join(WORK, "swift-build-scheduler-bench.log")
        with open(log, "w") as f:
            rc = subprocess.call(["swift", "build", "-c", "release", "--static-swift-stdlib", *RELEASE_TOOLSET,
                                  "--product", "opsrun-scheduler-bench"],
                                 cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
        if rc != 0:
            return None, f"swift build -c release --static-swift-stdlib --product opsrun-scheduler-bench failed (exit {rc}); see {log}"
        out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                             capture_output=True, text=True).stdout.strip()
        path = os.path.join(out, "opsrun-scheduler-bench")
    done = subprocess.run([path, "--tasks", "100000", "--rounds", str(rounds)], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"{path} failed (exit {done.returncode}): {done.stderr.strip()}"
    results = {}
    for line in done.stdout.splitlines():
        shape, tasks, median, fastest = line.split()
        results[shape] = {"tasks": int(tasks), "wall": float(median), "min": float(fastest)}
    load = os.getloadavg()[0]
    print(f"\n== scheduler alone (opsrun-scheduler-bench, -j 2, median of {rounds}; load average {load:.2f})")
    for shape, r in results.items():
        print(f"   {shape:<6} {r['tasks']} tasks  {r['wall']:.3f} s (min {r['min']:.3f})")
    return results, None


def compile_c(name):
    path = os.path.join(WORK, name)
    rc = subprocess.call(["cc", "-O2", "-o", path, os.path.join(HERE, f"{name}.c")])
    return (path, None) if rc == 0 else (None, f"cc -O2 {name}.c failed")


def version(tool, path):
    if tool == "floor":
        return "posix_spawnp + waitpid (cc -O2)"
    if tool == "floor-vfork":
        return "floor -v: vfork + execve + waitpid (cc -O2)"
    arg = {"make": ["--version"], "opsrun": ["--version"]}.get(tool, ["--version"])
    try:
        out = subprocess.run([path] + arg, capture_output=True, text=True, timeout=10)
        text = (out.stdout or out.stderr).strip().splitlines()
        return text[0] if text else "?"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"? ({e})"


# ---------------------------------------------------------------- what each tool is asked to do

def argv_for(tool, path, w):
    j = str(w.jobs)
    if w.kind.startswith("modules"):
        # Each tool's default target: the link (`app`).
        return [path, "-j", j]
    if w.kind == "dry":
        return {"make": [path, "-n", "-f", "Makefile", "sink"],
                "ninja": [path, "-n", "sink"],
                "opsrun": [path, "-n", "sink"],
                COLD: [path, "-n", "sink"]}[tool]
    if tool in ("floor", "floor-vfork"):
        jobs = "1" if w.shape == "chain" else j
        bare = ["-v"] if tool == "floor-vfork" else []
        if w.cmd == "true":
            return [path] + bare + ["-j", jobs, str(w.n), "/bin/true"]
        return [path] + bare + ["-j", jobs, "-l", "commands.txt"]
    return {"make": [path, "-j", j, "-f", "Makefile", "sink"],
            "ninja": [path, "-j", j, "sink"],
            "task": [path, "--concurrency", j, "sink"],
            "just": [path, "--jobs", j, "sink"],
            "opsrun": [path, "-j", j, "sink"]}[tool]


def measure(argv, cwd, errlog):
    """Runs argv through the measure helper; returns (exit code, wall s, peak RSS MiB).

    Peak RSS is wait4's ru_maxrss: the largest of the tool and the processes it waited for.
    """
    result = os.path.join(WORK, "measure.out")
    with open(errlog, "w") as err:
        rc = subprocess.call([MEASURE, "-o", result] + argv, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=err)
    if rc != 0:
        return 127, 0.0, 0.0
    with open(result) as f:
        wall, rss, code = f.read().split()
    return int(code), float(wall), int(rss) / 1024.0


def tail(path, lines=8):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()
    except OSError:
        return ""


def reset_outputs(directory):
    out = os.path.join(directory, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)


def count_outputs(directory):
    return len(os.listdir(os.path.join(directory, "out")))


def output_mtimes(directory):
    out = os.path.join(directory, "out")
    return {e.name: e.stat().st_mtime_ns for e in os.scandir(out)}


# ---------------------------------------------------------------- sanity: does the tool run tasks?

def sanity(paths):
    """Runs each tool on a small touch graph and checks every task ran; returns {tool: why not}."""
    d = os.path.join(WORK, "sanity")
    shutil.rmtree(d, ignore_errors=True)
    g = generate.generate("dag", 30, "touch", d, width=5, seed=7)
    w = Workload("sanity", "run", "dag", 30, "touch", 2, TOOLS, "")
    broken = {}
    for tool, path in paths.items():
        reset_outputs(d)
        rc, _, _ = measure(argv_for(tool, path, w), d, os.path.join(d, f"{tool}.err"))
        made = count_outputs(d)
        if rc != 0:
            broken[tool] = f"exit {rc} on a 30-task graph: {tail(os.path.join(d, f'{tool}.err'), 3)}"
        elif made != 30:
            broken[tool] = f"ran {made} of 30 tasks of a small graph (outputs missing), exit 0"
    if "opsrun" in paths:
        # Checked even when running failed: a dry run may work before the engine does.
        reset_outputs(d)
        out = subprocess.run([paths["opsrun"], "-n", "sink"], cwd=d, capture_output=True, text=True)
        if out.returncode != 0 or g.names[-1] not in out.stdout:
            broken["opsrun -n"] = f"exit {out.returncode}, plan does not name {g.names[-1]}"
    shutil.rmtree(os.path.join(d, "out"), ignore_errors=True)
    return broken


# ---------------------------------------------------------------- running a workload

def prepare(w, tools):
    """Generates the workload; returns {tool: directory}. A no-op workload gets a copy per tool."""
    base = os.path.join(WORK, w.name)
    shutil.rmtree(base, ignore_errors=True)
    if w.kind.startswith("modules"):
        dirs = {}
        for tool in tools:
            dirs[tool] = os.path.join(base, tool)
            modules.generate(dirs[tool], w.n, FAKECC, tools=[tool])
        return dirs
    if w.kind == "noop":
        dirs = {}
        for tool in tools:
            d = os.path.join(base, tool)
            generate.generate(w.shape, w.n, w.cmd, d, sources=True, tools=[tool])
            dirs[tool] = d
        return dirs
    gen_tools = [t for t in tools if t in generate.ALL_TOOLS]
    generate.generate(w.shape, w.n, w.cmd, base, tools=gen_tools)
    return {tool: base for tool in tools}


def run_workload(w, paths, rounds, warmup):
    if "opsrun" in paths:
        paths = dict(paths, **{COLD: paths["opsrun"]})
    tools = [t for t in w.tools if t in paths]
    load = os.getloadavg()[0]
    busy = "  -- the machine is busy, expect noise" if load > 0.5 * (os.cpu_count() or 1) else ""
    print(f"\n== {w.name}: {w.what} (load average {load:.2f}{busy})", flush=True)
    if not tools:
        print("   no tools to run")
        return {}, {}
    dirs = prepare(w, tools)
    failed, notes = {}, {}
    samples = {t: [] for t in tools}

    def once(tool, timed):
        d = dirs[tool]
        if w.kind == "run" and w.cmd == "touch":
            reset_outputs(d)
        if tool == COLD:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(d, ".opsrun", "manifest.cache"))
        if w.kind == "modules-edit":
            # The edit itself is not timed; new content every time, so the objects change too.
            versions[tool] += 1
            modules.edit_header(d, w.n, edited_header, versions[tool])
        if w.kind.startswith("modules"):
            before = modules.object_times(d)
        else:
            before = output_mtimes(d) if w.kind == "noop" else None
        errlog = os.path.join(d, f"{tool}.err") if w.kind in ("run", "dry") else os.path.join(d, "stderr.txt")
        rc, wall, rss = measure(argv_for(tool, paths[tool], w), d, errlog)
        if rc != 0:
            failed[tool] = f"exit {rc}: {tail(errlog, 5)}"
            return
        if w.kind == "modules-edit":
            after = modules.object_times(d)
            changed = sorted(k for k, v in after.items() if before.get(k) != v)
            if changed != expected_edit:
                failed[tool] = (f"the header edit rewrote {len(changed)} files ({', '.join(changed[:12])}), "
                                f"not the {len(expected_edit) - 1} includers' objects and app")
                return
        elif w.kind == "modules-noop":
            after = modules.object_times(d)
            if after != before:
                changed = sum(1 for k, v in after.items() if before.get(k) != v)
                notes[tool] = f"not a no-op: rewrote {changed} of {w.n + 1} objects and app"
        if w.kind == "run" and w.cmd == "touch" and count_outputs(d) != w.n:
            failed[tool] = f"wrote {count_outputs(d)} of {w.n} outputs"
            return
        if w.kind == "noop" and output_mtimes(d) != before:
            changed = sum(1 for k, v in output_mtimes(d).items() if before.get(k) != v)
            notes[tool] = f"not a no-op: rewrote {changed} of {w.n} outputs"
        if timed:
            samples[tool].append((wall, rss))

    edited_header = modules.header_count(w.n) // 2 if w.kind == "modules-edit" else None
    expected_edit = (sorted(["app"] + [modules.module_name(i, w.n) + ".o" for i in modules.includers(edited_header, w.n)])
                     if w.kind == "modules-edit" else None)
    versions = {t: 0 for t in tools}
    first_builds = {}
    if w.kind == "noop" or w.kind.startswith("modules"):
        # The first build, untimed, then one settling no-op run; the timed runs are the next ones.
        for tool in tools:
            rc, wall, rss = measure(argv_for(tool, paths[tool], w), dirs[tool],
                                    os.path.join(dirs[tool], "build.txt"))
            if w.kind == "noop":
                wrong = None if count_outputs(dirs[tool]) == w.n else f"{count_outputs(dirs[tool])} of {w.n} outputs"
            else:
                wrong = modules.check_built(dirs[tool], w.n)
            if rc != 0 or wrong:
                failed[tool] = (f"first build: exit {rc}, {wrong or 'all built'}: "
                                f"{tail(os.path.join(dirs[tool], 'build.txt'), 5)}")
            else:
                first_builds[tool] = {"wall": wall, "rss": rss}
                print(f"   {tool}: first build {wall:.2f}s, peak {rss:.1f} MiB", flush=True)
        # opsrun trusts a cached stat only for a file last changed 2 s or more before it looks
        # (the racy window): outputs written in the build's last 2 s are read again until then.
        # The settling run comes after that, so the timed runs see the steady state, whichever
        # tools run (with go-task's slow no-op in the round, they always did).
        time.sleep(2.5)
    for r in range(warmup + rounds):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        for tool in order:
            if tool not in failed:
                once(tool, timed=r >= warmup)
        if r >= warmup:
            line = "  ".join(f"{t} {samples[t][-1][0]:.3f}" for t in tools if t not in failed and samples[t])
            print(f"   round {r - warmup + 1}/{rounds}: {line}", flush=True)
    for tool, why in failed.items():
        print(f"   !! {tool} failed here and is left out: {why}")
    for tool, why in notes.items():
        print(f"   !! {tool}: {why}")

    result = {}
    for tool in tools:
        if samples[tool] and tool not in failed:
            walls = [s[0] for s in samples[tool]]
            result[tool] = {"wall": statistics.median(walls), "min": min(walls),
                            "rss": statistics.median(s[1] for s in samples[tool]),
                            "runs": len(walls), "note": notes.get(tool)}
            if tool in first_builds:
                result[tool]["first_build"] = first_builds[tool]
    print_table(w, result)
    return result, failed


def print_table(w, result):
    if not result:
        return
    print(f"   {'tool':<11} {'wall s (median)':>16} {'min s':>8} {'peak MiB':>9}")
    for tool, r in result.items():
        flag = "  (not a no-op!)" if r["note"] else ""
        print(f"   {tool:<11} {r['wall']:>16.4f} {r['min']:>8.4f} {r['rss']:>9.1f}{flag}")
    if "opsrun" in result:
        ops = result["opsrun"]["wall"]
        ratios = [f"opsrun/{t} {ops / r['wall']:.2f}" for t, r in result.items() if not t.startswith("opsrun") and r["wall"] > 0]
        if COLD in result and "ninja" in result:
            ratios.append(f"{COLD}/ninja {result[COLD]['wall'] / result['ninja']['wall']:.2f}")
        print("   ratios: " + "  ".join(ratios))
        # Noise only ever adds time, so the fastest runs are a second, steadier view.
        best = result["opsrun"]["min"]
        ratios = [f"opsrun/{t} {best / r['min']:.2f}" for t, r in result.items() if not t.startswith("opsrun") and r["min"] > 0]
        print("   ratios of the fastest runs (not the targets' measure): " + "  ".join(ratios))


# ---------------------------------------------------------------- targets

def check_targets(results, failures, quick, broken, scheduler_result):
    lines = []

    def verdict(ok):
        return "PASS" if ok else "FAIL"

    def opsrun_missing(name):
        if "opsrun" in failures.get(name, {}):
            return "opsrun failed: " + failures[name]["opsrun"].splitlines()[0]
        if "opsrun" in broken:
            return "opsrun did not pass the sanity check: " + broken["opsrun"]
        return "opsrun not measured"

    for name in ("fanin-true", "dag-true"):
        r = results.get(name, {})
        if "opsrun" not in r:
            lines.append(f"N/A   {name}: {opsrun_missing(name)}")
            continue
        ops = r["opsrun"]["wall"]
        fast = [r[t]["wall"] for t in ("make", "ninja") if t in r]
        if fast:
            limit = 0.9 * min(fast)
            lines.append(f"{verdict(ops <= limit)}  {name}: opsrun {ops:.3f}s <= 0.9 x min(make, ninja) = {limit:.3f}s")
        if "floor" in r:
            limit = 1.15 * r["floor"]["wall"]
            lines.append(f"{verdict(ops <= limit)}  {name}: opsrun {ops:.3f}s <= 1.15 x floor = {limit:.3f}s")
    r = results.get("dry-dag", {})
    if "opsrun" in r and "opsrun -n" not in broken:
        ops = r["opsrun"]
        lines.append(f"{verdict(ops['wall'] < 1.0)}  dry-dag: opsrun -n {ops['wall']:.3f}s < 1 s")
        lines.append(f"{verdict(ops['rss'] < 250)}  dry-dag: opsrun -n peak {ops['rss']:.1f} MiB < 250 MiB")
        if "ninja" in r:
            lines.append(f"{verdict(ops['wall'] <= r['ninja']['wall'])}  dry-dag: opsrun -n {ops['wall']:.3f}s "
                         f"<= ninja -n {r['ninja']['wall']:.3f}s")
        if COLD in r:
            cold = r[COLD]
            lines.append(f"{verdict(cold['wall'] < 1.0)}  dry-dag, no manifest cache: opsrun -n {cold['wall']:.3f}s < 1 s")
            lines.append(f"{verdict(cold['rss'] < 250)}  dry-dag, no manifest cache: opsrun -n peak {cold['rss']:.1f} MiB < 250 MiB")
            if "ninja" in r:
                lines.append(f"{verdict(cold['wall'] <= r['ninja']['wall'])}  dry-dag, no manifest cache: opsrun -n "
                             f"{cold['wall']:.3f}s <= ninja -n {r['ninja']['wall']:.3f}s")
    else:
        lines.append("N/A   dry-dag: " + ("opsrun -n did not pass the sanity check: " + broken["opsrun -n"] if "opsrun -n" in broken else opsrun_missing("dry-dag")))
    r = results.get("noop", {})
    if "opsrun" in r and "ninja" in r:
        ops, nin = r["opsrun"], r["ninja"]["wall"]
        ok = ops["wall"] <= nin and not ops["note"]
        extra = f" ({ops['note']})" if ops["note"] else ""
        lines.append(f"{verdict(ok)}  noop: opsrun {ops['wall']:.3f}s <= 1.0 x ninja no-op {nin:.3f}s{extra}")
    else:
        lines.append("N/A   noop: " + opsrun_missing("noop"))
    for name, r in results.items():
        if not name.startswith("modules-"):
            continue
        if "opsrun" not in r or "ninja" not in r:
            lines.append(f"N/A   {name}: " + (opsrun_missing(name) if "opsrun" not in r else "ninja not measured"))
            continue
        ops, nin = r["opsrun"], r["ninja"]
        what = "header edit (10 compiles and the link)" if name.startswith("modules-edit") else "no-op"
        extra = f" ({ops['note']})" if ops.get("note") else ""
        lines.append(f"{verdict(ops['wall'] <= nin['wall'] and not ops.get('note'))}  {name}: opsrun {what} "
                     f"{ops['wall']:.4f}s <= 1.0 x ninja {nin['wall']:.4f}s ({ops['wall'] / nin['wall']:.2f} x){extra}")
        if name.startswith("modules-noop"):
            lines.append(f"{verdict(ops['rss'] <= 2 * nin['rss'])}  {name}: opsrun peak {ops['rss']:.1f} MiB "
                         f"<= 2 x ninja's {nin['rss']:.1f} MiB ({ops['rss'] / nin['rss']:.2f} x)")
    scheduler, why = scheduler_result
    if scheduler:
        for shape in ("chain", "dag"):
            if shape in scheduler:
                wall = scheduler[shape]["wall"]
                lines.append(f"{verdict(wall < 0.5)}  scheduler alone, {shape} of {scheduler[shape]['tasks']}: "
                             f"{wall:.3f}s < 0.5 s")
    else:
        lines.append("N/A   scheduler alone (100k tasks, runner that starts nothing, < 0.5 s): " + why)
    print("\n== targets (issues 4, 5 and 30)" + (" -- QUICK MODE: smaller graphs, indicative only" if quick else ""))
    for line in lines:
        print("   " + line)
    return lines


def markdown(results, machine, versions, rounds, scheduler=None):
    out = [f"Machine: {machine}. Medians of {rounds} interleaved rounds; wall seconds / peak MiB.", ""]
    for name, r in results.items():
        if not r:
            continue
        ops = r.get("opsrun", {}).get("wall")
        if ops:
            out += [f"**{name}**", "", "| tool | wall s | peak MiB | opsrun / tool |", "|---|---:|---:|---:|"]
        else:
            out += [f"**{name}**", "", "| tool | wall s | peak MiB |", "|---|---:|---:|"]
        for tool, v in r.items():
            row = f"| {tool} | {v['wall']:.3f} | {v['rss']:.1f} |"
            if ops:
                row += f" {ops / v['wall']:.2f} |" if not tool.startswith("opsrun") and v["wall"] > 0 else " |"
            out.append(row)
        out.append("")
    if scheduler:
        out += ["**scheduler alone** (opsrun-scheduler-bench: the engine, a runner that starts nothing, -j 2)", "",
                "| shape | tasks | wall s | min s |", "|---|---:|---:|---:|"]
        out += [f"| {shape} | {v['tasks']:,} | {v['wall']:.3f} | {v['min']:.3f} |" for shape, v in scheduler.items()]
        out.append("")
    out.append("Versions: " + "; ".join(f"{t}: {v}" for t, v in versions.items()))
    return "\n".join(out) + "\n"


def machine_line():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small graphs and 3 rounds: a smoke test")
    p.add_argument("--rounds", type=int, help="timed rounds per workload (default 5; 3 with --quick)")
    p.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset of " + ",".join(TOOLS))
    p.add_argument("--workloads", help="comma-separated subset of the workload names")
    p.add_argument("--opsrun", help="path of an opsrun binary (or OPSRUN=path); default: swift build -c release")
    a = p.parse_args(argv)
    rounds = a.rounds or (3 if a.quick else 5)
    wanted = [t for t in a.tools.split(",") if t]
    unknown = set(wanted) - set(TOOLS)
    if unknown:
        p.error("unknown tools: " + ", ".join(sorted(unknown)))
    os.makedirs(WORK, exist_ok=True)
    global MEASURE
    MEASURE, why = compile_c("measure")
    if not MEASURE:
        sys.exit(f"bench.py: {why}; it is needed to measure anything")
    global FAKECC
    FAKECC, why = compile_c("fakecc")

    paths, broken = {}, {}
    built_opsrun = None
    for tool in wanted:
        if tool == "opsrun":
            path, why = build_opsrun(a.opsrun)
        elif tool in ("floor", "floor-vfork"):
            path, why = compile_c("floor")
        else:
            path = find_tool(tool)
            why = None if path else f"'{tool}' not found in Benchmarks/.venv/bin or PATH"
        if path:
            paths[tool] = installed_copy(path, os.path.join(WORK, "bin")) if tool == "opsrun" else path
            if tool == "opsrun":
                built_opsrun = path
        else:
            broken[tool] = why
    machine = machine_line()
    versions = {t: version(t, p_) for t, p_ in paths.items()}
    print(f"machine: {machine}")
    for t, v in versions.items():
        print(f"  {t:<7} {v}   ({paths[t]})")
    broken.update(sanity(paths))
    for t, why in broken.items():
        print(f"!! {t} is left out: {why}")
    print("note: just runs a recipe's dependencies one at a time unless the recipe has [parallel]; "
          "the justfile marks every recipe with dependencies [parallel] and just gets --jobs N.")
    print("note: go-task runs dependencies concurrently, bounded by --concurrency N (it has no -j).")

    chosen = workloads(a.quick)
    if not FAKECC:
        print(f"!! the modules workloads are left out: {why}")
        chosen = [w for w in chosen if not w.kind.startswith("modules")]
    if a.workloads:
        names = set(a.workloads.split(","))
        unknown = names - {w.name for w in workloads(a.quick)} - {"scheduler"}
        if unknown:
            p.error("unknown workloads: " + ", ".join(sorted(unknown)))
        chosen = [w for w in chosen if w.name in names]
    results, failures = {}, {}
    for w in chosen:
        def usable(tool):
            return ("opsrun -n" if w.kind == "dry" and tool == "opsrun" else tool) not in broken
        use = {t: p_ for t, p_ in paths.items() if usable(t)}
        results[w.name], failures[w.name] = run_workload(w, use, rounds, warmup=1)
    if "opsrun" in paths and (not a.workloads or "scheduler" in a.workloads.split(",")):
        scheduler_result = run_scheduler_bench(built_opsrun, rounds)
    else:
        scheduler_result = (None, "not asked for (--tools without opsrun, or --workloads without 'scheduler')")
    targets = check_targets(results, failures, a.quick, broken, scheduler_result)

    with open(os.path.join(WORK, "results.json"), "w") as f:
        json.dump({"machine": machine, "versions": versions, "rounds": rounds, "quick": a.quick,
                   "results": results, "scheduler": scheduler_result[0], "failures": failures, "targets": targets, "left_out": broken}, f, indent=2)
    with open(os.path.join(WORK, "results.md"), "w") as f:
        f.write(markdown(results, machine, versions, rounds, scheduler_result[0]))
    print("\nwritten: Benchmarks/work/results.json, Benchmarks/work/results.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
