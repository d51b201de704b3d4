#!/usr/bin/env python3
"""The output cache (docs/manual/cache.md, issue 17), timed: the dag-copy workload run four ways, interleaved.

dag-copy is dag-touch with a real source and a distinct output per task (`cp src/NAME.txt
out/NAME`, `sources`/`outputs` declared), so every task is cacheable and no two outputs share a blob.
Each round, from a project with no outputs and no `.opsrun/`:

  off      opsrun -j 2 --no-cache            every task runs, nothing is stored
  cold     opsrun -j 2 (empty local cache)   every task runs and is stored
  warm     opsrun -j 2 (cache of `cold`)     every task is restored from the local cache
  nginx    opsrun -j 2 --remote-cache URL    every task is restored from nginx on loopback
           (empty local cache; the server was filled once before the rounds)

Targets (issue 17): warm <= 0.25 x off, nginx <= 0.5 x off, cold <= 1.1 x off.

    Benchmarks/cache.py [--opsrun PATH] [--n 2000] [--rounds 5]
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

NGINX_CONF = """daemon off;
master_process off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    client_max_body_size 0;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{port};
        root {prefix}/root;
        location / {{ dav_methods PUT; create_full_put_path on; }}
    }}
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(prefix):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    port = free_port()
    os.makedirs(os.path.join(prefix, "root"), exist_ok=True)
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(prefix=prefix, port=port))
    process = subprocess.Popen([nginx, "-p", prefix, "-c", conf, "-e", os.path.join(prefix, "error.log")])
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.01)
    process.kill()
    raise SystemExit("cache.py: nginx did not start")


def clean(project, *caches):
    for path in [os.path.join(project, "out"), os.path.join(project, ".opsrun"), *caches]:
        shutil.rmtree(path, ignore_errors=True)


def timed(argv, cwd, env, expect):
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.returncode != 0 or expect not in last or "warning" in result.stderr:
        raise SystemExit(f"cache.py: {' '.join(argv)}: exit {result.returncode}, {last!r}\n{result.stderr[-2000:]}")
    return elapsed


def file_creation_ms(directory, count=500):
    """What creating an empty file costs in a new directory under `directory`, in ms: every mode
    creates files (the tasks' `cp`, the cache's entries, the restored outputs), and on some disks
    that cost depends on where the directory lands (0.02 to 0.8 ms on one ext4 here)."""
    probe = tempfile.mkdtemp(prefix="probe-", dir=directory)
    try:
        start = time.perf_counter()
        for i in range(count):
            os.close(os.open(os.path.join(probe, str(i)), os.O_CREAT | os.O_WRONLY, 0o644))
        return (time.perf_counter() - start) * 1000 / count
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--opsrun", default=os.path.join(HERE, "..", ".build", "release", "opsrun"))
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--work", help="where the project and caches go (default: the system's temporary directory)")
    a = p.parse_args(argv)
    opsrun = os.path.abspath(a.opsrun)
    work = tempfile.mkdtemp(prefix="opsrun-cache-bench-", dir=a.work)
    project = os.path.join(work, "project")
    generate.generate("dag", a.n, "copy", project, sources=True, tools=("opsrun",))
    caches = {name: os.path.join(work, name) for name in ("cold", "fetched")}
    env = dict(os.environ)
    env.pop("OPSRUN_NO_CACHE", None)
    env.pop("OPSRUN_REMOTE_CACHE", None)
    nginx, url = start_nginx(os.path.join(work, "nginx"))
    try:
        base = [opsrun, "-j", "2", "sink"]
        modes = {
            # The sink is a group: it counts as one more success.
            "off": (base + ["--no-cache"], [], f"{a.n + 1} succeeded"),
            "cold": (base + ["--cache-dir", caches["cold"]], [caches["cold"]], f"{a.n + 1} succeeded"),
            "warm": (base + ["--cache-dir", caches["cold"]], [], f"{a.n} restored"),
            "nginx": (base + ["--cache-dir", caches["fetched"], "--remote-cache", url], [caches["fetched"]],
                      f"{a.n} restored"),
        }
        # Fill the server once.
        clean(project, caches["fetched"])
        timed(base + ["--cache-dir", caches["fetched"], "--remote-cache", url], project, env, f"{a.n + 1} succeeded")
        times = {mode: [] for mode in modes}
        order = list(modes)
        for round_ in range(a.rounds):
            # warm must follow cold (it restores what cold stored); the pairs rotate.
            pairs = [["off"], ["cold", "warm"], ["nginx"]]
            pairs = pairs[round_ % 3:] + pairs[:round_ % 3]
            line = []
            for mode in [m for pair in pairs for m in pair]:
                argv_, wipe, expect = modes[mode]
                clean(project, *wipe)
                seconds = timed(argv_, project, env, expect)
                times[mode].append(seconds)
                line.append(f"{mode} {seconds:.3f}s")
            print(f"round {round_ + 1}: " + ", ".join(line))
        med = {mode: statistics.median(times[mode]) for mode in order}
        print()
        print(f"dag-copy, {a.n} tasks, -j 2, median of {a.rounds} rounds, in {work} "
              f"(creating a file there: {file_creation_ms(work):.3f} ms):")
        print("| run | median | × off | target |")
        print("|---|---|---|---|")
        targets = {"off": None, "cold": 1.1, "warm": 0.25, "nginx": 0.5}
        for mode in order:
            ratio = med[mode] / med["off"]
            target = targets[mode]
            verdict = "—" if target is None else (f"≤ {target} ✓" if ratio <= target else f"≤ {target} ✗")
            print(f"| {mode} | {med[mode]:.3f} s | {ratio:.2f} | {verdict} |")
    finally:
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
