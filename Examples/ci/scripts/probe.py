# Succeeds once the server answers: opsrun retries it until then.
import urllib.request

port = open("build/port").read().strip()
urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
