#!/usr/bin/env python3
"""Write the generated-modules project (issue 30): N tiny C-like modules, a fake compiler, one link.

Every module src/mNNNNN.c includes "common.h" (all of them) and one group header hNNNN.h, each
group header included by exactly 10 modules spread over the whole order (module i includes
h(i mod N/10)), so editing one group header recompiles exactly 10 modules and the link.
The compiler is `fakecc` (fakecc.c): it reads the source and its includes, writes the object
(a hash of what it read) and a gcc-style depfile `obj/src/mNNNNN.o: src/mNNNNN.c include/...`;
the link (`fakecc ld app obj/src`) counts the objects. The same project for each tool:

  make    a pattern rule and `-include` of the .d files (c300's Makefile, without -MP)
  ninja   `deps = gcc` with `depfile`
  opsrun  an `each` compile task with `depfile`, and a link task over the objects (`deps`)

Sources and headers are dated an hour back, so no tool sees one as just modified.

Usage: modules.py --n 10000 --out DIR --fakecc PATH [--tools make,ninja,opsrun]
"""

import argparse
import os
import sys
import time

TOOLS = ("make", "ninja", "opsrun")
# Modules per group header: a header edit recompiles exactly this many.
GROUP = 10


def digits(n):
    return max(5, len(str(n - 1)))


def module_name(i, n):
    return f"m{i:0{digits(n)}d}"


def header_count(n):
    return max(1, n // GROUP)


def header_name(h, n):
    return f"h{h:0{max(4, len(str(header_count(n) - 1)))}d}.h"


def header_of(i, n):
    """The group header module i includes."""
    return header_name(i % header_count(n), n)


def includers(header_index, n):
    """The modules that include group header `header_index` (exactly GROUP when GROUP divides n)."""
    return [i for i in range(header_index, n, header_count(n))]


def header_text(h, n, version=0):
    return f"#pragma once\n#define {header_name(h, n)[:-2].upper()}_VERSION {version}\n"


def write_sources(root, n):
    src, include = os.path.join(root, "src"), os.path.join(root, "include")
    os.makedirs(src, exist_ok=True)
    os.makedirs(include, exist_ok=True)
    past = time.time() - 3600
    paths = []
    with open(os.path.join(include, "common.h"), "w") as f:
        f.write("#pragma once\ntypedef int module_value;\n")
    paths.append(os.path.join(include, "common.h"))
    for h in range(header_count(n)):
        path = os.path.join(include, header_name(h, n))
        with open(path, "w") as f:
            f.write(header_text(h, n))
        paths.append(path)
    for i in range(n):
        name = module_name(i, n)
        path = os.path.join(src, name + ".c")
        with open(path, "w") as f:
            f.write(f'#include "common.h"\n#include "{header_of(i, n)}"\n'
                    f"module_value {name}(void) {{ return {i}; }}\n")
        paths.append(path)
    for path in paths:
        os.utime(path, (past, past))


def write_makefile(root, n, fakecc):
    # The objects' directory is an order-only prerequisite, made once, rather than a `mkdir -p`
    # in the recipe: a shell per compile would be make's cost, not make's own work. Without
    # shell syntax, make execs fakecc directly.
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write(f"""MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
FAKECC = {fakecc}
SRCS := $(sort $(wildcard src/*.c))
OBJS := $(SRCS:%.c=obj/%.o)
app: $(OBJS)
\t$(FAKECC) ld $@ obj/src
obj/%.o: %.c | obj/src
\t$(FAKECC) cc $< $@ $(@:.o=.d)
obj/src:
\tmkdir -p $@
-include $(OBJS:.o=.d)
""")


def write_ninja(root, n, fakecc):
    names = [module_name(i, n) for i in range(n)]
    with open(os.path.join(root, "build.ninja"), "w") as f:
        f.write(f"fakecc = {fakecc}\n"
                "rule cc\n  command = $fakecc cc $in $out $out.d\n  depfile = $out.d\n  deps = gcc\n"
                "rule link\n  command = $fakecc ld $out obj/src\n")
        for name in names:
            f.write(f"build obj/src/{name}.o: cc src/{name}.c\n")
        f.write("build app: link " + " ".join(f"obj/src/{name}.o" for name in names) + "\ndefault app\n")


def write_tasksfile(root, n, fakecc):
    with open(os.path.join(root, "Tasksfile.yaml"), "w") as f:
        f.write(f"""default: link
env:
  FAKECC: {fakecc}
tasks:
  compile:
    each: {{ SRC: "src/*.c" }}
    run: $FAKECC cc "$SRC" "obj/${{SRC%.c}}.o" "obj/${{SRC%.c}}.d"
    sources: ["${{SRC}}"]
    outputs: ["obj/${{SRC%.c}}.o"]
    depfile: obj/${{SRC%.c}}.d
  link:
    deps: [compile]
    run: $FAKECC ld app obj/src
    outputs: [app]
""")


WRITERS = {"make": write_makefile, "ninja": write_ninja, "opsrun": write_tasksfile}


def generate(root, n, fakecc, tools=TOOLS):
    """Writes the project into `root` with the build files of `tools`."""
    if n < GROUP:
        raise SystemExit(f"modules.py: --n must be at least {GROUP}")
    write_sources(root, n)
    for tool in tools:
        WRITERS[tool](root, n, fakecc)


def edit_header(root, n, header_index, version):
    """A real edit: new content, so the including modules' objects change too."""
    with open(os.path.join(root, "include", header_name(header_index, n)), "w") as f:
        f.write(header_text(header_index, n, version))


def object_path(root, i, n):
    return os.path.join(root, "obj", "src", module_name(i, n) + ".o")


def object_times(root):
    """{object or app: mtime_ns} of everything the build writes that a no-op must leave alone."""
    times = {}
    directory = os.path.join(root, "obj", "src")
    if os.path.isdir(directory):
        for e in os.scandir(directory):
            if e.name.endswith(".o"):
                times[e.name] = e.stat().st_mtime_ns
    app = os.path.join(root, "app")
    if os.path.exists(app):
        times["app"] = os.stat(app).st_mtime_ns
    return times


def check_built(root, n):
    """None when every object is there and the link counted them all; else what is wrong."""
    objects = sum(1 for e in os.scandir(os.path.join(root, "obj", "src")) if e.name.endswith(".o")) \
        if os.path.isdir(os.path.join(root, "obj", "src")) else 0
    if objects != n:
        return f"{objects} of {n} objects"
    try:
        with open(os.path.join(root, "app")) as f:
            linked = f.read().strip()
    except OSError:
        return "no app (the link did not run)"
    if linked != f"linked {n} objects":
        return f"app says '{linked}', not 'linked {n} objects'"
    return None


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, required=True, help="number of modules (at least 10)")
    p.add_argument("--out", required=True, help="directory to write into")
    p.add_argument("--fakecc", required=True, help="path of the compiled fakecc.c")
    p.add_argument("--tools", default=",".join(TOOLS), help="which build files to write")
    a = p.parse_args(argv)
    tools = [t for t in a.tools.split(",") if t]
    unknown = set(tools) - set(TOOLS)
    if unknown:
        p.error(f"unknown tools: {', '.join(sorted(unknown))}")
    generate(a.out, a.n, os.path.abspath(a.fakecc), tools)
    print(f"{a.out}: {a.n} modules, {header_count(a.n)} group headers, build files for {', '.join(tools)}")


if __name__ == "__main__":
    main(sys.argv[1:])
