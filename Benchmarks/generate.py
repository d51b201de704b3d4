#!/usr/bin/env python3
"""Write one task graph as equivalent manifests for opsrun, make, ninja, go-task and just.

Shapes:
  fanin  N independent tasks and a sink that depends on all of them
  chain  N tasks in a line (t1 needs t0, t2 needs t1, ...) and a sink after the last
  dag    layers of --width tasks; each task depends on 1 to 4 random tasks of the layer
         before (seeded RNG); the sink depends on every task nothing else depends on
Commands:
  true   every task runs /bin/true
  touch  every task runs `touch out/NAME` (make and ninja get real file targets)
  copy   every task runs `cp src/NAME.txt out/NAME`, with that source and output declared
With --sources, every task also gets one real source file src/NAME.txt (written here) and one
output out/NAME, declared as sources/outputs (opsrun), inputs/outputs (ninja, make) and
sources/generates (go-task): the workload of an incremental no-op run.

Every file names the final task `sink`; tasks are t0000, t0001, ... in topological order.
Also written: commands.txt, one command per line in the same order, for the floor program.

Usage: generate.py --shape dag --n 2000 --cmd true --out DIR [--width W] [--seed S]
                   [--sources] [--tools opsrun,make,ninja,task,just]
"""

import argparse
import math
import os
import random
import sys
import time

ALL_TOOLS = ("opsrun", "make", "ninja", "task", "just")


class Graph:
    """Tasks in topological order: names, each one's deps (indices), and the sink's deps."""

    def __init__(self, names, deps, sink_deps):
        self.names = names
        self.deps = deps
        self.sink_deps = sink_deps


def build_graph(shape, n, width, seed):
    digits = max(4, len(str(n - 1)))
    names = [f"t{i:0{digits}d}" for i in range(n)]
    deps = [[] for _ in range(n)]
    if shape == "fanin":
        sink_deps = list(range(n))
    elif shape == "chain":
        for i in range(1, n):
            deps[i] = [i - 1]
        sink_deps = [n - 1]
    elif shape == "dag":
        rng = random.Random(seed)
        has_dependent = [False] * n
        for i in range(width, n):
            layer_start = (i // width) * width
            previous = range(layer_start - width, layer_start)
            chosen = sorted(rng.sample(previous, min(width, rng.randint(1, 4))))
            deps[i] = chosen
            for d in chosen:
                has_dependent[d] = True
        sink_deps = [i for i in range(n) if not has_dependent[i]]
    else:
        raise SystemExit(f"generate.py: unknown shape {shape!r}")
    return Graph(names, deps, sink_deps)


def command(cmd, name):
    if cmd == "copy":
        # Outputs of distinct content, for the output cache (nothing deduplicates them).
        return f"cp src/{name}.txt out/{name}"
    return "/bin/true" if cmd == "true" else f"touch out/{name}"


def file_target(cmd, sources):
    """make and ninja name a task by its output file when it writes one."""
    return (lambda name: f"out/{name}") if (cmd in ("touch", "copy") or sources) else (lambda name: name)


def write_tasksfile(g, cmd, sources, path):
    lines = ["version: 1", "default: sink", "tasks:"]
    for i, name in enumerate(g.names):
        lines.append(f"  {name}:")
        if g.deps[i]:
            lines.append(f"    deps: [{', '.join(g.names[d] for d in g.deps[i])}]")
        lines.append(f"    run: {command(cmd, name)}")
        if sources:
            lines.append(f"    sources: [src/{name}.txt]")
            lines.append(f"    outputs: [out/{name}]")
    lines.append("  sink:")
    lines.append(f"    deps: [{', '.join(g.names[d] for d in g.sink_deps)}]")
    write(path, lines)


def write_makefile(g, cmd, sources, path):
    target = file_target(cmd, sources)
    # No built-in rules and no suffixes: the fastest make a careful author would write.
    lines = ["MAKEFLAGS += --no-builtin-rules", ".SUFFIXES:", ""]
    phony = ["sink"] + ([] if (cmd == "touch" or sources) else g.names)
    lines.append(".PHONY: " + " ".join(phony))
    lines.append("sink: " + " ".join(target(g.names[d]) for d in g.sink_deps))
    for i, name in enumerate(g.names):
        prereqs = [target(g.names[d]) for d in g.deps[i]]
        if sources:
            prereqs.insert(0, f"src/{name}.txt")
        lines.append(f"{target(name)}: {' '.join(prereqs)}".rstrip())
        lines.append(f"\t@{command(cmd, name)}")
    write(path, lines)


def write_ninja(g, cmd, sources, path):
    target = file_target(cmd, sources)
    lines = ["ninja_required_version = 1.5", ""]
    if cmd == "true":
        lines += ["rule true", "  command = /bin/true", ""]
        rule = "true"
    else:
        lines += ["rule touch", "  command = touch $out", ""]
        rule = "touch"
    for i, name in enumerate(g.names):
        inputs = [target(g.names[d]) for d in g.deps[i]]
        if sources:
            inputs.insert(0, f"src/{name}.txt")
        lines.append(f"build {target(name)}: {rule} {' '.join(inputs)}".rstrip())
    lines.append("build sink: phony " + " ".join(target(g.names[d]) for d in g.sink_deps))
    lines.append("default sink")
    write(path, lines)


def write_taskfile(g, cmd, sources, path):
    # `run: once`: a task that several tasks depend on runs once per invocation, as in the others
    # (go-task's default, `always`, would run it once per dependent).
    lines = ["version: '3'", "run: once", "tasks:"]
    for i, name in enumerate(g.names):
        lines.append(f"  {name}:")
        if g.deps[i]:
            lines.append(f"    deps: [{', '.join(g.names[d] for d in g.deps[i])}]")
        lines.append(f"    cmds: ['{command(cmd, name)}']")
        if sources:
            lines.append(f"    sources: [src/{name}.txt]")
            lines.append(f"    generates: [out/{name}]")
    lines.append("  sink:")
    lines.append(f"    deps: [{', '.join(g.names[d] for d in g.sink_deps)}]")
    write(path, lines)


def write_justfile(g, cmd, path):
    # just runs a recipe's dependencies one after another unless the recipe has [parallel];
    # with it, `just --jobs N` bounds how many run at once.
    lines = []
    for i, name in enumerate(g.names):
        if g.deps[i]:
            lines.append("[parallel]")
        lines.append(f"{name}: {' '.join(g.names[d] for d in g.deps[i])}".rstrip())
        lines.append(f"    @{command(cmd, name)}")
        lines.append("")
    lines.append("[parallel]")
    lines.append("sink: " + " ".join(g.names[d] for d in g.sink_deps))
    write(path, lines)


def write_commands(g, cmd, path):
    write(path, [command(cmd, name) for name in g.names])


def write_sources(g, directory):
    src = os.path.join(directory, "src")
    os.makedirs(src, exist_ok=True)
    # Dated an hour back, so no tool sees a source as "just modified" (racy) in a no-op run.
    past = time.time() - 3600
    for name in g.names:
        path = os.path.join(src, f"{name}.txt")
        with open(path, "w") as f:
            f.write(f"source of {name}\n")
        os.utime(path, (past, past))


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines))
        f.write("\n")


def generate(shape, n, cmd, out, width=None, seed=1, sources=False, tools=ALL_TOOLS):
    """Write the graph's files into `out`; return the Graph."""
    if n < 1:
        raise SystemExit("generate.py: --n must be at least 1")
    width = width or max(2, round(math.sqrt(n)))
    g = build_graph(shape, n, width, seed)
    os.makedirs(os.path.join(out, "out"), exist_ok=True)
    if "opsrun" in tools:
        write_tasksfile(g, cmd, sources, os.path.join(out, "Tasksfile.yaml"))
    if "make" in tools:
        write_makefile(g, cmd, sources, os.path.join(out, "Makefile"))
    if "ninja" in tools:
        write_ninja(g, cmd, sources, os.path.join(out, "build.ninja"))
    if "task" in tools:
        write_taskfile(g, cmd, sources, os.path.join(out, "Taskfile.yml"))
    if "just" in tools:
        if sources:
            raise SystemExit("generate.py: just has no sources/outputs; leave it out with --sources")
        write_justfile(g, cmd, os.path.join(out, "justfile"))
    write_commands(g, cmd, os.path.join(out, "commands.txt"))
    if sources:
        write_sources(g, out)
    return g


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shape", choices=("fanin", "chain", "dag"), required=True)
    p.add_argument("--n", type=int, required=True, help="number of tasks, not counting the sink")
    p.add_argument("--cmd", choices=("true", "touch", "copy"), default="true",
                   help="copy: cp src/NAME.txt out/NAME (implies --sources)")
    p.add_argument("--width", type=int, help="dag layer width (default: sqrt(n))")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sources", action="store_true", help="one source file and one output per task")
    p.add_argument("--tools", default=",".join(ALL_TOOLS), help="which manifests to write")
    p.add_argument("--out", required=True, help="directory to write into")
    a = p.parse_args(argv)
    tools = [t for t in a.tools.split(",") if t]
    unknown = set(tools) - set(ALL_TOOLS)
    if unknown:
        p.error(f"unknown tools: {', '.join(sorted(unknown))}")
    if a.cmd == "copy":
        a.sources = True
    cmd = a.cmd if a.cmd == "copy" else ("touch" if a.sources else a.cmd)
    g = generate(a.shape, a.n, cmd, a.out, a.width, a.seed, a.sources, tools)
    edges = sum(len(d) for d in g.deps) + len(g.sink_deps)
    print(f"{a.out}: {a.shape}, {a.n} tasks + sink, {edges} edges, command {cmd}")


if __name__ == "__main__":
    main(sys.argv[1:])
