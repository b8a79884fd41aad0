#!/usr/bin/env bash
# Makes every upgrade fixture under Tests/Fixtures/upgrade again, each with the `pepper` of the
# commit that first shipped its schema (Tests/Fixtures/README.md lists them and why).
#
#   scripts/make-upgrade-fixtures.sh [BUILD_DIR]
#
# Checks each commit out in BUILD_DIR (default /tmp/pepper-old-builds: a clone of this
# repository outside it, moved from commit to commit so that builds reuse what they can), builds
# its `pepper` (debug), keeps the binary in BUILD_DIR/bin/COMMIT, and runs
# scripts/make-upgrade-fixture.sh with it. A first build takes 10-25 minutes, each later one
# about a minute. Needs what make-upgrade-fixture.sh needs (curl, dig, dnsmasq, sqlite3) and
# PostgreSQL for the Picket dumps (scripts/postgres-server.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD=${1:-/tmp/pepper-old-builds}

# NUMBER COMMIT NAME: the fixture folder is NUMBER-COMMIT-NAME (the migration the commit added).
# Branches were developed side by side, so some commits applied a later migration without an
# earlier one of another branch (74f0707 has v-calls-1 without v2; 9ba7fd2 v-picket-1 without
# v-browser-1; 14a0ce0 v-dns-1 without v-picket-1 and v-calls-2; 531cfdf v-console-3 without
# v-picket-3): those states are kept too. The merges name where each first reached main.
# 5944262, which added v-console-3-sessions, does not build (its ConsoleGuard passes a ByteBuffer
# where its FormData takes Data): 531cfdf, the next commit of that branch, stands for it.
FIXTURES=(
    "01 3bf3597 v1-allowlist-and-list-sources"
    "02 74f0707 v-calls-1-lists-messages-decisions"
    "03 897ab01 v2-list-catalogue-and-temporary-allowlist"
    "04 f2329db v-calls-1-on-main"
    "05 369f7e6 v-browser-1-history-and-settings"
    "06 9ba7fd2 v-picket-1-server-and-policy"
    "07 b246439 v-picket-1-on-main"
    "08 14a0ce0 v-dns-1-query-log-and-counters"
    "09 8fe0493 v-calls-2-change-history-floor"
    "10 2e4f2c9 v-dns-1-on-main"
    "11 a43e464 v-console-1-rules-preferences-daily-counts"
    "12 532927a v-picket-2-and-v-console-2"
    "13 531cfdf v-console-3-sessions"
    "14 8004861 v-picket-3-content-time"
    "15 783125f v-console-3-on-main"
    "16 617178b v-browser-2-site-block-counts"
    "17 601786c v-calls-3-message-rule-revision"
    "18 aa62dc7 v-sync-1-records"
    "19 34390cd v-dns-2-device-names"
    "20 de892c7 v-sync-2-outbox-and-devices"
)

if [ ! -d "$BUILD/src/.git" ]; then
    mkdir -p "$BUILD"
    git clone -q --shared "$REPO" "$BUILD/src"
fi
git -C "$BUILD/src" fetch -q "$REPO" '+refs/heads/*:refs/remotes/origin/*'
for fixture in "${FIXTURES[@]}"; do
    read -r number commit name <<<"$fixture"
    binary=$BUILD/bin/$commit/pepper
    if [ ! -x "$binary" ]; then
        echo "==> building $commit"
        (
            cd "$BUILD/src"
            git checkout -q --detach --force "$commit"
            git clean -qfdx -e .build
            swift build --product pepper >"$BUILD/build-$commit.log" 2>&1 || { tail -20 "$BUILD/build-$commit.log" >&2; exit 1; }
            mkdir -p "$BUILD/bin/$commit"
            cp "$(swift build --product pepper --show-bin-path)/pepper" "$binary"
        )
    fi
    scripts/make-upgrade-fixture.sh "$binary" "Tests/Fixtures/upgrade/$number-$commit-$name" "$commit"
done
