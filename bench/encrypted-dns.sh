#!/usr/bin/env bash
# Encrypted DNS benchmark: `pepper dns serve` beside dnsdist, DNS over TLS and DNS over HTTPS
# (plain UDP as a reference), the same blocked names, cache and upstream, on loopback.
#
#   bench/encrypted-dns.sh [SECONDS_PER_PHASE (default 10)] [NAMES (default 1000000)] [IDLE_CONNECTIONS (default 10000)]
#
# Both servers get the same self-signed certificate (ECDSA P-256, made here with openssl for
# dns.pepper.test and *.dns.pepper.test), cache 10,000 answers, forward to the same stub
# upstream (an unbound on loopback answering every name under fwd.test and miss.test itself)
# and block the same names (the `||domain^` hosts of ../shared/data/filters padded to NAMES,
# as bench/dns.sh): Pepper reads them as a domain list; dnsdist from a CDB file with a suffix
# lookup (KeyValueStoreLookupRule + KeyValueLookupKeySuffix) answering NXDOMAIN, its way of
# holding a large list.
#
# For each server and transport (UDP, DoT, DoH over HTTP/2 with GET and POST, DoH over
# HTTP/1.1): queries per second at full load; p50/p99 latency and the server's CPU time per
# answered query at a fixed RATE (default 5,000 qps; user + system time from /proc/PID/stat
# before and after, over the queries answered); RSS; and the memory of IDLE_CONNECTIONS idle
# DoT connections (a Python asyncio client opens them, one query on each, holds them, then
# asks once more on each to count those still open). Both servers run at once and every
# phase runs against both, one after the other, the first alternating from phase to phase, so
# that other work on the shared machine weighs on both alike. Then the rate limit: one client
# (127.0.0.2) floods plain UDP while another (127.0.0.3) asks at a steady moderate rate; the
# steady client's p99 and loss with and without the flood, the flood's REFUSED share; Pepper
# with --rate-limit/--rate-burst, dnsdist with MaxQPSIPRule at the same rate and burst.
#
# Load generators: dnsperf 2.10 for UDP and DoT (`-m dot`). For DoH, h2load (nghttp2): dnsperf
# 2.10's DoH mode handles one response per read of the connection, and stalls when a server
# sends two at once (dnsdist 1.7.3 does after a few queries with -q 2 or more); h2load drives
# HTTP/2 and HTTP/1.1 with many streams and logs each request's time (--log-file). The GET
# phases cycle through the same mixed queries as dnsperf (RFC 8484 base64url, ID 0); the POST
# phase sends one cached name's query (h2load posts one body).
#
# Idle timeouts: dnsdist closes a DoT connection after setTCPRecvTimeout (default 2 s) without
# a query and a DoH connection after the frontend's idleTimeout (default 30 s); Pepper after
# --idle-timeout (default 30 s). Both are set to IDLE_TIMEOUT (default 300 s) here so that the
# idle connections stay open through the measure; Pepper's --max-connections-per-client
# (default 100 per address) is lifted (0) since every connection comes from 127.0.0.1.
#
# Needs: sudo apt-get install dnsperf dnsdist unbound nghttp2-client openssl python3 (dnsdist
# built with dns-over-tls and dns-over-https: `dnsdist --version`), dig (bind9-dnsutils) for the
# checks, and a release build: swift build -c release --product pepper (PEPPER_BIN to use
# another). `ulimit -n` must allow IDLE_CONNECTIONS + 1,000 descriptors (the script raises the
# soft limit to the hard one).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-10}
names=${2:-1000000}
idle_connections=${3:-10000}
rate=${RATE:-5000}
idle_timeout=${IDLE_TIMEOUT:-300}
rate_limit=${RATE_LIMIT:-1000}
rate_burst=${RATE_BURST:-2000}
steady_rate=${STEADY_RATE:-500}
pepper=${PEPPER_BIN:-.build/release/pepper}
# Extra options for `pepper dns serve` (e.g. --no-query-log, --threads 1).
read -r -a pepper_args <<<"${PEPPER_ARGS:-}"
filters=../shared/data/filters
server_name=dns.pepper.test
work=$(mktemp -d /tmp/pepper-encrypted-dns-bench.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "work files kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

for tool in dnsperf dnsdist unbound h2load openssl python3 dig; do
    command -v "$tool" >/dev/null || { echo "error: $tool is not installed" >&2; exit 1; }
done
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }
dnsdist --version | grep 'dns-over-https' >/dev/null || { echo "error: this dnsdist has no DNS over HTTPS" >&2; exit 1; }
"$pepper" dns serve --help | grep -- '--tls-listen' >/dev/null || { echo "error: $pepper has no --tls-listen" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((idle_connections + 1000)) ]; then
    echo "error: ulimit -n is $(ulimit -n); $idle_connections idle connections need $((idle_connections + 1000))" >&2
    exit 1
fi

upstream_port=25353
pepper_udp=25360
pepper_tls=25361
pepper_https=25362
pepper_metrics=25363
dnsdist_udp=25370
dnsdist_tls=25371
dnsdist_https=25372

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "==> Certificate, blocked names and queries"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 -subj "/CN=$server_name" \
    -addext "subjectAltName=DNS:$server_name,DNS:*.$server_name" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
python3 - "$filters" "$names" "$work" "$pepper_https" "$dnsdist_https" <<'PY'
import base64, os, random, re, struct, sys
filters, total, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
https_ports = {"pepper": sys.argv[4], "dnsdist": sys.argv[5]}
rule = re.compile(r'^\|\|([a-z0-9][a-z0-9.-]*[a-z0-9])\^(\$.*)?$')
real = []
seen = set()
for name in ("easylist.txt", "easyprivacy.txt", "ublock-badware.txt"):
    path = os.path.join(filters, name)
    if not os.path.exists(path):
        continue
    for line in open(path, encoding="utf-8", errors="replace"):
        m = rule.match(line.strip())
        # IPv4 literals (`||203.0.113.7^`) are not names anyone asks DNS for; Pepper's
        # domain lists skip them.
        if m and "." in m.group(1) and m.group(1) not in seen and not re.fullmatch(r"[0-9.]+", m.group(1)):
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

def wire(name):
    return b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"

# dnsdist's list: a CDB (D. J. Bernstein's constant database format) keyed by the names in
# wire format, which KeyValueLookupKeySuffix looks up label by label.
def cdb_hash(key):
    h = 5381
    for c in key:
        h = (((h << 5) + h) & 0xFFFFFFFF) ^ c
    return h
tables = [[] for _ in range(256)]
with open(os.path.join(work, "blocked.cdb"), "wb") as f:
    f.write(b"\0" * 2048)
    pos = 2048
    for n in names:
        key = wire(n)
        f.write(struct.pack("<II", len(key), 1) + key + b"1")
        h = cdb_hash(key)
        tables[h & 255].append((h, pos))
        pos += 9 + len(key)
    header = []
    for table in tables:
        slots = [(0, 0)] * (2 * len(table))
        for h, p in table:
            i = (h >> 8) % len(slots)
            while slots[i][1]:
                i = (i + 1) % len(slots)
            slots[i] = (h, p)
        header.append((pos, len(slots)))
        for slot in slots:
            f.write(struct.pack("<II", *slot))
        pos += 8 * len(slots)
    f.seek(0)
    for p, n in header:
        f.write(struct.pack("<II", p, n))

sample = random.sample(names, 100000)
mixed = [n if i % 2 else f"host{i % 1000}.fwd.test" for i, n in enumerate(sample)]
with open(os.path.join(work, "q-mixed.txt"), "w") as f:
    f.writelines(f"{n} A\n" for n in mixed)
with open(os.path.join(work, "q-cached.txt"), "w") as f:
    f.writelines(f"host{i}.fwd.test A\n" for i in range(1000))
# DNS over HTTPS: the same queries as GET URIs (ID 0, RD, RFC 8484 §4.1), and one POST body.
def query(name):
    return struct.pack(">HHHHHH", 0, 0x0100, 1, 0, 0, 0) + wire(name) + struct.pack(">HH", 1, 1)
def uri(port, name):
    return f"https://127.0.0.1:{port}/dns-query?dns=" + base64.urlsafe_b64encode(query(name)).decode().rstrip("=") + "\n"
for server, port in https_ports.items():
    with open(os.path.join(work, f"uris-mixed-{server}.txt"), "w") as f:
        f.writelines(uri(port, n) for n in mixed)
    with open(os.path.join(work, f"uris-cached-{server}.txt"), "w") as f:
        f.writelines(uri(port, f"host{i}.fwd.test") for i in range(1000))
with open(os.path.join(work, "post.bin"), "wb") as f:
    f.write(query("host1.fwd.test"))
print(f"{len(real)} real names from the lists, {len(names)} in all")
PY

# Opens IDLE_CONNECTIONS TLS connections to a DoT port, a query on each, holds them, asks once
# more on each; prints: RSS before (KiB), RSS while held, RSS 3 s after closing them, opened,
# failed, still open after the hold, KiB per connection, seconds to open them all.
cat >"$work/idle_tls.py" <<'PY'
import asyncio, resource, ssl, struct, sys, time

pid, port, count, hold, server_name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]

def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def query(qid):
    name = f"idle{qid % 1000}.fwd.test"
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    return struct.pack(">H", len(q)) + q

async def ask(reader, writer, qid):
    writer.write(query(qid))
    await writer.drain()
    length = struct.unpack(">H", await reader.readexactly(2))[0]
    return struct.unpack(">H", (await reader.readexactly(length))[:2])[0] == qid

async def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 500:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    before = rss_kib()
    connections, failures = [], 0
    gate = asyncio.Semaphore(100)

    async def open_one(i):
        nonlocal failures
        async with gate:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, ssl=context, server_hostname=server_name), 30)
                if await asyncio.wait_for(ask(reader, writer, i), 30):
                    connections.append((reader, writer))
                    return
            except Exception as error:
                if failures < 3:
                    print(f"connection {i}: {type(error).__name__}: {error}", file=sys.stderr)
            failures += 1

    start = time.time()
    await asyncio.gather(*(open_one(i) for i in range(count)))
    opened = time.time() - start
    await asyncio.sleep(hold)
    held = rss_kib()
    alive = 0

    async def check(i, reader, writer):
        nonlocal alive
        async with gate:
            try:
                if await asyncio.wait_for(ask(reader, writer, i), 30):
                    alive += 1
            except Exception:
                pass

    await asyncio.gather(*(check(i, r, w) for i, (r, w) in enumerate(connections)))
    for _, writer in connections:
        writer.close()
    await asyncio.sleep(3)
    per = (held - before) / len(connections) if connections else 0
    print(f"{before} {held} {rss_kib()} {len(connections)} {failures} {alive} {per:.1f} {opened:.1f}")

asyncio.run(main())
PY

# p50, p99 (ms) and count of dnsperf's per-query report (-v) or h2load's --log-file.
percentiles() {
    python3 - "$1" "$2" <<'PY'
import sys
kind, path = sys.argv[1], sys.argv[2]
lat = []
for line in open(path):
    parts = line.split()
    try:
        if kind == "dnsperf" and len(parts) >= 5 and parts[0] == ">":
            lat.append(float(parts[-1]) * 1000)
        elif kind == "h2load" and len(parts) == 3 and parts[1].startswith("2"):
            lat.append(int(parts[2]) / 1000)
    except ValueError:
        pass
lat.sort()
if not lat:
    print("n/a n/a 0")
else:
    print(f"{lat[len(lat)//2]:.3f} {lat[min(len(lat)-1, int(len(lat)*0.99))]:.3f} {len(lat)}")
PY
}

rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
hwm_mb() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# CPU seconds (user + system) a process has used, all its threads.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }
per_query_us() {
    python3 -c "import sys; b, a, n = map(float, sys.argv[1:]); print(f'{(a - b) / n * 1e6:.1f}' if n else 'n/a')" "$@"
}

# Waits until a UDP port answers.
wait_udp() {
    for _ in $(seq 1 600); do
        dig +time=1 +tries=1 @127.0.0.1 -p "$1" ready.fwd.test >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "error: nothing answers on 127.0.0.1:$1" >&2
    return 1
}

# Checks one transport answers correctly: a blocked name NXDOMAIN, a forwarded one 192.0.2.1.
check_answers() {
    local label=$1 blocked
    shift
    blocked=$(sed -n 2p "$work/q-mixed.txt" | awk '{print $1}')
    dig +time=3 +tries=1 "$@" "$blocked" | grep -q 'status: NXDOMAIN' \
        || { echo "error: $label: $blocked is not NXDOMAIN ($*)" >&2; exit 1; }
    [ "$(dig +time=3 +tries=1 +short "$@" check.fwd.test)" = 192.0.2.1 ] \
        || { echo "error: $label: check.fwd.test is not 192.0.2.1 ($*)" >&2; exit 1; }
}

# dnsperf at full load; prints qps and lost.
dnsperf_max() {
    local out=$1
    shift
    dnsperf "$@" -s 127.0.0.1 -d "$work/q-mixed.txt" -l "$seconds" -c 4 -q 400 >"$out" 2>&1 || true
    echo "$(awk '/Queries per second:/ { printf "%.0f", $4 }' "$out") $(awk '/Queries lost:/ { print $3 }' "$out")"
}

# h2load at full load; prints requests per second and failed requests.
h2load_max() {
    local out=$1
    shift
    h2load "$@" -D "$seconds" >"$out" 2>&1 || true
    local done failed
    done=$(awk '/^requests:/ { print $8 }' "$out")
    failed=$(awk '/^requests:/ { print $10 + $12 + $14 }' "$out")
    echo "$(python3 -c "import sys; print(f'{int(sys.argv[1] or 0) / float(sys.argv[2]):.0f}')" "${done:-0}" "$seconds") ${failed:-n/a}"
}

declare -A result pid udp_port tls_port https_port
udp_port=([pepper]=$pepper_udp [dnsdist]=$dnsdist_udp)
tls_port=([pepper]=$pepper_tls [dnsdist]=$dnsdist_tls)
https_port=([pepper]=$pepper_https [dnsdist]=$dnsdist_https)

# The two servers in the order of phase $1: each phase runs against both, one after the
# other, the first one alternating, so that the load other work puts on the machine over
# minutes falls on both alike.
servers_for() { if [ $(($1 % 2)) = 0 ]; then echo dnsdist pepper; else echo pepper dnsdist; fi; }

echo "==> Stub upstream (unbound $(unbound -V | awk 'NR == 1 { print $2 }'))"
# unbound, not dnsmasq as in bench/dns.sh: dnsdist forwards DoT queries to its backend over TCP,
# and dnsmasq 2.90 answered only every other query dnsdist sent on a TCP connection.
cat >"$work/stub.conf" <<EOF
server:
  username: ""
  chroot: ""
  directory: "$work"
  pidfile: ""
  do-daemonize: no
  use-syslog: no
  interface: 127.0.0.1@$upstream_port
  num-threads: 1
  access-control: 127.0.0.0/8 allow
  incoming-num-tcp: 1000
  module-config: "iterator"
  local-zone: "fwd.test." redirect
  local-data: "fwd.test. 3600 IN A 192.0.2.1"
  local-zone: "miss.test." redirect
  local-data: "miss.test. 3600 IN A 192.0.2.2"
EOF
unbound -c "$work/stub.conf" >"$work/stub.log" 2>&1 &
pids+=($!)
wait_udp $upstream_port

dnsdist_conf() {
    local extra=$1
    cat <<EOF
setSecurityPollSuffix("")
setLocal("127.0.0.1:$dnsdist_udp")
addTLSLocal("127.0.0.1:$dnsdist_tls", "$work/cert.pem", "$work/key.pem", {minTLSVersion="tls1.2"})
addDOHLocal("127.0.0.1:$dnsdist_https", "$work/cert.pem", "$work/key.pem", "/dns-query", {idleTimeout=$idle_timeout, minTLSVersion="tls1.2"})
setTCPRecvTimeout($idle_timeout)
-- No health checks (Pepper has none): the stub is always up.
backend = newServer({address="127.0.0.1:$upstream_port"})
backend:setUp()
getPool(""):setCache(newPacketCache(10000))
$extra
blocked = newCDBKVStore("$work/blocked.cdb", 0)
addAction(KeyValueStoreLookupRule(blocked, KeyValueLookupKeySuffix()), RCodeAction(DNSRCode.NXDOMAIN))
EOF
}

pepper_home="$work/home"
mkdir -p "$pepper_home"
pepper_serve() {
    # exec: the background job's pid is the server's own, for kill and /proc.
    exec env PEPPER_HOME="$pepper_home" "$pepper" dns serve --listen 127.0.0.1:$pepper_udp --upstream 127.0.0.1:$upstream_port \
        --cache-size 10000 --server-name $server_name --tls-listen 127.0.0.1:$pepper_tls \
        --https-listen 127.0.0.1:$pepper_https --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" \
        --idle-timeout "$idle_timeout" --max-connections-per-client 0 "$@" "${pepper_args[@]}" "$work/blocked.txt"
}

# Starts both servers (pepper with options $1, dnsdist with extra configuration $2); sets pid[].
start_servers() {
    local pepper_options=$1 dnsdist_extra=$2 name=$3
    dnsdist_conf "$dnsdist_extra" >"$work/dnsdist-$name.conf"
    dnsdist --supervised --disable-syslog -C "$work/dnsdist-$name.conf" >"$work/dnsdist-$name.log" 2>&1 &
    pid[dnsdist]=$!
    pids+=(${pid[dnsdist]})
    read -r -a options <<<"$pepper_options"
    pepper_serve "${options[@]}" >"$work/pepper-$name.log" 2>&1 &
    pid[pepper]=$!
    pids+=(${pid[pepper]})
    wait_udp $dnsdist_udp
    wait_udp $pepper_udp
}

stop_servers() {
    kill "${pid[dnsdist]}" "${pid[pepper]}"
    wait "${pid[dnsdist]}" "${pid[pepper]}" 2>/dev/null || true
}

echo "==> dnsdist $(dnsdist --version | awk 'NR == 1 { print $2 }') and pepper dns serve"
# Pepper's first start parses the list and saves the engine; the measured one loads it.
pepper_serve >"$work/pepper-first.log" 2>&1 &
first=$!
pids+=($first)
wait_udp $pepper_udp
kill $first
wait $first 2>/dev/null || true
start_servers "" "" main

for label in dnsdist pepper; do
    check_answers "$label UDP" @127.0.0.1 -p "${udp_port[$label]}"
    check_answers "$label DoT" +tls @127.0.0.1 -p "${tls_port[$label]}"
    check_answers "$label DoH POST" +https @127.0.0.1 -p "${https_port[$label]}"
    check_answers "$label DoH GET" +https-get @127.0.0.1 -p "${https_port[$label]}"
    result[$label.rss_start]=$(rss_mb "${pid[$label]}")
    # Warm the cache over every transport (dnsdist keeps UDP and TCP answers apart).
    dnsperf -s 127.0.0.1 -p "${udp_port[$label]}" -d "$work/q-cached.txt" -n 1 -c 1 -q 100 >/dev/null 2>&1 || true
    dnsperf -m dot -s 127.0.0.1 -p "${tls_port[$label]}" -d "$work/q-cached.txt" -n 1 -c 1 -q 100 >/dev/null 2>&1 || true
    h2load -i "$work/uris-cached-$label.txt" -n 1000 -c 1 -m 10 >/dev/null 2>&1 || true
done

echo "    full load"
phase=0
for transport in udp dot doh post h1; do
    for label in $(servers_for $phase); do
        out="$work/$label-$transport-max.out"
        case $transport in
        udp) read -r result[$label.udp.qps] result[$label.udp.lost] < <(dnsperf_max "$out" -p "${udp_port[$label]}") ;;
        dot) read -r result[$label.dot.qps] result[$label.dot.lost] < <(dnsperf_max "$out" -m dot -p "${tls_port[$label]}") ;;
        doh)
            read -r result[$label.doh.qps] result[$label.doh.lost] < <(h2load_max "$out" \
                -i "$work/uris-mixed-$label.txt" -c 4 -m 100)
            ;;
        post)
            read -r result[$label.post.qps] result[$label.post.lost] < <(h2load_max "$out" \
                "https://127.0.0.1:${https_port[$label]}/dns-query" -d "$work/post.bin" \
                -H 'content-type: application/dns-message' -c 4 -m 100)
            ;;
        h1)
            read -r result[$label.h1.qps] result[$label.h1.lost] < <(h2load_max "$out" \
                --h1 -i "$work/uris-mixed-$label.txt" -c 16 -m 1)
            ;;
        esac
    done
    phase=$((phase + 1))
done

echo "    $rate qps: latency and CPU per query"
for transport in udp dot doh; do
    for label in $(servers_for $phase); do
        before=$(cpu_seconds "${pid[$label]}")
        case $transport in
        udp | dot)
            mode=udp port=${udp_port[$label]}
            [ $transport = dot ] && mode=dot port=${tls_port[$label]}
            dnsperf -m $mode -s 127.0.0.1 -p "$port" -d "$work/q-mixed.txt" -l "$seconds" -Q "$rate" -c 4 -q 100 -v \
                >"$work/$label-$transport-rate.out" 2>&1 || true
            after=$(cpu_seconds "${pid[$label]}")
            n=$(awk '/Queries completed:/ { print $3 }' "$work/$label-$transport-rate.out")
            read -r result[$label.$transport.p50] result[$label.$transport.p99] _ \
                < <(percentiles dnsperf "$work/$label-$transport-rate.out")
            ;;
        doh)
            h2load -i "$work/uris-mixed-$label.txt" -c 4 -m 10 --rps $((rate / 4)) -D "$seconds" \
                --log-file="$work/$label-doh-rate.log" >"$work/$label-doh-rate.out" 2>&1 || true
            after=$(cpu_seconds "${pid[$label]}")
            n=$(awk '/^requests:/ { print $8 }' "$work/$label-doh-rate.out")
            read -r result[$label.doh.p50] result[$label.doh.p99] _ < <(percentiles h2load "$work/$label-doh-rate.log")
            ;;
        esac
        result[$label.$transport.cpu]=$(per_query_us "$before" "$after" "${n:-0}")
    done
    phase=$((phase + 1))
done

for label in dnsdist pepper; do
    result[$label.rss_load]=$(rss_mb "${pid[$label]}")
    result[$label.hwm]=$(hwm_mb "${pid[$label]}")
done

echo "    $idle_connections idle DoT connections"
for label in $(servers_for $phase); do
    read -r before held closed opened failed alive per secs < <(python3 "$work/idle_tls.py" "${pid[$label]}" \
        "${tls_port[$label]}" "$idle_connections" 10 "$server_name" 2>"$work/$label-idle.err")
    result[$label.idle.before]=$(python3 -c "print(f'{$before / 1024:.1f}')")
    result[$label.idle.held]=$(python3 -c "print(f'{$held / 1024:.1f}')")
    result[$label.idle.closed]=$(python3 -c "print(f'{$closed / 1024:.1f}')")
    result[$label.idle.per]=$per
    result[$label.idle.open]="$opened/$failed/$alive"
    result[$label.idle.secs]=$secs
done
stop_servers

# The rate limit: the steady client alone, then beside the flood. Records the steady client's
# p50, p99, lost/sent and REFUSED, then (with the flood) the flood's qps answered, its REFUSED
# share, and the server's CPU per flood query.
flood() {
    local label=$1 pid=$2 port=$3
    dnsperf -a 127.0.0.3 -s 127.0.0.1 -p "$port" -d "$work/q-mixed.txt" -l "$seconds" -Q "$steady_rate" -c 1 -q 100 -v \
        >"$work/$label-steady-alone.out" 2>&1 || true
    read -r result[$label.alone.p50] result[$label.alone.p99] _ < <(percentiles dnsperf "$work/$label-steady-alone.out")
    result[$label.alone.lost]=$(awk '/Queries lost:/ { print $3 "/" }' "$work/$label-steady-alone.out")$(awk '/Queries sent:/ { print $3 }' "$work/$label-steady-alone.out")
    result[$label.alone.refused]=$(grep -o 'REFUSED [0-9]*' "$work/$label-steady-alone.out" | awk '{ print $2 }' || true)
    result[$label.alone.refused]=${result[$label.alone.refused]:-0}
    local before after
    before=$(cpu_seconds "$pid")
    dnsperf -a 127.0.0.2 -s 127.0.0.1 -p "$port" -d "$work/q-mixed.txt" -l $((seconds + 2)) -c 4 -q 500 \
        >"$work/$label-flood.out" 2>&1 &
    local flood_pid=$!
    sleep 1
    dnsperf -a 127.0.0.3 -s 127.0.0.1 -p "$port" -d "$work/q-mixed.txt" -l "$seconds" -Q "$steady_rate" -c 1 -q 100 -v \
        >"$work/$label-steady-flood.out" 2>&1 || true
    wait $flood_pid || true
    after=$(cpu_seconds "$pid")
    read -r result[$label.flood.p50] result[$label.flood.p99] _ < <(percentiles dnsperf "$work/$label-steady-flood.out")
    result[$label.flood.lost]=$(awk '/Queries lost:/ { print $3 "/" }' "$work/$label-steady-flood.out")$(awk '/Queries sent:/ { print $3 }' "$work/$label-steady-flood.out")
    result[$label.flood.steady_refused]=$(grep -o 'REFUSED [0-9]*' "$work/$label-steady-flood.out" | awk '{ print $2 }' || true)
    result[$label.flood.steady_refused]=${result[$label.flood.steady_refused]:-0}
    result[$label.flood.qps]=$(awk '/Queries per second:/ { printf "%.0f", $4 }' "$work/$label-flood.out")
    local completed refused
    completed=$(awk '/Queries completed:/ { print $3 }' "$work/$label-flood.out")
    refused=$(grep -o 'REFUSED [0-9]*' "$work/$label-flood.out" | awk '{ print $2 }' || true)
    result[$label.flood.refused]=$(python3 -c "import sys; r, c = float(sys.argv[1] or 0), float(sys.argv[2] or 0); print(f'{r / c * 100:.2f} %' if c else 'n/a')" "${refused:-0}" "${completed:-0}")
    result[$label.flood.cpu]=$(per_query_us "$before" "$after" "${completed:-0}")
}

echo "==> Rate limit: $rate_limit qps per client, burst $rate_burst; steady client at $steady_rate qps"
start_servers "--rate-limit $rate_limit --rate-burst $rate_burst --metrics 127.0.0.1:$pepper_metrics" \
    "addAction(MaxQPSIPRule($rate_limit, 32, 64, $rate_burst), RCodeAction(DNSRCode.REFUSED))" limited
for label in $(servers_for $phase); do
    flood "$label" "${pid[$label]}" "${udp_port[$label]}"
done
result[pepper.flood.metric]=$(python3 -c "
import urllib.request
text = urllib.request.urlopen('http://127.0.0.1:$pepper_metrics/metrics').read().decode()
print(sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith('pepper_dns_rate_limited_total') and 'udp' in l))")
stop_servers

ratio() { python3 -c "import sys; a, b = float(sys.argv[1] or 0), float(sys.argv[2] or 0); print(f'{a / b:.2f}x' if b else 'n/a')" "$1" "$2"; }
r() { echo "${result[$1]:-n/a}"; }

echo
echo "Encrypted DNS benchmark: $names blocked names, $seconds s per phase, $(nproc) cores, loopback, $(date -u +%F)"
echo "pepper dns serve options: ${PEPPER_ARGS:-(defaults: query log on, one thread per core)}"
echo "load average (1, 5, 15 min) at the start: $load_before; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %14s %14s %8s\n' "" "pepper" "dnsdist" "ratio"
row() { printf '%-44s %14s %14s %8s\n' "$1" "$2" "$3" "$4"; }
rrow() { row "$1" "$(r pepper.$2)" "$(r dnsdist.$2)" "$(ratio "$(r pepper.$2)" "$(r dnsdist.$2)")"; }
rrow "UDP qps (lost)" udp.qps
rrow "DoT qps" dot.qps
rrow "DoH HTTP/2 GET qps" doh.qps
rrow "DoH HTTP/2 POST qps (one cached name)" post.qps
rrow "DoH HTTP/1.1 GET qps (16 connections)" h1.qps
row "  lost or failed (UDP/DoT/GET/POST/1.1)" \
    "$(r pepper.udp.lost)/$(r pepper.dot.lost)/$(r pepper.doh.lost)/$(r pepper.post.lost)/$(r pepper.h1.lost)" \
    "$(r dnsdist.udp.lost)/$(r dnsdist.dot.lost)/$(r dnsdist.doh.lost)/$(r dnsdist.post.lost)/$(r dnsdist.h1.lost)" ""
for transport in udp dot doh; do
    row "$transport at $rate qps: p50 / p99 (ms)" "$(r pepper.$transport.p50) / $(r pepper.$transport.p99)" \
        "$(r dnsdist.$transport.p50) / $(r dnsdist.$transport.p99)" ""
    rrow "$transport at $rate qps: server CPU per query (µs)" $transport.cpu
done
rrow "RSS after start (MB)" rss_start
rrow "RSS after the load (MB)" rss_load
rrow "peak RSS (MB)" hwm
row "$idle_connections idle DoT: RSS before / held (MB)" "$(r pepper.idle.before) / $(r pepper.idle.held)" \
    "$(r dnsdist.idle.before) / $(r dnsdist.idle.held)" ""
rrow "  KiB per idle connection" idle.per
row "  RSS 3 s after closing them (MB)" "$(r pepper.idle.closed)" "$(r dnsdist.idle.closed)" ""
row "  opened/failed/still open after 10 s" "$(r pepper.idle.open)" "$(r dnsdist.idle.open)" ""
row "  seconds to open them" "$(r pepper.idle.secs)" "$(r dnsdist.idle.secs)" ""
echo
echo "Rate limit $rate_limit qps, burst $rate_burst per client (plain UDP); steady client $steady_rate qps"
printf '%-44s %14s %14s\n' "" "pepper" "dnsdist"
row "steady alone: p50 / p99 (ms)" "$(r pepper.alone.p50) / $(r pepper.alone.p99)" "$(r dnsdist.alone.p50) / $(r dnsdist.alone.p99)" ""
row "steady alone: lost/sent, REFUSED" "$(r pepper.alone.lost), $(r pepper.alone.refused)" \
    "$(r dnsdist.alone.lost), $(r dnsdist.alone.refused)" ""
row "steady beside flood: p50 / p99 (ms)" "$(r pepper.flood.p50) / $(r pepper.flood.p99)" "$(r dnsdist.flood.p50) / $(r dnsdist.flood.p99)" ""
row "steady beside flood: lost/sent, REFUSED" "$(r pepper.flood.lost), $(r pepper.flood.steady_refused)" \
    "$(r dnsdist.flood.lost), $(r dnsdist.flood.steady_refused)" ""
row "flood: qps answered" "$(r pepper.flood.qps)" "$(r dnsdist.flood.qps)" ""
row "flood: REFUSED share" "$(r pepper.flood.refused)" "$(r dnsdist.flood.refused)" ""
row "flood: server CPU per query (µs)" "$(r pepper.flood.cpu)" "$(r dnsdist.flood.cpu)" ""
row "pepper_dns_rate_limited_total{udp}" "$(r pepper.flood.metric)" "" ""
