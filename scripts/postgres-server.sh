#!/usr/bin/env bash
# A throwaway PostgreSQL server for Pepper's tests and benchmarks.
#
#   source scripts/postgres-server.sh
#   pepper_postgres_start        # exports PEPPER_TEST_POSTGRES_URL=postgres://pepper@127.0.0.1:PORT/postgres
#   ...
#   pepper_postgres_stop         # also run at exit if you trap it
#   "$PEPPER_POSTGRES_DIR/ctl" stop|start|restart   # the same server down and up again
#
# Installs Debian's `postgresql` if its binaries are missing (sudo when not root), initialises a
# cluster in a temporary folder (as the `postgres` user when running as root: PostgreSQL refuses
# to run as root), and starts it on a free loopback port with durability turned off (fsync off:
# test data need not survive a crash). Nothing outside the temporary folder is touched.

pepper_postgres_bin() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"; return 0
    fi
    return 1
}

pepper_postgres_start() {
    local bin sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if ! bin=$(pepper_postgres_bin); then
        echo "==> Installing postgresql"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
        bin=$(pepper_postgres_bin) || { echo "error: PostgreSQL binaries not found after installing postgresql" >&2; return 1; }
    fi
    PEPPER_POSTGRES_DIR=$(mktemp -d /tmp/pepper-postgres.XXXXXX)
    local run=()
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/false postgres
        chown postgres "$PEPPER_POSTGRES_DIR"
        run=(runuser -u postgres --)
        if [ ! -c /dev/null ]; then
            # Some sandboxes have a plain file at /dev/null that only root may write, which breaks
            # initdb; give PostgreSQL a real null device in a private mount namespace.
            mknod -m 666 "$PEPPER_POSTGRES_DIR/null" c 1 3
            run=(unshare -m sh -c 'mount --bind "$0" /dev/null && exec "$@"' "$PEPPER_POSTGRES_DIR/null" runuser -u postgres --)
        fi
    fi
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    if ! "${run[@]}" "$bin/initdb" -D "$PEPPER_POSTGRES_DIR/data" -U pepper --auth=trust -E UTF8 --no-locale >"$PEPPER_POSTGRES_DIR/initdb.log" 2>&1; then
        cat "$PEPPER_POSTGRES_DIR/initdb.log" >&2
        return 1
    fi
    if ! "${run[@]}" "$bin/pg_ctl" -D "$PEPPER_POSTGRES_DIR/data" -l "$PEPPER_POSTGRES_DIR/server.log" -w -t 60 \
        -o "-p $port -k $PEPPER_POSTGRES_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >/dev/null; then
        cat "$PEPPER_POSTGRES_DIR/server.log" >&2
        return 1
    fi
    PEPPER_POSTGRES_PG_CTL=("${run[@]}" "$bin/pg_ctl")
    # `$PEPPER_POSTGRES_DIR/ctl stop|start|restart` stops and starts this very server again (same
    # port and settings), for the tests of an outage (docs/reliability.md).
    {
        echo '#!/bin/sh'
        printf 'exec'
        printf ' %q' "${run[@]}" "$bin/pg_ctl" -D "$PEPPER_POSTGRES_DIR/data" -l "$PEPPER_POSTGRES_DIR/server.log" -w -t 60 -m fast \
            -o "-p $port -k $PEPPER_POSTGRES_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        echo ' "$@"'
    } >"$PEPPER_POSTGRES_DIR/ctl"
    chmod +x "$PEPPER_POSTGRES_DIR/ctl"
    export PEPPER_TEST_POSTGRES_URL="postgres://pepper@127.0.0.1:$port/postgres"
    echo "==> PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($PEPPER_POSTGRES_DIR)"
}

pepper_postgres_stop() {
    if [ -n "${PEPPER_POSTGRES_DIR:-}" ] && [ -d "$PEPPER_POSTGRES_DIR/data" ]; then
        "${PEPPER_POSTGRES_PG_CTL[@]}" -D "$PEPPER_POSTGRES_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$PEPPER_POSTGRES_DIR"
    fi
    PEPPER_POSTGRES_DIR=""
}
