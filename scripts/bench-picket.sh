#!/usr/bin/env bash
# The Picket API benchmarks (docs/benchmarks.md), with wrk:
#
#   scripts/bench-picket.sh [ARGS]             `pepper picket serve` on SQLite and PostgreSQL
#                                              (pepper-bench picket: data and blocklist.json, 200 and 304)
#   scripts/bench-picket.sh --cluster [ARGS]   HAProxy (deploy/haproxy-picket.cfg) in front of 1, 2
#                                              and 3 servers on one PostgreSQL (pepper-bench picket-cluster)
#
# Installs wrk (and HAProxy for --cluster) from Debian if missing, builds in release mode, starts a
# throwaway PostgreSQL server (scripts/postgres-server.sh) and stops it at exit. Extra arguments go
# to pepper-bench (e.g. --duration 20 --connections 64).
set -euo pipefail
cd "$(dirname "$0")/.."

command=picket
packages=(wrk)
if [ "${1:-}" = "--cluster" ]; then
    shift
    command=picket-cluster
    packages+=(haproxy)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "==> Installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "==> swift build -c release"
swift build -c release --product pepper
swift build -c release --product pepper-bench

source scripts/postgres-server.sh
pepper_postgres_start
trap pepper_postgres_stop EXIT

.build/release/pepper-bench "$command" --postgres-url "$PEPPER_TEST_POSTGRES_URL" "$@"
