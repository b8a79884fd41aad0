#!/usr/bin/env bash
# The allowlist change that must feel instant: `pepper allowlist add example.com`, whole
# command, over a state with EasyList and EasyPrivacy (112,349 WebKit rules) compiled, timed by
# hyperfine (the entry is removed again before each run).
#
#   bench/allowlist.sh [RUNS (default 20)]
#
# PEPPER_BIN: the pepper to time (default .build/release/pepper), e.g. a build of an older
# commit to compare in the same run. Needs: hyperfine. The lists: ../shared/data/filters when
# it is there, else the copies vendored in Tests/Fixtures/filters (the same lists).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
pepper=${PEPPER_BIN:-.build/release/pepper}
filters=../shared/data/filters
[ -f "$filters/easylist.txt" ] || filters=Tests/Fixtures/filters
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
[ -x "$pepper" ] || { echo "error: $pepper missing: swift build -c release --product pepper" >&2; exit 1; }
[ -f "$filters/easylist.txt" ] || { echo "error: $filters/easylist.txt missing" >&2; exit 1; }
home=$(mktemp -d /tmp/pepper-allowlist-bench.XXXXXX)
trap 'rm -rf "$home"' EXIT
export PEPPER_HOME=$home
# The built-in lists would be downloaded: the same lists from the local copies instead.
"$pepper" lists disable easylist --no-compile >/dev/null
"$pepper" lists disable easyprivacy --no-compile >/dev/null
"$pepper" lists add "$filters/easylist.txt" --name el --no-compile >/dev/null
"$pepper" lists add "$filters/easyprivacy.txt" --name ep >/dev/null
echo "pepper: $pepper; $("$pepper" lists | grep -c enabled) lists enabled"
hyperfine --style basic --runs "$runs" --warmup 2 \
    --prepare "'$pepper' allowlist remove example.com >/dev/null 2>&1 || true" \
    "'$pepper' allowlist add example.com"
