# The integration tests: every page is served, with the content it was built with. Each result
# goes to the output and to build/integration.log, which the task's cleanup collects.
import sys, urllib.request

port = open("build/port").read().strip()
failures = 0
with open("build/integration.log", "w") as log:
    for page, expected in [("index.html", "Hello from opsrun"), ("about.html", "http.server")]:
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/{page}", timeout=5).read().decode()
        line = f"{'ok' if expected in body else 'FAIL'} {page}"
        failures += expected not in body
        print(line, flush=True)
        print(line, file=log)
sys.exit(1 if failures else 0)
