#!/usr/bin/env bash
# The allowlist change that must feel instant: `pepper allowlist add example.com`, whole
# command, over a state with EasyList and EasyPrivacy (112,349 WebKit rules) compiled, timed by
# hyperfine (the entry is removed again before each run).
#
#   bench/allowlist.sh [RUNS (default 20)]
#
# PEPPER_BIN: the pepper to time (default .build/release/pepper), e.g. a build of an older
# commit to compare in the same run. Needs: hyperfine. The lists: ../shared/data/filters when
# it is there, else the copies vendored in Tests/Fixtures/filters (the same lists).
#
# PEPPER_BASELINE: a second pepper (an older build) to compare with. Then each binary gets its
# own home and their runs alternate (one of each, RUNS times, after two warm-ups each), so that
# a slow minute of the machine weighs on both alike: blocks of runs one after the other (as
# hyperfine times two commands) differed by 8 ms in the mean between two sittings of the same
# builds. Prints wall time (mean ± σ, median, fastest) and CPU time (user + system) of each,
# and the ratio of the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
pepper=${PEPPER_BIN:-.build/release/pepper}
baseline=${PEPPER_BASELINE:-}
filters=../shared/data/filters
[ -f "$filters/easylist.txt" ] || filters=Tests/Fixtures/filters
[ -f "$pepper" ] && [ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }
[ -z "$baseline" ] || { [ -f "$baseline" ] && [ -x "$baseline" ]; } || { echo "error: PEPPER_BASELINE=$baseline is not an executable" >&2; exit 1; }
[ -n "$baseline" ] || command -v hyperfine >/dev/null || {
    echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2
    exit 1
}
[ -f "$filters/easylist.txt" ] || { echo "error: $filters/easylist.txt missing" >&2; exit 1; }
work=$(mktemp -d /tmp/pepper-allowlist-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A home with both lists compiled, for `$1`, in `$2`.
prepare() {
    mkdir -p "$2"
    # The built-in lists would be downloaded: the same lists from the local copies instead.
    PEPPER_HOME=$2 "$1" lists disable easylist --no-compile >/dev/null
    PEPPER_HOME=$2 "$1" lists disable easyprivacy --no-compile >/dev/null
    PEPPER_HOME=$2 "$1" lists add "$filters/easylist.txt" --name el --no-compile >/dev/null
    PEPPER_HOME=$2 "$1" lists add "$filters/easyprivacy.txt" --name ep >/dev/null
    echo "$1: $(PEPPER_HOME=$2 "$1" lists | grep -c enabled) lists enabled"
}

if [ -z "$baseline" ]; then
    prepare "$pepper" "$work/home"
    export PEPPER_HOME=$work/home
    hyperfine --style basic --runs "$runs" --warmup 2 \
        --prepare "'$pepper' allowlist remove example.com >/dev/null 2>&1 || true" \
        "'$pepper' allowlist add example.com"
    exit 0
fi

prepare "$baseline" "$work/baseline"
prepare "$pepper" "$work/pepper"
python3 - "$runs" "$baseline" "$work/baseline" "$pepper" "$work/pepper" <<'PY'
import os, statistics, subprocess, sys, time

runs = int(sys.argv[1])
builds = [("baseline", sys.argv[2], sys.argv[3]), ("pepper", sys.argv[4], sys.argv[5])]
times = {label: [] for label, _, _ in builds}
for index in range(runs + 2):
    for label, binary, home in builds:
        env = dict(os.environ, PEPPER_HOME=home)
        quiet = dict(env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([binary, "allowlist", "remove", "example.com"], **quiet)
        start = time.perf_counter()
        child = subprocess.Popen([binary, "allowlist", "add", "example.com"], **quiet)
        _, status, usage = os.wait4(child.pid, 0)
        wall = (time.perf_counter() - start) * 1000
        if status != 0:
            sys.exit(f"error: {binary} allowlist add example.com failed (status {status})")
        if index >= 2:  # two warm-ups each
            times[label].append((wall, (usage.ru_utime + usage.ru_stime) * 1000))
medians = {}
for label, binary, _ in builds:
    wall = [w for w, _ in times[label]]
    cpu = [c for _, c in times[label]]
    medians[label] = statistics.median(wall)
    print(f"{label:8s} {binary}")
    print(f"         wall {statistics.mean(wall):6.1f} ± {statistics.stdev(wall):4.1f} ms, median {medians[label]:6.1f} ms, "
          f"fastest {min(wall):6.1f} ms; CPU median {statistics.median(cpu):6.1f} ms ({runs} runs, alternating)")
print(f"median ratio pepper / baseline: {medians['pepper'] / medians['baseline']:.3f}")
PY
