#!/usr/bin/env python3
"""Real compiles (issue 15): opsrun with `each` + `depfile` beside make (pattern rules + `-MMD`
includes) and ninja (`deps = gcc`) on C projects, and `-n` over 100,000 `each` instances.

Usually started by Benchmarks/run-projects.sh, which makes the virtualenv with ninja first.
Workloads (all at -j 2, tools interleaved, medians over the rounds):
  c300        a generated project: 300 .c files, 30 headers each included by exactly 10 of them,
              one link. Clean build, a header edit (must compile exactly 10 files), no-op (the median of 5 in a row).
  slowheader  a generated project like zstd: 40 quick files and one slow one last in the name order,
              all including one header. The header edit, from the second build on: ninja and
              opsrun know the last durations, make goes in Makefile order.
  lua         Lua 5.4 from Debian's source package (apt-get source, fetched once into
              Benchmarks/work/sources): no-op and a one-file code edit.
  each100k    `opsrun -n` over one `each` task of 100,000 values (target: under 1 s).
  first-clean a first clean build of c300, slowheader (zstd's shape) and Lua, nothing recorded:
              every output, opsrun's `.opsrun` (its durations) and ninja's log removed before each
              build, opsrun with `--no-cache` (target: <= 1.0 x make). `--baseline PATH` adds a
              second opsrun binary, interleaved with the first (before and after a change).
Exits 0 whatever the figures: it is a measurement. Results go to Benchmarks/work/projects.md.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work", "projects")
SOURCES = os.path.join(HERE, "work", "sources")
TOOLS = ("make", "ninja", "opsrun")
# A second opsrun binary (`--baseline PATH`), for the first-clean workload's before and after.
BASELINE = "opsrun-baseline"


def tool_path(name, explicit):
    if name == "opsrun":
        return os.path.abspath(explicit) if explicit else None
    venv = os.path.join(HERE, ".venv", "bin", name)
    return venv if os.access(venv, os.X_OK) else shutil.which(name)


def timed(argv, cwd):
    """Runs argv; returns its wall time in seconds. A failure stops the benchmark: a tool that
    fails to build the project has no figure worth printing."""
    log = os.path.join(WORK, "last-command.log")
    with open(log, "w") as out:
        start = time.perf_counter()
        code = subprocess.call(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - start
    if code != 0:
        with open(log, errors="replace") as f:
            sys.exit(f"!! {' '.join(argv)} in {cwd} failed (exit {code}):\n{f.read()[-2000:]}")
    return wall


def objects_changed(directory, before):
    """How many objects under directory were rewritten since `before` (a {path: mtime} snapshot)."""
    now = object_times(directory)
    return sum(1 for path, t in now.items() if before.get(path) != t)


def object_times(directory):
    return {p: os.stat(p).st_mtime_ns for p in glob.glob(os.path.join(directory, "**", "*.o"), recursive=True)}


# ---------------------------------------------------------------- generated projects

def c_module(i, header, seed_macro, functions):
    body = [f'#include "common.h"', f'#include "{header}"', ""]
    for f in range(functions):
        body.append(f"static uint64_t m{i}_{f}(uint64_t x) {{ uint64_t s = {seed_macro} + {f};"
                    f" for (int k = 0; k < (int)(x & 63); k++) {{ s = s * 6364136223846793005ULL + {i * 131 + f};"
                    f" s ^= s >> {(f % 29) + 3}; x += s; }} return s ^ x; }}")
    calls = " + ".join(f"m{i}_{f}(x)" for f in range(functions)) or "x"
    body.append(f"uint64_t mod{i}(uint64_t x) {{ return {calls}; }}")
    return "\n".join(body) + "\n"


def write_project(root, modules):
    """modules: [(file stem, header name, number of functions)]. Writes src/, include/, main.c and
    the three build files; every object goes to build/src/STEM.o."""
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, "include"))
    headers = sorted({h for _, h, _ in modules})
    with open(os.path.join(root, "include", "common.h"), "w") as f:
        f.write("#pragma once\n#include <stdint.h>\n")
    for h in headers:
        macro = h.replace(".h", "").upper() + "_SEED"
        with open(os.path.join(root, "include", h), "w") as f:
            f.write(f"#pragma once\n#define {macro} 1ULL\n")
    for i, (stem, header, functions) in enumerate(modules):
        macro = header.replace(".h", "").upper() + "_SEED"
        with open(os.path.join(root, "src", stem + ".c"), "w") as f:
            f.write(c_module(i, header, macro, functions))
    with open(os.path.join(root, "src", "main.c"), "w") as f:
        decls = "".join(f"uint64_t mod{i}(uint64_t);\n" for i in range(len(modules)))
        sums = "".join(f"  s += mod{i}(s);\n" for i in range(len(modules)))
        f.write(f'#include <stdio.h>\n#include "common.h"\n{decls}int main(void) {{ uint64_t s = 1;\n{sums}'
                f'  printf("%llu\\n", (unsigned long long)s); return 0; }}\n')
    write_build_files(root)


def write_build_files(root):
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write("""MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
CC = cc
CFLAGS = -O2 -Iinclude
SRCS := $(sort $(wildcard src/*.c))
OBJS := $(SRCS:%.c=build/%.o)
build/app: $(OBJS)
\t$(CC) -o $@ $(OBJS)
build/%.o: %.c
\t@mkdir -p $(dir $@)
\t$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
-include $(OBJS:.o=.d)
""")
    sources = sorted(os.path.basename(p) for p in glob.glob(os.path.join(root, "src", "*.c")))
    with open(os.path.join(root, "build.ninja"), "w") as f:
        f.write("cflags = -O2 -Iinclude\nrule cc\n  command = cc $cflags -MMD -MF $out.d -c $in -o $out\n"
                "  depfile = $out.d\n  deps = gcc\nrule link\n  command = cc -o $out $in\n")
        for s in sources:
            f.write(f"build build/src/{s[:-2]}.o: cc src/{s}\n")
        objs = " ".join(f"build/src/{s[:-2]}.o" for s in sources)
        f.write(f"build build/app: link {objs}\ndefault build/app\n")
    with open(os.path.join(root, "Tasksfile.yaml"), "w") as f:
        f.write("""default: link
env:
  CFLAGS: -O2 -Iinclude
tasks:
  compile:
    each: { SRC: "src/*.c" }
    run: cc $CFLAGS -MMD -MF "build/${SRC%.c}.d" -c "$SRC" -o "build/${SRC%.c}.o"
    sources: ["${SRC}"]
    outputs: ["build/${SRC%.c}.o"]
    depfile: build/${SRC%.c}.d
  link:
    deps: [compile]
    run: cc -o build/app build/src/*.o
    outputs: [build/app]
""")


def edit_header(root, header, n):
    """A real edit: the seed the including files compile into their code changes."""
    macro = header.replace(".h", "").upper() + "_SEED"
    with open(os.path.join(root, "include", header), "w") as f:
        f.write(f"#pragma once\n#define {macro} {n + 2}ULL\n")


# ---------------------------------------------------------------- Lua 5.4 from Debian

LUA_TASKSFILE = """# Lua 5.4 with opsrun: what its src/Makefile's `linux` target builds, with the same flags.
default: all
env:
  CC: gcc -std=gnu99
  CFLAGS: -O2 -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
  CORE_O: lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o lobject.o lopcodes.o lparser.o lstate.o lstring.o ltable.o ltm.o lundump.o lvm.o lzio.o
  LIB_O: lauxlib.o lbaselib.o lcorolib.o ldblib.o liolib.o lmathlib.o loadlib.o loslib.o lstrlib.o ltablib.o lutf8lib.o linit.o
tasks:
  compile:
    dir: src
    each: { SRC: "*.c" }                  # relative to the task's dir
    run: $CC $CFLAGS -MMD -MF "${SRC%.c}.d" -c "$SRC" -o "${SRC%.c}.o"
    sources: ["${SRC}"]
    outputs: ["${SRC%.c}.o"]
    depfile: ${SRC%.c}.d
  liblua:
    dir: src
    deps: [compile]
    run:
      - ar rcu liblua.a $CORE_O $LIB_O
      - ranlib liblua.a
    outputs: [liblua.a]
  lua:
    dir: src
    deps: [liblua]
    run: $CC -o lua lua.o liblua.a -lm -Wl,-E -ldl
    outputs: [lua]
  luac:
    dir: src
    deps: [liblua]
    run: $CC -o luac luac.o liblua.a -lm -Wl,-E -ldl
    outputs: [luac]
  all:
    deps: [lua, luac]
"""


def fetch_lua():
    """Lua 5.4's source from Debian, once; returns the tarball's path or None with a note."""
    found = glob.glob(os.path.join(SOURCES, "lua5.4_*.orig.tar.gz"))
    if found:
        return found[0]
    os.makedirs(os.path.join(SOURCES, "lists", "partial"), exist_ok=True)
    listing = os.path.join(SOURCES, "sources.list")
    with open(listing, "w") as f:
        f.write("deb-src http://deb.debian.org/debian bookworm main\n")
    options = ["-o", f"Dir::Etc::SourceList={listing}", "-o", "Dir::Etc::SourceParts=/dev/null",
               "-o", f"Dir::State::Lists={os.path.join(SOURCES, 'lists')}"]
    for argv in (["apt-get"] + options + ["update", "-qq"],
                 ["apt-get"] + options + ["source", "--download-only", "lua5.4"]):
        if subprocess.run(argv, cwd=SOURCES, capture_output=True).returncode != 0:
            print(f"!! lua is left out: `{' '.join(argv)}` failed (no network or no apt?)")
            return None
    found = glob.glob(os.path.join(SOURCES, "lua5.4_*.orig.tar.gz"))
    return found[0] if found else None


def lua_copies(names, base="lua"):
    """A fresh copy of Lua's tree per tool, with the opsrun Tasksfile; None when unavailable."""
    tarball = fetch_lua()
    if not tarball:
        return None
    roots = {}
    for name in names:
        root = os.path.join(WORK, base, name)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        with tarfile.open(tarball) as t:
            t.extractall(root, filter="data")
        (top,) = [d for d in os.listdir(root) if d.startswith("lua")]
        roots[name] = os.path.join(root, top)
        with open(os.path.join(roots[name], "Tasksfile.yaml"), "w") as f:
            f.write(LUA_TASKSFILE)
    return roots


# ---------------------------------------------------------------- running

def build_argv(tool, path, workload):
    # BASELINE is a second opsrun binary, run as opsrun is.
    tool = "opsrun" if tool == BASELINE else tool
    if workload == "lua":
        return {"make": [path, "-j", "2", "-C", "src", "linux"],
                "opsrun": [path, "-j", "2", "all"]}[tool]
    return {"make": [path, "-j", "2"], "ninja": [path, "-j", "2"], "opsrun": [path, "-j", "2"]}[tool]


def settle(argv, root):
    # opsrun re-reads a file written in the last 2 s (its racy window, as ninja's and make's mtime
    # granularity): wait it out, then run once untimed, so the timed no-op is the usual one.
    time.sleep(2.5)
    timed(argv, root)


def timed_noop(argv, root):
    """A no-op's time: the median of 5 runs in a row. A single run straight after `settle`'s
    sleep measured this virtual machine as much as the tool: memory freed during two idle
    seconds is handed back to the host (free page reporting) and the next run that asks for it
    waits for the host to map it again, which costs a tool in proportion to the memory it
    touches (c300: opsrun 6.0 ms alone after the sleep, 4.3 ms in a row; ninja 3.1 and 2.7)."""
    return statistics.median(timed(argv, root) for _ in range(5))


def rotate(tools, r):
    return tools[r % len(tools):] + tools[:r % len(tools)]


def run_c300(paths, rounds, quick):
    files = 60 if quick else 300
    modules = [(f"m{i:03d}", f"h{i % 30:02d}.h", 12) for i in range(files)]
    tools = [t for t in TOOLS if paths.get(t)]
    roots = {}
    for t in tools:
        roots[t] = os.path.join(WORK, "c300", t)
        write_project(roots[t], modules)
    times = {t: {"clean": [], "header": [], "noop": []} for t in tools}
    compiled = {t: [] for t in tools}
    for r in range(rounds + 1):
        for t in rotate(tools, r):
            root, argv = roots[t], build_argv(t, paths[t], "c300")
            shutil.rmtree(os.path.join(root, "build"), ignore_errors=True)
            clean = timed(argv, root)
            settle(argv, root)
            noop = timed_noop(argv, root)
            before = object_times(root)
            edit_header(root, "h07.h", r)
            header = timed(argv, root)
            compiled[t].append(objects_changed(root, before))
            if r > 0:  # the first round warms the page cache and records durations
                times[t]["clean"].append(clean)
                times[t]["noop"].append(noop)
                times[t]["header"].append(header)
            print(f"   round {r} {t:<7} clean {clean:.3f}  no-op {noop:.4f}  header edit {header:.3f}"
                  f" ({compiled[t][-1]} objects)", flush=True)
    return {"files": files, "times": times, "compiled": compiled}


def run_slowheader(paths, rounds, quick):
    # zstd's shape: most files quick, one long compile late in the name order, one header for all.
    # In name order the long one starts last and one core idles while it finishes; started first
    # (its last duration known), it overlaps the quick ones.
    quick_files = [(f"a{i:02d}", "shared.h", 12) for i in range(40)]
    slow = 150 if quick else 500
    modules = quick_files + [("z_slow", "shared.h", slow)]
    tools = [t for t in TOOLS if paths.get(t)]
    roots = {}
    for t in tools:
        roots[t] = os.path.join(WORK, "slowheader", t)
        write_project(roots[t], modules)
        timed(build_argv(t, paths[t], "slowheader"), roots[t])  # durations known from here on
    times = {t: [] for t in tools}
    for r in range(rounds):
        for t in rotate(tools, r):
            edit_header(roots[t], "shared.h", r)
            wall = timed(build_argv(t, paths[t], "slowheader"), roots[t])
            times[t].append(wall)
            print(f"   round {r} {t:<7} header edit {wall:.3f}", flush=True)
    return {"times": times}


def run_lua(paths, rounds):
    tools = [t for t in ("make", "opsrun") if paths.get(t)]
    roots = lua_copies(tools)
    if not roots:
        return None
    times = {t: {"noop": [], "edit": []} for t in tools}
    for t in tools:
        argv = build_argv(t, paths[t], "lua")
        timed(argv, roots[t])
        settle(argv, roots[t])
    for r in range(rounds):
        for t in rotate(tools, r):
            root, argv = roots[t], build_argv(t, paths[t], "lua")
            noop = timed_noop(argv, root)
            with open(os.path.join(root, "src", "lvm.c"), "a") as f:
                f.write(f"\nint luaV_benchmark_edit_{r}(void) {{ return {r}; }}\n")
            edit = timed(argv, root)
            settle(argv, root)
            times[t]["noop"].append(noop)
            times[t]["edit"].append(edit)
            print(f"   round {r} {t:<7} no-op {noop:.4f}  lvm.c edit {edit:.3f}", flush=True)
    return {"times": times}


def wipe(root, project):
    """Everything a build wrote, and what the tools recorded of earlier builds (opsrun's durations,
    ninja's log): the tree as a fresh checkout has it."""
    for name in (".opsrun", ".ninja_log", ".ninja_deps", "build"):
        path = os.path.join(root, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    if project == "lua":
        src = os.path.join(root, "src")
        for name in os.listdir(src):
            if name.endswith((".o", ".d", ".a")) or name in ("lua", "luac"):
                os.remove(os.path.join(src, name))


def built(root, project, files):
    """None when the build left what it should; else what is missing."""
    if project == "lua":
        missing = [n for n in ("lua", "luac", "liblua.a") if not os.path.exists(os.path.join(root, "src", n))]
        return f"no {', '.join(missing)}" if missing else None
    objects = len(object_times(os.path.join(root, "build")))
    if objects != files:
        return f"{objects} of {files} objects"
    return None if os.path.exists(os.path.join(root, "build", "app")) else "no build/app"


def run_first_clean(paths, rounds, quick, which=("c300", "slowheader", "lua")):
    """A first clean build of each project, all tools interleaved, nothing recorded before it."""
    tools = [t for t in TOOLS + (BASELINE,) if paths.get(t)]
    projects = {}  # name: (tools, {tool: root}, number of objects)
    c300 = [(f"m{i:03d}", f"h{i % 30:02d}.h", 12) for i in range(60 if quick else 300)]
    slow = [(f"a{i:02d}", "shared.h", 12) for i in range(40)] + [("z_slow", "shared.h", 150 if quick else 500)]
    for name, modules in (("c300", c300), ("slowheader", slow)):
        if name not in which:
            continue
        roots = {}
        for t in tools:
            roots[t] = os.path.join(WORK, "first-clean", name, t)
            write_project(roots[t], modules)
        projects[name] = (tools, roots, len(modules) + 1)  # and main.c
    lua_tools = [t for t in tools if t != "ninja"]
    lua = lua_copies(lua_tools, base=os.path.join("first-clean", "lua")) if "lua" in which else None
    if lua:
        projects["lua"] = (lua_tools, lua, None)
    times = {name: {t: [] for t in project_tools} for name, (project_tools, _, _) in projects.items()}
    loads = {name: [] for name in projects}
    for r in range(rounds + 1):
        for name, (project_tools, roots, files) in projects.items():
            load = os.getloadavg()[0]
            line = []
            for t in rotate(project_tools, r):
                wipe(roots[t], name)
                argv = build_argv(t, paths[t], "lua" if name == "lua" else name)
                if t.startswith("opsrun"):
                    # A first build has no cache to restore from either.
                    argv = argv[:1] + ["--no-cache"] + argv[1:]
                wall = timed(argv, roots[t])
                wrong = built(roots[t], name, files)
                if wrong:
                    sys.exit(f"!! {t} did not build {name}: {wrong}")
                line.append(f"{t} {wall:.3f}")
                if r > 0:  # the first round warms the page cache
                    times[name][t].append(wall)
            if r > 0:
                loads[name].append(load)
            print(f"   round {r} {name:<10} (load {load:.2f}) " + "  ".join(line), flush=True)
    return {"times": times, "loads": loads}


def run_each100k(paths, rounds, quick):
    n = 10_000 if quick else 100_000
    root = os.path.join(WORK, "each100k")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    with open(os.path.join(root, "Tasksfile.yaml"), "w") as f:
        f.write("tasks:\n  work:\n    each:\n      N:\n")
        f.writelines(f'        - "v{i}"\n' for i in range(n))
        f.write('    run: echo "$N"\n')
    argv = [paths["opsrun"], "-n", "work"]
    cold, warm = [], []
    for r in range(rounds + 1):
        shutil.rmtree(os.path.join(root, ".opsrun"), ignore_errors=True)
        c = timed(argv, root)  # no manifest cache: the first run after an edit
        w = timed(argv, root)  # the manifest cache from the run before
        if r > 0:
            cold.append(c)
            warm.append(w)
        print(f"   round {r} opsrun -n  cold {c:.3f}  warm {w:.3f}", flush=True)
    return {"n": n, "cold": cold, "warm": warm}


# ---------------------------------------------------------------- reporting

def median(values):
    return statistics.median(values) if values else float("nan")


def verdict(ok):
    return "PASS" if ok else "FAIL"


def report(results, quick):
    lines = []
    load = os.getloadavg()
    c = results.get("c300")
    if c:
        t = c["times"]
        lines.append(f"c300 ({c['files']} files, -j 2), median s: " + "  ".join(
            f"{tool}: clean {median(v['clean']):.3f} header {median(v['header']):.3f} no-op {median(v['noop']):.4f}"
            for tool, v in t.items()))
        if "opsrun" in t:
            others = [x for x in ("make", "ninja") if x in t]
            if others:
                best = min(median(t[x]["clean"]) for x in others)
                ratio = median(t["opsrun"]["clean"]) / best
                lines.append(f"  clean build: opsrun / best of {'+'.join(others)} = {ratio:.2f}  (target <= 1.0: {verdict(ratio <= 1.0)})")
            if "ninja" in t:
                h = median(t["opsrun"]["header"]) / median(t["ninja"]["header"])
                n = median(t["opsrun"]["noop"]) / median(t["ninja"]["noop"])
                lines.append(f"  header edit: opsrun / ninja = {h:.2f}  (target <= 1.0: {verdict(h <= 1.0)})")
                lines.append(f"  no-op:       opsrun / ninja = {n:.2f}  (target <= 1.0: {verdict(n <= 1.0)})")
            if "make" in t:
                lines.append(f"  (opsrun / make: clean {median(t['opsrun']['clean']) / median(t['make']['clean']):.2f},"
                             f" header {median(t['opsrun']['header']) / median(t['make']['header']):.2f},"
                             f" no-op {median(t['opsrun']['noop']) / median(t['make']['noop']):.2f})")
        counts = {tool: sorted(set(v)) for tool, v in c["compiled"].items()}
        per_header = c["files"] // 30
        exact = all(v == [per_header] for v in counts.values())
        lines.append(f"  objects rewritten by the header edit: {counts}  (exactly {per_header}: {verdict(exact)})")
    sh = results.get("slowheader")
    if sh:
        t = sh["times"]
        lines.append("slowheader (header edit, one slow file last in order), median s: " +
                     "  ".join(f"{tool} {median(v):.3f}" for tool, v in t.items()))
        if "opsrun" in t and "make" in t:
            ratio = median(t["opsrun"]) / median(t["make"])
            lines.append(f"  opsrun / make = {ratio:.2f}  (target <= 1.0: {verdict(ratio <= 1.0)})"
                         + (f"; opsrun / ninja = {median(t['opsrun']) / median(t['ninja']):.2f}" if "ninja" in t else ""))
    lua = results.get("lua")
    if lua:
        t = lua["times"]
        lines.append("lua 5.4 (-j 2), median s: " + "  ".join(
            f"{tool}: no-op {median(v['noop']):.4f} lvm.c edit {median(v['edit']):.3f}" for tool, v in t.items()))
        if "opsrun" in t and "make" in t:
            n = median(t["opsrun"]["noop"]) / median(t["make"]["noop"])
            e = median(t["opsrun"]["edit"]) / median(t["make"]["edit"])
            lines.append(f"  no-op: opsrun / make = {n:.2f} (target <= 1.0: {verdict(n <= 1.0)});"
                         f" one-file edit: opsrun / make = {e:.2f} (target <= 1.0: {verdict(e <= 1.0)})")
    fc = results.get("first-clean")
    if fc:
        for name, t in fc["times"].items():
            ld = fc["loads"][name]
            spread = "  ".join(f"{tool} {median(v):.3f} (min {min(v):.3f}, max {max(v):.3f})" for tool, v in t.items())
            lines.append(f"first clean build, {name} ({len(next(iter(t.values())))} rounds, load {min(ld):.2f}-{max(ld):.2f}),"
                         f" median s: {spread}")
            if "make" in t:
                for tool in (x for x in t if x.startswith("opsrun")):
                    ratio = median(t[tool]) / median(t["make"])
                    lines.append(f"  {tool} / make = {ratio:.2f}  (target <= 1.0: {verdict(ratio <= 1.0)})")
    e = results.get("each100k")
    if e:
        ok = median(e["cold"]) < 1.0
        lines.append(f"each100k (opsrun -n over {e['n']} instances): cold {median(e['cold']):.3f} s,"
                     f" warm {median(e['warm']):.3f} s  (target < 1 s cold: {verdict(ok)})")
    lines.append(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
                 + ("  (quick mode: smaller projects, indicative only)" if quick else ""))
    return lines


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--opsrun", default=os.environ.get("OPSRUN"), help="the opsrun binary (release build)")
    p.add_argument("--workloads", default="c300,slowheader,lua,each100k,first-clean")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--baseline", help="a second opsrun binary for first-clean (before a change)")
    p.add_argument("--first-clean", default="c300,slowheader,lua", help="the projects first-clean builds")
    p.add_argument("--quick", action="store_true", help="smaller projects: a smoke test")
    a = p.parse_args(argv)
    if not a.opsrun:
        sys.exit("name the opsrun binary: --opsrun PATH or OPSRUN=PATH (run-projects.sh builds one)")
    os.makedirs(WORK, exist_ok=True)
    # Run a copy, as installed: see bench.py's installed_copy.
    os.makedirs(os.path.join(WORK, "bin"), exist_ok=True)
    installed = os.path.join(WORK, "bin", "opsrun")
    shutil.copy2(a.opsrun, installed)
    paths = {t: tool_path(t, installed) for t in TOOLS}
    if a.baseline:
        baseline = os.path.join(WORK, "bin", "opsrun-baseline")
        shutil.copy2(a.baseline, baseline)
        paths[BASELINE] = baseline
    for t, path in paths.items():
        if not path:
            print(f"!! {t} is left out: not found")
    results = {}
    for name in a.workloads.split(","):
        print(f"== {name} (load average {os.getloadavg()[0]:.2f})", flush=True)
        if name == "c300":
            results[name] = run_c300(paths, a.rounds, a.quick)
        elif name == "slowheader":
            results[name] = run_slowheader(paths, a.rounds, a.quick)
        elif name == "lua":
            results[name] = run_lua(paths, a.rounds)
        elif name == "each100k":
            results[name] = run_each100k(paths, a.rounds, a.quick)
        elif name == "first-clean":
            results[name] = run_first_clean(paths, a.rounds, a.quick, a.first_clean.split(","))
        else:
            sys.exit(f"unknown workload '{name}'")
    lines = report(results, a.quick)
    print("\n" + "\n".join(lines))
    with open(os.path.join(WORK, "projects.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
