#!/usr/bin/env bash
# DNS filter benchmark: `pepper dns serve` against dnsmasq, the same blocked names, loopback.
#
#   bench/dns.sh [SECONDS_PER_PHASE (default 10)] [NAMES (default 1000000)]
#
# Blocked names: the `||domain^` hosts of ../shared/data/filters (EasyList, EasyPrivacy, uBlock
# badware), padded with generated names to NAMES. Pepper reads them as a domain list; dnsmasq
# as `address=/name/` lines (NXDOMAIN for the name and its subdomains, like Pepper). Both
# forward to a third dnsmasq (the stub upstream) and cache. Phases, each with dnsperf bounded
# to SECONDS: blocked names, subdomains of blocked names, forwarded names answered from the
# cache, forwarded names never asked before (cache misses), and a mix at 10,000 qps for the
# latency percentiles. Also: start-up to first answer, and RSS after the load.
# The cost of `--metrics`: the server's CPU time per query (user + system, from /proc) at a fixed
# 20,000 qps of the mixed queries, for Pepper without and with `--metrics`, three times each,
# alternating. Maximum qps on two cores shared with dnsperf moves by ±20 % from run to run;
# CPU time per query at a fixed rate is steadier, and is what the counters add.
#
# Needs: a release build (swift build -c release --product pepper), dnsperf, dnsmasq, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-10}
names=${2:-1000000}
pepper=${PEPPER_BIN:-.build/release/pepper}
# Extra options for `pepper dns serve` (e.g. --no-query-log, --threads 1).
read -r -a pepper_args <<<"${PEPPER_ARGS:-}"
filters=../shared/data/filters
work=$(mktemp -d /tmp/pepper-dns-bench.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for tool in dnsperf dnsmasq python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is not installed" >&2; exit 1; }
done
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }

upstream_port=25353
dnsmasq_port=25354
pepper_port=25355
metrics_port=25356

echo "==> Blocked names"
python3 - "$filters" "$names" "$work" <<'PY'
import os, random, re, sys
filters, total, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rule = re.compile(r'^\|\|([a-z0-9][a-z0-9.-]*[a-z0-9])\^(\$.*)?$')
real = []
seen = set()
for name in ("easylist.txt", "easyprivacy.txt", "ublock-badware.txt"):
    path = os.path.join(filters, name)
    if not os.path.exists(path):
        continue
    for line in open(path, encoding="utf-8", errors="replace"):
        m = rule.match(line.strip())
        if m and "." in m.group(1) and m.group(1) not in seen:
            seen.add(m.group(1))
            real.append(m.group(1))
random.seed(42)
alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
tlds = ["com", "net", "org", "io", "info", "xyz", "co.uk", "de", "ru", "top"]
names = list(real)
while len(names) < total:
    label = "".join(random.choice(alphabet) for _ in range(random.randint(6, 14)))
    name = f"{label}.{random.choice(tlds)}"
    if random.random() < 0.3:
        name = "".join(random.choice(alphabet) for _ in range(random.randint(2, 6))) + "." + name
    if name not in seen:
        seen.add(name)
        names.append(name)
with open(os.path.join(work, "blocked.txt"), "w") as f:
    f.write("\n".join(names) + "\n")
with open(os.path.join(work, "dnsmasq-blocked.conf"), "w") as f:
    f.writelines(f"address=/{n}/\n" for n in names)
sample = random.sample(names, 100000)
with open(os.path.join(work, "q-blocked.txt"), "w") as f:
    f.writelines(f"{n} A\n" for n in sample)
with open(os.path.join(work, "q-subdomain.txt"), "w") as f:
    f.writelines(f"sub{i % 7}.x.{n} A\n" for i, n in enumerate(sample))
with open(os.path.join(work, "q-cached.txt"), "w") as f:
    f.writelines(f"host{i % 1000}.fwd.test A\n" for i in range(100000))
with open(os.path.join(work, "q-miss.txt"), "w") as f:
    f.writelines(f"u{i}.miss.test A\n" for i in range(2000000))
with open(os.path.join(work, "q-mixed.txt"), "w") as f:
    for i, n in enumerate(sample):
        f.write(f"{n} A\n" if i % 2 else f"host{i % 1000}.fwd.test A\n")
print(f"{len(real)} real names from the lists, {len(names)} in all")
PY

# The stub upstream: answers everything under fwd.test and miss.test itself, with long TTLs.
dnsmasq --no-daemon --port=$upstream_port --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts \
    --cache-size=0 --local-ttl=3600 --address=/fwd.test/192.0.2.1 --address=/miss.test/192.0.2.2 --dns-forward-max=10000 \
    >"$work/upstream.log" 2>&1 &
pids+=($!)
sleep 0.5

# Prints the milliseconds from now until `port` answers a query.
first_answer() {
    python3 - "$1" "$2" <<'PY'
import socket, sys, time
start = float(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.01)
query = bytes([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 5]) + b"ready" + bytes([3]) + b"fwd" + bytes([4]) + b"test" + bytes([0, 0, 1, 0, 1])
deadline = time.time() + 120
while time.time() < deadline:
    s.sendto(query, ("127.0.0.1", int(sys.argv[1])))
    try:
        s.recv(512)
        print(f"{(time.time() - start) * 1000:.0f}")
        sys.exit(0)
    except OSError:
        pass
print("timeout")
PY
}

rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
hwm_mb() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# dnsperf for one phase; prints qps.
perf() {
    local port=$1 file=$2 extra=${3:-}
    dnsperf -s 127.0.0.1 -p "$port" -d "$file" -l "$seconds" -c 4 -q 500 $extra >"$work/perf.out" 2>&1 || true
    local qps lost
    qps=$(awk '/Queries per second:/ { printf "%.0f", $4 }' "$work/perf.out")
    lost=$(awk '/Queries lost:/ { print $3 }' "$work/perf.out")
    echo "$qps $lost"
}

# p50/p99 latency (ms) at 10,000 qps, from dnsperf's per-query report.
latency() {
    local port=$1
    dnsperf -s 127.0.0.1 -p "$port" -d "$work/q-mixed.txt" -l "$seconds" -Q 10000 -v >"$work/lat.out" 2>&1 || true
    python3 - "$work/lat.out" <<'PY'
import sys
lat = []
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) >= 5 and parts[0] == ">":
        try:
            lat.append(float(parts[-1]) * 1000)
        except ValueError:
            pass
lat.sort()
if not lat:
    print("n/a n/a 0")
else:
    print(f"{lat[len(lat)//2]:.3f} {lat[min(len(lat)-1, int(len(lat)*0.99))]:.3f} {len(lat)}")
PY
}

declare -A result

run_server() {
    local label=$1 port=$2
    shift 2
    local start
    start=$(python3 -c 'import time; print(time.time())')
    "$@" >"$work/$label.log" 2>&1 &
    local pid=$!
    pids+=($pid)
    result[$label.startup]=$(first_answer "$port" "$start")
    result[$label.rss_start]=$(rss_mb $pid)
    # Warm the cache for the cached phase.
    dnsperf -s 127.0.0.1 -p "$port" -d "$work/q-cached.txt" -n 1 -c 1 -q 100 >/dev/null 2>&1 || true
    read -r result[$label.blocked] result[$label.blocked_lost] < <(perf "$port" "$work/q-blocked.txt")
    read -r result[$label.subdomain] result[$label.subdomain_lost] < <(perf "$port" "$work/q-subdomain.txt")
    read -r result[$label.cached] result[$label.cached_lost] < <(perf "$port" "$work/q-cached.txt")
    read -r result[$label.miss] result[$label.miss_lost] < <(perf "$port" "$work/q-miss.txt")
    read -r result[$label.p50] result[$label.p99] result[$label.latency_n] < <(latency "$port")
    result[$label.rss]=$(hwm_mb $pid)
    kill $pid
    wait $pid 2>/dev/null || true
}

echo "==> dnsmasq $(dnsmasq --version | head -1 | awk '{print $3}')"
run_server dnsmasq $dnsmasq_port dnsmasq --no-daemon --port=$dnsmasq_port --listen-address=127.0.0.1 --bind-interfaces \
    --no-resolv --no-hosts --server=127.0.0.1#$upstream_port --cache-size=10000 --dns-forward-max=10000 \
    --conf-file="$work/dnsmasq-blocked.conf"

echo "==> pepper dns serve"
home="$work/home"
mkdir -p "$home"
# First start parses the list and saves the engine; the measured start loads it.
PEPPER_HOME="$home" timeout 300 "$pepper" dns serve --listen 127.0.0.1:$pepper_port --upstream 127.0.0.1:$upstream_port \
    "$work/blocked.txt" >"$work/pepper-first.log" 2>&1 &
first=$!
pids+=($first)
first_start=$(python3 -c 'import time; print(time.time())')
result[pepper.first_startup]=$(first_answer $pepper_port "$first_start")
kill $first
wait $first 2>/dev/null || true
run_server pepper $pepper_port env PEPPER_HOME="$home" "$pepper" dns serve --listen 127.0.0.1:$pepper_port \
    --upstream 127.0.0.1:$upstream_port --cache-size 10000 "${pepper_args[@]}" "$work/blocked.txt"

# CPU seconds (user + system) a process has used.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# Microseconds of server CPU per answered query at 20,000 qps (the mixed queries, cache warm).
cpu_per_query() {
    local label=$1
    shift
    "$@" >"$work/$label.log" 2>&1 &
    local pid=$!
    pids+=($pid)
    first_answer $pepper_port "$(python3 -c 'import time; print(time.time())')" >/dev/null
    dnsperf -s 127.0.0.1 -p $pepper_port -d "$work/q-cached.txt" -n 1 -c 1 -q 100 >/dev/null 2>&1 || true
    local before after
    before=$(cpu_seconds $pid)
    dnsperf -s 127.0.0.1 -p $pepper_port -d "$work/q-mixed.txt" -l "$seconds" -Q 20000 -c 4 >"$work/cpu.out" 2>&1 || true
    after=$(cpu_seconds $pid)
    local completed
    completed=$(awk '/Queries completed:/ { print $3 }' "$work/cpu.out")
    kill $pid
    wait $pid 2>/dev/null || true
    python3 -c "import sys; b, a, n = map(float, sys.argv[1:]); print(f'{(a - b) / n * 1e6:.2f}' if n else 'n/a')" "$before" "$after" "${completed:-0}"
}

metrics_rows=()
for round in 1 2 3; do
    for label in without with; do
        metrics_args=()
        [ $label = with ] && metrics_args=(--metrics 127.0.0.1:$metrics_port)
        echo "==> CPU per query, pepper dns serve ${metrics_args[*]} (round $round)"
        result[cpu.$label.$round]=$(cpu_per_query "cpu-$label-$round" env PEPPER_HOME="$home" "$pepper" dns serve \
            --listen 127.0.0.1:$pepper_port --upstream 127.0.0.1:$upstream_port --cache-size 10000 "${metrics_args[@]}" \
            "${pepper_args[@]}" "$work/blocked.txt")
    done
done

ratio() { python3 -c "import sys; a, b = float(sys.argv[1] or 0), float(sys.argv[2] or 0); print(f'{a / b:.2f}x' if b else 'n/a')" "$1" "$2"; }

echo
echo "DNS filter benchmark: $names blocked names, dnsperf $seconds s per phase, $(nproc) cores, loopback"
echo "pepper dns serve options: ${PEPPER_ARGS:-(defaults: query log on, one thread per core)}"
printf '%-34s %14s %14s %8s\n' "" "pepper" "dnsmasq" "ratio"
row() { printf '%-34s %14s %14s %8s\n' "$1" "$2" "$3" "$4"; }
row "start-up to first answer (ms)" "${result[pepper.startup]}" "${result[dnsmasq.startup]}" ""
row "  pepper, first start (parse, ms)" "${result[pepper.first_startup]}" "" ""
row "RSS after start (MB)" "${result[pepper.rss_start]}" "${result[dnsmasq.rss_start]}" ""
row "peak RSS (MB)" "${result[pepper.rss]}" "${result[dnsmasq.rss]}" ""
row "blocked qps" "${result[pepper.blocked]}" "${result[dnsmasq.blocked]}" "$(ratio "${result[pepper.blocked]}" "${result[dnsmasq.blocked]}")"
row "blocked-subdomain qps" "${result[pepper.subdomain]}" "${result[dnsmasq.subdomain]}" "$(ratio "${result[pepper.subdomain]}" "${result[dnsmasq.subdomain]}")"
row "forwarded qps, cache hits" "${result[pepper.cached]}" "${result[dnsmasq.cached]}" "$(ratio "${result[pepper.cached]}" "${result[dnsmasq.cached]}")"
row "forwarded qps, cache misses" "${result[pepper.miss]}" "${result[dnsmasq.miss]}" "$(ratio "${result[pepper.miss]}" "${result[dnsmasq.miss]}")"
row "latency p50 at 10k qps (ms)" "${result[pepper.p50]}" "${result[dnsmasq.p50]}" ""
row "latency p99 at 10k qps (ms)" "${result[pepper.p99]}" "${result[dnsmasq.p99]}" ""
row "queries lost (blocked/sub/hit/miss)" \
    "${result[pepper.blocked_lost]}/${result[pepper.subdomain_lost]}/${result[pepper.cached_lost]}/${result[pepper.miss_lost]}" \
    "${result[dnsmasq.blocked_lost]}/${result[dnsmasq.subdomain_lost]}/${result[dnsmasq.cached_lost]}/${result[dnsmasq.miss_lost]}" ""

median() { python3 -c "import statistics, sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.2f}')" "$@"; }
echo
echo "The cost of --metrics: server CPU per query (µs) at 20,000 qps, mixed blocked and cached queries"
printf '%-34s %14s %14s %8s\n' "" "--metrics" "without" "ratio"
for round in 1 2 3; do
    row "round $round" "${result[cpu.with.$round]}" "${result[cpu.without.$round]}" \
        "$(ratio "${result[cpu.with.$round]}" "${result[cpu.without.$round]}")"
done
with_median=$(median "${result[cpu.with.1]}" "${result[cpu.with.2]}" "${result[cpu.with.3]}")
without_median=$(median "${result[cpu.without.1]}" "${result[cpu.without.2]}" "${result[cpu.without.3]}")
row "median" "$with_median" "$without_median" "$(ratio "$with_median" "$without_median")"
