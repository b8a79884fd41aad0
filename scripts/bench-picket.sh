#!/usr/bin/env bash
# The Picket API benchmark (docs/benchmarks.md): wrk against `pepper picket serve` on SQLite and
# PostgreSQL. Installs wrk from Debian if missing, builds in release mode, starts a throwaway
# PostgreSQL server (scripts/postgres-server.sh) and stops it at exit. Extra arguments go to
# `pepper-bench picket` (e.g. --duration 20 --connections 64).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null 2>&1; then
    echo "==> Installing wrk"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends wrk >/dev/null
fi

echo "==> swift build -c release"
swift build -c release --product pepper
swift build -c release --product pepper-bench

source scripts/postgres-server.sh
pepper_postgres_start
trap pepper_postgres_stop EXIT

.build/release/pepper-bench picket --postgres-url "$PEPPER_TEST_POSTGRES_URL" "$@"
