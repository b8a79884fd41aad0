#!/usr/bin/env bash
# A DNS replica that follows a primary without a gap: the replica home runs `pepper dns serve`
# (its lists, rules and allowlist from its own state) and `pepper sync follow`; the primary
# (`pepper console` over HTTPS) holds a rule that blocks `blocked.test`, and 100 times changes its
# allowlist. Each change reaches the replica, which applies it, rebuilds and reloads its DNS
# filter. Meanwhile dnsperf asks the replica for names under `blocked.test` without pause: an
# answer other than the block (NXDOMAIN) would be a query answered from an empty or partial
# filter.
#
#   bench/sync-replica.sh [PEPPER_BINARY (default .build/release/pepper)] [SYNCS (100)] [QPS (2000)]
#
# Needs dnsperf.
set -euo pipefail
pepper=$(realpath "${1:-.build/release/pepper}")
syncs=${2:-100}
qps=${3:-2000}
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }
command -v dnsperf >/dev/null || { echo "error: dnsperf is not installed" >&2; exit 1; }
work=$(mktemp -d /tmp/pepper-sync-replica.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
dns=$((port + 1))
p() { local home=$1; shift; PEPPER_HOME="$work/$home" "$pepper" "$@"; }

mkdir -p "$work/primary" "$work/replica"
p primary dns certificate --server-name sync.test --ip 127.0.0.1 >/dev/null
p primary rules add '||blocked.test^' >/dev/null
p primary console --listen 127.0.0.1:$port --tls-cert "$work/primary/dns-tls/server.pem" \
    --tls-key "$work/primary/dns-tls/server-key.pem" >"$work/console.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "Pepper console: open" "$work/console.log" && break; sleep 0.1; done
p replica sync pair "$(p primary sync code --url "https://127.0.0.1:$port" 2>/dev/null)" --name replica >/dev/null
p replica rules list | grep -q 'blocked.test' || { echo "error: the replica did not get the primary's rule" >&2; exit 1; }
p replica dns serve --listen 127.0.0.1:$dns --upstream 127.0.0.1:9 --log-level info >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
p replica sync follow >"$work/follow.log" 2>&1 &
pids+=($!)
for i in $(seq 1 500); do echo "q$i.blocked.test A"; done >"$work/q.txt"
seconds=$((syncs * 5 / 2 + 10))
dnsperf -s 127.0.0.1 -p $dns -d "$work/q.txt" -l "$seconds" -Q "$qps" -c 2 -v >"$work/perf.out" 2>&1 &
perf=$!
sleep 3
before=$(grep -c '"reloaded"\|reloaded' "$work/serve.log" || true)
for i in $(seq 1 "$syncs"); do
    if [ $((i % 2)) = 1 ]; then p primary allowlist add "toggle.example" >/dev/null; else p primary allowlist remove "toggle.example" >/dev/null; fi
    # The replica's reload looks at its state every 2 s: one change per reload.
    sleep 2.5
done
wait $perf || true
after=$(grep -c '"reloaded"\|reloaded' "$work/serve.log" || true)
answered=$(grep -c '^> ' "$work/perf.out" || true)
blocked=$(grep -c '^> NXDOMAIN' "$work/perf.out" || true)
other=$((answered - blocked))
echo "$syncs allowlist changes on the primary; the replica reloaded its filter $((after - before)) times"
echo "dnsperf at $qps qps for ${seconds} s: $answered answers, $blocked blocked (NXDOMAIN), $other answered otherwise (a gap)"
grep -v '^> ' "$work/perf.out" | grep -E 'Queries (sent|completed|lost)|Response codes' || true
