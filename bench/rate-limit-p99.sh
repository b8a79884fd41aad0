#!/usr/bin/env bash
# The per-client rate limit under a flood: one client's p99 (500 qps from 127.0.0.3) alone,
# beside a 20,000 qps flood and beside a full-speed flood from 127.0.0.2 (dnsperf), against
# `pepper dns serve --rate-limit 1000 --rate-burst 2000` (query log on, one blocked name asked).
#
#   bench/rate-limit-p99.sh [PEPPER_BINARY (default .build/release/pepper)]
#
# Needs dnsperf. The load generator shares the machine's cores with the server: at full speed
# it takes one of them, which is part of what the steady client then feels.
set -euo pipefail
pepper=${1:-.build/release/pepper}
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }
command -v dnsperf >/dev/null || { echo "error: dnsperf is not installed" >&2; exit 1; }
work=$(mktemp -d /tmp/pepper-rate-limit.XXXXXX)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
echo '||blocked.test^' >"$work/list.txt"
for i in $(seq 1 200); do echo "b$i.blocked.test A"; done >"$work/q.txt"
port=26370
mkdir "$work/home"
PEPPER_HOME="$work/home" "$pepper" dns serve "$work/list.txt" --listen 127.0.0.1:$port --upstream 127.0.0.1:9 \
    --rate-limit 1000 --rate-burst 2000 --log-level error >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
percentiles() {
    python3 - "$1" <<'PY'
import sys
lat = sorted(float(line.split()[-1]) * 1000 for line in open(sys.argv[1]) if line.startswith("> "))
print(f"p50 {lat[len(lat) // 2]:.2f} ms, p99 {lat[int(len(lat) * 0.99)]:.2f} ms, {len(lat)} answered" if lat else "no answers")
PY
}
steady() { dnsperf -a 127.0.0.3 -s 127.0.0.1 -p $port -d "$work/q.txt" -l 6 -Q 500 -c 1 -q 100 -v >"$1" 2>&1 || true; }
steady "$work/alone.out"
echo "steady client alone:            $(percentiles "$work/alone.out")"
for flood in 20000 0; do
    if [ "$flood" = 0 ]; then limit=(); name="full speed"; else limit=(-Q "$flood"); name="$flood qps"; fi
    dnsperf -a 127.0.0.2 -s 127.0.0.1 -p $port -d "$work/q.txt" -l 8 -c 4 -q 500 "${limit[@]}" >"$work/flood.out" 2>&1 &
    flooder=$!
    sleep 1
    steady "$work/beside.out"
    wait $flooder || true
    completed=$(awk '/Queries completed:/ { print $3 }' "$work/flood.out")
    refused=$(grep -o 'REFUSED [0-9]*' "$work/flood.out" | awk '{ print $2 }' || true)
    share=$(python3 -c "import sys; print(f'{float(sys.argv[1] or 0) / float(sys.argv[2]) * 100:.1f} %')" "${refused:-0}" "${completed:-1}")
    echo "beside a flood at $name: $(percentiles "$work/beside.out"); flood answered $completed, REFUSED $share"
done
