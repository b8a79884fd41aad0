#!/usr/bin/python3
"""What each rule family of a compiled request list costs WebKitGTK's content-rule compiler,
and what the plain `||domain^` rules would cost in other spellings. A benchmark: it prints
figures, it asserts nothing.

  scripts/bench-webkit-families.py [--runs N] OUT_DIR

OUT_DIR is a compiled output (`$PEPPER_HOME/out`, e.g. after `pepper compile` of EasyList +
EasyPrivacy). Its first list is split by family (plain domain blocks, other host-anchored
rules, unanchored rules, the rest) and each family is compiled alone; then the domain rules
are compiled in each spelling below, alone. Spellings marked "not equivalent" match other
URLs than the rule means and are there only to show where the time goes. Needs python3-gi and
WebKitGTK 4.1 (Tests/PepperCLITests/WebKit/webkit_judge.py does the compiling).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
JUDGE = os.path.join(HERE, "..", "Tests", "PepperCLITests", "WebKit", "webkit_judge.py")
DOMAIN_PREFIX = "^[^:]+://+([^/:]*\\.)?"
DOMAIN_SUFFIX = "[/:]"

# Each spelling: (name, what it is, list of url-filters for the hosts), all case-sensitive.
SPELLINGS = [
    ("current", "^[^:]+://+([^/:]*\\.)?HOST[/:] (Pepper's)", lambda h: [DOMAIN_PREFIX + h + DOMAIN_SUFFIX]),
    ("one-slash", "^[^:]+://([^/:]*\\.)?HOST[/:] (no `+` after //)", lambda h: ["^[^:]+://([^/:]*\\.)?" + h + "[/:]"]),
    ("letters-scheme", "^[a-z]+://([^/:]*\\.)?HOST[/:]", lambda h: ["^[a-z]+://([^/:]*\\.)?" + h + "[/:]"]),
    ("host-chars", "^[^:]+://([a-z0-9.-]*\\.)?HOST[/:]", lambda h: ["^[^:]+://([a-z0-9.-]*\\.)?" + h + "[/:]"]),
    ("labels", "^[^:]+://([^/:.]+\\.)*HOST[/:] (subdomain as labels)", lambda h: ["^[^:]+://([^/:.]+\\.)*" + h + "[/:]"]),
    ("slash-end", "^[^:]+://([^/:]*\\.)?HOST/ (not equivalent: no port)", lambda h: ["^[^:]+://([^/:]*\\.)?" + h + "/"]),
    ("exact-only", "^[^:]+://HOST[/:] (not equivalent: no subdomains)", lambda h: ["^[^:]+://" + h + "[/:]"]),
]


def compile_seconds(paths):
    run = subprocess.run(["/usr/bin/python3", JUDGE, "compile", *paths], capture_output=True, text=True, check=True)
    results = json.loads(run.stdout)
    errors = [r.get("error") for r in results if r.get("error")]
    if errors:
        raise SystemExit(f"WebKit refused {paths}: {errors}")
    return sum(r["seconds"] for r in results)


def write(directory, name, rules):
    path = os.path.join(directory, name + ".json")
    with open(path, "w") as handle:
        json.dump(rules, handle)
    return path


def family(rule):
    url_filter = rule["trigger"]["url-filter"]
    if url_filter.startswith(DOMAIN_PREFIX) and rule["action"]["type"] == "block":
        return "plain domain blocks"
    if url_filter.startswith("^[^:]*://+"):
        return "other host-anchored"
    if not url_filter.startswith("^") and url_filter != ".*":
        return "unanchored"
    return "the rest (.* page exceptions, scheme-anchored, allowlist)"


def main(argv):
    runs = 3
    if len(argv) >= 3 and argv[1] == "--runs":
        runs = int(argv[2])
        argv = [argv[0]] + argv[3:]
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 64
    out = argv[1]
    with open(os.path.join(out, "manifest.json")) as handle:
        manifest = json.load(handle)
    first = os.path.join(out, manifest["files"][0]["path"])
    with open(first) as handle:
        rules = json.load(handle)

    with tempfile.TemporaryDirectory() as work:
        print(f"{first}: {len(rules)} rules; median of {runs} WebKitGTK compiles each")
        print(f"  whole list: {statistics.median(compile_seconds([first]) for _ in range(runs)):.2f} s")
        families = {}
        for rule in rules:
            families.setdefault(family(rule), []).append(rule)
        for name, members in sorted(families.items(), key=lambda item: -len(item[1])):
            path = write(work, "family", members)
            print(f"  {name}: {len(members)} rules, {statistics.median(compile_seconds([path]) for _ in range(runs)):.2f} s")

        hosts = [
            r["trigger"]["url-filter"][len(DOMAIN_PREFIX) : -len(DOMAIN_SUFFIX)] for r in families.get("plain domain blocks", [])
        ]
        print(f"The {len(hosts)} plain domain blocks alone, by spelling:")
        orders = {"sorted": hosts, "by top-level domain": sorted(hosts, key=lambda h: h.split("\\.")[::-1])}
        for name, description, spell in SPELLINGS:
            filters = [f for host in hosts for f in spell(host)]
            path = write(
                work, name, [{"trigger": {"url-filter": f, "url-filter-is-case-sensitive": True}, "action": {"type": "block"}} for f in filters]
            )
            print(f"  {description}: {statistics.median(compile_seconds([path]) for _ in range(runs)):.2f} s")
        grouped = [
            {"trigger": {"url-filter": DOMAIN_PREFIX + h + DOMAIN_SUFFIX, "url-filter-is-case-sensitive": True}, "action": {"type": "block"}}
            for h in orders["by top-level domain"]
        ]
        path = write(work, "grouped", grouped)
        print(f"  current, grouped by top-level domain: {statistics.median(compile_seconds([path]) for _ in range(runs)):.2f} s")
        halves = [write(work, f"half-{i}", grouped[i * len(grouped) // 2 : (i + 1) * len(grouped) // 2]) for i in range(2)]
        print(f"  current, in two lists: {statistics.median(compile_seconds(halves) for _ in range(runs)):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
