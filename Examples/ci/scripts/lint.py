# Fails when a page has no <title>.
import pathlib, sys

bad = [p.name for p in sorted(pathlib.Path(sys.argv[1]).glob("*.html")) if "<title>" not in p.read_text()]
if bad:
    sys.exit("no <title> in " + ", ".join(bad))
print("all pages have a title")
