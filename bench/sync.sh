#!/usr/bin/env bash
# Sync between homes, as people run it: a serving home (`pepper console` over HTTPS with the
# home's private CA) and following homes (`pepper sync pair | now | follow`), each its own process.
#
#   bench/sync.sh [PEPPER_BINARY (default .build/release/pepper)] [ALLOWLIST (10000)] [NUMBERS (100000)]
#
# Prints:
#   1. the first sync of a fresh home from a serving home holding ALLOWLIST allowlist entries
#      and NUMBERS blocked call numbers (pair + first sync, wall time and peak RSS of the
#      following process), beside the whole-home copy a one-way sync tool makes of the same
#      state (`pepper backup create` + `pepper backup restore`: what adguardhome-sync and
#      nebula-sync do, a full copy each time);
#   2. an edit's time to reach a connected device: an allowlist entry added on one following
#      home (`pepper allowlist add`, its `pepper sync follow` running) until it is in another
#      following home's state (its `pepper sync follow` running), 20 times: median and worst;
#   3. a sync with nothing to do (`pepper sync now`) on the large home.
set -euo pipefail
pepper=$(realpath "${1:-.build/release/pepper}")
allowlist=${2:-10000}
numbers=${3:-100000}
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }
work=$(mktemp -d /tmp/pepper-sync-bench.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
p() { local home=$1; shift; PEPPER_HOME="$work/$home" "$pepper" "$@"; }
now() { date +%s.%N; }
seconds() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }
rss() { awk '/Maximum resident/ { printf "%.0f MB", $6 / 1024 }' "$1"; }

echo "== state: $allowlist allowlist entries, $numbers blocked numbers on the serving home"
mkdir -p "$work/server"
p server dns certificate --server-name sync.test --ip 127.0.0.1 >/dev/null
python3 - "$numbers" >"$work/numbers.txt" <<'PY'
import sys
for i in range(int(sys.argv[1])): print(f"+1206{3000000 + i:07d}")
PY
p server calls import --region US "$work/numbers.txt" >/dev/null
python3 - "$allowlist" "$work/server/pepper.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.executemany("INSERT INTO allowlist (domain, addedAt) VALUES (?, '2026-11-28 00:00:00.000')",
               ((f"site{i}.example",) for i in range(int(sys.argv[1]))))
db.commit()
PY
p server console --listen 127.0.0.1:$port --tls-cert "$work/server/dns-tls/server.pem" \
    --tls-key "$work/server/dns-tls/server-key.pem" >"$work/console.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "Pepper console: open" "$work/console.log" && break; sleep 0.1; done
code() { p server sync code --url "https://127.0.0.1:$port" 2>/dev/null; }

echo "== 1. first sync of a fresh home"
start=$(now)
/usr/bin/time -v -o "$work/pair.time" env PEPPER_HOME="$work/laptop" "$pepper" sync pair "$(code)" --name laptop >"$work/pair.out"
end=$(now)
echo "pepper sync pair + first sync: $(seconds "$start" "$end") s, peak RSS $(rss "$work/pair.time") ($(tail -1 "$work/pair.out"))"
start=$(now)
p server backup create "$work/copy.pepperbackup" >/dev/null 2>&1
mkdir -p "$work/copy"
/usr/bin/time -v -o "$work/restore.time" env PEPPER_HOME="$work/copy" "$pepper" backup restore "$work/copy.pepperbackup" --replace >/dev/null 2>&1
end=$(now)
echo "whole-home copy (backup create + restore): $(seconds "$start" "$end") s, restore's peak RSS $(rss "$work/restore.time"), file $(du -h "$work/copy.pepperbackup" | cut -f1)"

echo "== 3. a sync with nothing to do"
start=$(now)
p laptop sync now >/dev/null
echo "pepper sync now on the large home: $(seconds "$start" "$(now)") s"

echo "== 2. an edit's time to reach a connected device"
p phone sync pair "$(code)" --name phone >/dev/null
p laptop sync follow >"$work/follow-laptop.log" 2>&1 &
pids+=($!)
p phone sync follow >"$work/follow-phone.log" 2>&1 &
pids+=($!)
sleep 3
latencies=()
for i in $(seq 1 20); do
    start=$(now)
    p phone allowlist add "edit$i.example" >/dev/null 2>&1
    until sqlite3 "$work/laptop/pepper.sqlite" "SELECT 1 FROM allowlist WHERE domain = 'edit$i.example'" 2>/dev/null | grep -q 1; do
        sleep 0.02
        [ "$(seconds "$start" "$(now)" | cut -d. -f1)" -lt 60 ] || { echo "edit $i did not arrive in 60 s" >&2; exit 1; }
    done
    latencies+=("$(seconds "$start" "$(now)")")
done
python3 - "${latencies[@]}" <<'PY'
import sys
values = sorted(float(v) for v in sys.argv[1:])
print(f"edit on the phone to the laptop's state: median {values[len(values) // 2]:.2f} s, worst {values[-1]:.2f} s ({len(values)} edits)")
PY
