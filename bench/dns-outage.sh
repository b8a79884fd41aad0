#!/usr/bin/env bash
# Every upstream unreachable, then back: `pepper dns serve` (serve-stale, RFC 8767) beside
# dnsmasq --use-stale-cache, in the same run, under the same dnsperf load.
#
#   bench/dns-outage.sh [OUTAGE_SECONDS (default 15)] [QPS (default 2000)]
#
# Both forward to a third dnsmasq (the stub upstream) whose answers live 2 s, and cache. For
# each server in turn: the cache is warmed with 1,000 names, the stub is stopped, and dnsperf
# sends for OUTAGE_SECONDS at QPS a mix of those cached names (now expired: stale answers),
# names never asked (no answer to give: SERVFAIL or nothing) and blocked names (answered
# locally); then the stub is started again and the script measures how long until a new name
# resolves and a cached name is fresh again (its TTL the stub's, not the stale 30 s).
# Printed per server: answers by response code, queries lost (no answer within dnsperf's 5 s),
# latency p50/p99 over all answered queries and per kind, and the recovery times.
#
# Needs: a release build (swift build -c release --product pepper), dnsperf, dnsmasq, dig, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

outage=${1:-15}
qps=${2:-2000}
pepper=${PEPPER_BIN:-.build/release/pepper}
work=$(mktemp -d /tmp/pepper-dns-outage.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for tool in dnsperf dnsmasq dig python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is not installed" >&2; exit 1; }
done
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }

upstream_port=25363
dnsmasq_port=25364
pepper_port=25365

python3 - "$work" <<'PY'
import os, random, sys
work = sys.argv[1]
random.seed(7)
with open(os.path.join(work, "blocked.txt"), "w") as f:
    f.writelines(f"ads{i}.blocked.test\n" for i in range(1000))
with open(os.path.join(work, "dnsmasq-blocked.conf"), "w") as f:
    f.writelines(f"address=/ads{i}.blocked.test/\n" for i in range(1000))
with open(os.path.join(work, "q-warm.txt"), "w") as f:
    f.writelines(f"host{i}.fwd.test A\n" for i in range(1000))
# During the outage: 80 % cached names, 10 % never asked, 10 % blocked.
with open(os.path.join(work, "q-outage.txt"), "w") as f:
    for i in range(200000):
        r = random.random()
        if r < 0.8:
            f.write(f"host{random.randrange(1000)}.fwd.test A\n")
        elif r < 0.9:
            f.write(f"new{i}.fwd.test A\n")
        else:
            f.write(f"ads{random.randrange(1000)}.blocked.test A\n")
PY

start_stub() {
    dnsmasq --no-daemon --port=$upstream_port --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts \
        --cache-size=0 --local-ttl=2 --address=/fwd.test/192.0.2.1 --dns-forward-max=10000 >"$work/upstream.log" 2>&1 &
    stub=$!
    pids+=($stub)
    for _ in $(seq 100); do
        dig @127.0.0.1 -p $upstream_port ready.fwd.test +tries=1 +time=1 +short >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "error: the stub upstream did not start" >&2
    exit 1
}

wait_answer() {
    local port=$1
    for _ in $(seq 600); do
        dig @127.0.0.1 -p "$port" ready.fwd.test +tries=1 +time=1 +short >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "error: the server on $port did not answer" >&2
    exit 1
}

# Seconds (3 decimals) until `dig` on `port` for `name` gives an answer `test` accepts.
until_answer() {
    python3 - "$1" "$2" "$3" <<'PY'
import subprocess, sys, time
port, name, want = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.time()
while time.time() - start < 60:
    out = subprocess.run(["dig", "@127.0.0.1", "-p", port, name, "A", "+tries=1", "+time=2", "+noall", "+answer"],
                         capture_output=True, text=True).stdout.split()
    ttl = int(out[1]) if len(out) >= 5 else None
    if want == "resolves" and out and out[-1] == "192.0.2.1":
        break
    if want == "fresh" and ttl is not None and ttl <= 2:
        break
    time.sleep(0.05)
print(f"{time.time() - start:.3f}")
PY
}

# Runs the outage against the server on `port`; prints "key=value" lines.
outage_run() {
    local label=$1 port=$2
    dnsperf -s 127.0.0.1 -p "$port" -d "$work/q-warm.txt" -n 1 -c 1 -q 50 >/dev/null 2>&1 || true
    # Every cached answer expires (TTL 2 s) while the upstream is down.
    kill "$stub"
    wait "$stub" 2>/dev/null || true
    echo "  upstream stopped; dnsperf for $outage s" >&2
    sleep 2.5
    dnsperf -s 127.0.0.1 -p "$port" -d "$work/q-outage.txt" -l "$outage" -Q "$qps" -c 4 -q 20000 -v >"$work/$label-perf.out" 2>&1 || true
    start_stub
    local resolves fresh
    resolves=$(until_answer "$port" "back$RANDOM.fwd.test" resolves)
    fresh=$(until_answer "$port" "host1.fwd.test" fresh)
    python3 - "$work/$label-perf.out" "$resolves" "$fresh" <<'PY'
import collections, sys
path, resolves, fresh = sys.argv[1], sys.argv[2], sys.argv[3]
codes = collections.Counter()
latency = collections.defaultdict(list)
sent = lost = 0
for line in open(path):
    parts = line.split()
    if len(parts) >= 5 and parts[0] == ">":
        code, name = parts[1], parts[2]
        kind = "cached" if name.startswith("host") else "new" if name.startswith("new") else "blocked"
        codes[code] += 1
        ms = float(parts[-1]) * 1000
        latency[kind].append(ms)
        latency["all"].append(ms)
    elif line.strip().startswith("Queries sent:"):
        sent = int(line.split()[2])
    elif line.strip().startswith("Queries lost:"):
        lost = int(line.split()[2])
def pct(values, p):
    values = sorted(values)
    return f"{values[min(len(values) - 1, int(len(values) * p))]:.1f}" if values else "n/a"
print(f"sent={sent}")
print(f"lost={lost}")
print("codes=" + ",".join(f"{k}:{v}" for k, v in sorted(codes.items())))
for kind in ("all", "cached", "new", "blocked"):
    print(f"p50_{kind}={pct(latency[kind], 0.5)}")
    print(f"p99_{kind}={pct(latency[kind], 0.99)}")
print(f"resolves={resolves}")
print(f"fresh={fresh}")
PY
}

declare -A result
collect() {
    local label=$1
    while IFS='=' read -r key value; do result[$label.$key]=$value; done
}

start_stub

echo "==> dnsmasq $(dnsmasq --version | head -1 | awk '{print $3}') --use-stale-cache"
dnsmasq --no-daemon --port=$dnsmasq_port --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts \
    --server=127.0.0.1#$upstream_port --cache-size=10000 --dns-forward-max=10000 --use-stale-cache \
    --conf-file="$work/dnsmasq-blocked.conf" >"$work/dnsmasq.log" 2>&1 &
dnsmasq_pid=$!
pids+=($dnsmasq_pid)
wait_answer $dnsmasq_port
outage_run dnsmasq $dnsmasq_port >"$work/dnsmasq.result"
collect dnsmasq <"$work/dnsmasq.result"
kill $dnsmasq_pid

echo "==> pepper dns serve (serve-stale: TTL 30 s, client response timer 1.8 s)"
home="$work/home"
mkdir -p "$home"
PEPPER_HOME="$home" "$pepper" dns serve --listen 127.0.0.1:$pepper_port --upstream 127.0.0.1:$upstream_port \
    --cache-size 10000 --no-query-log --log-level error "$work/blocked.txt" >"$work/pepper.log" 2>&1 &
pepper_pid=$!
pids+=($pepper_pid)
wait_answer $pepper_port
outage_run pepper $pepper_port >"$work/pepper.result"
collect pepper <"$work/pepper.result"
kill $pepper_pid

echo
echo "Every upstream down for $outage s under dnsperf at $qps qps (80 % cached names, now expired; 10 % new; 10 % blocked), $(nproc) cores"
printf '%-40s %22s %22s\n' "" "pepper dns serve" "dnsmasq --use-stale-cache"
row() { printf '%-40s %22s %22s\n' "$1" "${result[pepper.$2]}" "${result[dnsmasq.$2]}"; }
row "queries sent" sent
row "queries lost (no answer in 5 s)" lost
row "answers by code" codes
row "latency p50, all answered (ms)" p50_all
row "latency p99, all answered (ms)" p99_all
row "  p99, cached names (ms)" p99_cached
row "  p99, never-asked names (ms)" p99_new
row "  p99, blocked names (ms)" p99_blocked
row "upstream back: a new name resolves (s)" resolves
row "upstream back: a cached name fresh (s)" fresh
