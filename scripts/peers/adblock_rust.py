#!/usr/bin/env python3
"""Runs Brave's adblock-rust (PyPI `adblock`) on a requests file, as a peer for Pepper's engine.

    adblock_rust.py --lists A.txt B.txt --requests REQUESTS.json [--verdicts OUT.txt] [--runs N]

Prints timing figures as `key=value` on stderr; with --verdicts, writes one line per request:
BLOCKED, ALLOWED or NOMATCH, a tab, and the deciding filter (the `pepper check --requests`
format). Install the peer in a venv: python3 -m venv V && V/bin/pip install adblock==0.6.0
"""

import argparse
import json
import os
import statistics
import sys
import time

import adblock


def rss_kb():
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lists", nargs="+", required=True)
    parser.add_argument("--requests", nargs="+", required=True)
    parser.add_argument("--verdicts")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    text = "\n".join(open(path, encoding="utf-8").read() for path in args.lists)
    before = rss_kb()
    start = time.perf_counter()
    filter_set = adblock.FilterSet()
    filter_set.add_filter_list(text)
    engine = adblock.Engine(filter_set, optimize=True)
    build = time.perf_counter() - start
    engine_kb = rss_kb() - before

    requests = []
    for path in args.requests:
        with open(path) as handle:
            requests += json.load(handle)

    per_request = []
    for run in range(args.runs):
        for request in requests:
            started = time.perf_counter_ns()
            engine.check_network_urls(request["url"], request["frameUrl"], request["cpt"])
            per_request.append(time.perf_counter_ns() - started)

    # Verdicts with the deciding filters' text: a debug engine without the optimizer (which
    # merges filters and forgets their text), judged once.
    lines = []
    if args.verdicts:
        debug_set = adblock.FilterSet(debug=True)
        debug_set.add_filter_list(text)
        explaining = adblock.Engine(debug_set, optimize=False)
        for request in requests:
            result = explaining.check_network_urls(request["url"], request["frameUrl"], request["cpt"])
            if result.matched and not result.exception:
                lines.append("BLOCKED\t%s" % (result.filter or ""))
            elif result.exception:
                lines.append("ALLOWED\t%s" % (result.exception or ""))
            else:
                lines.append("NOMATCH")
    if args.verdicts:
        with open(args.verdicts, "w") as handle:
            handle.write("\n".join(lines) + "\n")
    per_request.sort()
    median = per_request[len(per_request) // 2] / 1000
    p99 = per_request[int(len(per_request) * 0.99)] / 1000
    total = sum(per_request) / 1e9
    sys.stderr.write(
        "build_seconds=%.4f median_us=%.2f p99_us=%.2f requests_per_second=%.0f engine_memory_kb=%d requests=%d\n"
        % (build, median, p99, len(per_request) / total, engine_kb, len(requests))
    )


if __name__ == "__main__":
    main()
