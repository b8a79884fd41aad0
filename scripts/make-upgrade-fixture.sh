#!/usr/bin/env bash
# Writes one upgrade fixture: a Pepper state made by an earlier Pepper's own binary.
#
#   scripts/make-upgrade-fixture.sh PEPPER_BINARY OUT_DIR [COMMIT]
#
# Drives PEPPER_BINARY (an old `pepper`, built from COMMIT) through its own commands to write
# every kind of record it knows, finding out what it knows from its help (`pepper X --help`):
# allowlist entries (permanent, expiring far in the future, already expired), a list source
# added from a local HTTP server (so lists/ holds its copy and out/ is compiled), My rules, call
# block and identification entries (numbers and ## ranges), contacts, message words and
# senders, the SMS guard and contacts-only settings, the DNS query log (its `dns serve` over a
# local dnsmasq, asked with dig), a console session (its `console`, signed in with curl), and a
# Picket store (its `picket import`, `keys create`, `serve`, a strike submitted over HTTP and
# approved, `policy`) in the home's pepper.sqlite and, when PostgreSQL can be started
# (scripts/postgres-server.sh), in PostgreSQL, dumped with pg_dump.
#
# OUT_DIR gets home/ (pepper.sqlite with its WAL checkpointed into it, lists/, out/),
# upgrade-list.txt (the list it compiled), records.tsv (what the upgrade tests check: one record per line, tab-separated),
# picket-postgres.sql when PostgreSQL was used, and MANIFEST.md (which commit, when, every
# command run, what the state holds). Nothing leaves the machine: lists, DNS upstreams and
# servers are on 127.0.0.1.
#
# scripts/make-upgrade-fixtures.sh builds each old commit and runs this for it.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 PEPPER_BINARY OUT_DIR [COMMIT]" >&2
    exit 64
fi
PEPPER=$(realpath "$1")
OUT=$2
COMMIT=${3:-unknown}
REPO=$(cd "$(dirname "$0")/.." && pwd)
for tool in curl dig dnsmasq sqlite3 python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed (bind9-dnsutils, dnsmasq-base, sqlite3, curl)" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/pepper-upgrade-fixture.XXXXXX)
HOMEDIR=$WORK/home
export PEPPER_HOME=$HOMEDIR
# The old binary sees a home of its own: GNOME Web's settings (gsettings) and anything else it
# writes for the desktop stay in the work folder.
export HOME=$WORK/user XDG_CONFIG_HOME=$WORK/user/.config XDG_DATA_HOME=$WORK/user/.local/share XDG_CACHE_HOME=$WORK/user/.cache
export GSETTINGS_BACKEND=memory
mkdir -p "$HOME" "$WORK/www" "$WORK/logs"
unset PEPPER_TEST_POSTGRES_URL

CHILDREN=()
POSTGRES_STARTED=0
cleanup() {
    local pid
    for pid in "${CHILDREN[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${CHILDREN[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$POSTGRES_STARTED" = 1 ]; then pepper_postgres_stop; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

COMMANDS=$WORK/commands.txt
RECORDS=$WORK/records.tsv
: >"$COMMANDS"
: >"$RECORDS"

# A record the tests check (tab-separated fields).
record() { (IFS=$'\t'; echo "$*") >>"$RECORDS"; }
# Runs the old pepper, noting the command; fails the script when it fails.
pep() {
    echo "pepper $*" >>"$COMMANDS"
    "$PEPPER" "$@"
}
# The help of a (sub)command, read whole (a grep -q that stops early would end pepper with
# SIGPIPE, which pipefail counts as a failure).
help_of() { "$PEPPER" "$@" --help 2>/dev/null || true; }
# Whether the old pepper has this (sub)command: an unknown one prints its parent's help.
has() { help_of "$@" | grep -E "^USAGE: pepper $*( |\$)" >/dev/null; }
# Whether a (sub)command's help names an option (or any text).
mentions() {
    local text=$1
    shift
    help_of "$@" | grep -F -- "$text" >/dev/null
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
# Waits until something listens on 127.0.0.1:$1 (TCP).
wait_port() {
    local port=$1 tries=0
    until python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.5); sys.exit(s.connect_ex(('127.0.0.1', $port)))" 2>/dev/null; do
        tries=$((tries + 1))
        [ $tries -lt 240 ] || { echo "error: nothing listens on port $port" >&2; return 1; }
        sleep 0.25
    done
}
# Starts a background command (its output in logs/NAME.log) and remembers its pid.
start() {
    local name=$1
    shift
    "$@" >"$WORK/logs/$name.log" 2>&1 &
    LAST_PID=$!
    CHILDREN+=("$LAST_PID")
}
# Stops a background command with SIGINT (Pepper's servers flush and exit on it) and waits.
stop() {
    local pid=$1 tries=0
    kill -INT "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ]; then kill -KILL "$pid" 2>/dev/null || true; fi
        sleep 0.1
    done
    wait "$pid" 2>/dev/null || true
}

VERSION=$("$PEPPER" --version)
COMMANDS_KNOWN=$("$PEPPER" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}' | tr '\n' ' ')
echo "==> $COMMIT: pepper $VERSION ($COMMANDS_KNOWN)"

# The tiny list every version compiles (ABP syntax), served over HTTP where lists can be added.
cat >"$WORK/www/upgrade-list.txt" <<'EOF'
! Title: Pepper upgrade fixture list
! Expires: 4 days
||ads.upgrade.test^
||tracker.upgrade.test^$third-party
||cdn.upgrade.test/banner.js
@@||ads.upgrade.test/allowed.js
##.upgrade-banner
EOF
HTTP_PORT=$(free_port)
start http python3 -m http.server --bind 127.0.0.1 --directory "$WORK/www" "$HTTP_PORT"
wait_port "$HTTP_PORT"
LIST_URL="http://127.0.0.1:$HTTP_PORT/upgrade-list.txt"

# --- Allowlist ---------------------------------------------------------------------------------
NO_COMPILE=()
if mentions --no-compile allowlist add; then NO_COMPILE=(--no-compile); fi
pep allowlist add permanent-allow.test "${NO_COMPILE[@]}"
record allowlist permanent-allow.test permanent
if mentions --for allowlist add; then
    pep allowlist add future-allow.test --for 520w "${NO_COMPILE[@]}"
    record allowlist future-allow.test future
    pep allowlist add expired-allow.test --for 1s "${NO_COMPILE[@]}"
    record allowlist expired-allow.test expired
    sleep 2
fi

# --- Lists and the output ----------------------------------------------------------------------
if has lists add; then
    pep lists add "$LIST_URL" --name upgrade-list
    record list upgrade-list "$LIST_URL"
else
    # No list sources yet: the output is compiled from the file, which the state does not keep.
    pep compile "$WORK/www/upgrade-list.txt"
    record output compiled-from-file upgrade-list.txt
fi
record blocks https://ads.upgrade.test/ad.js https://elsewhere.test/
record allows https://ads.upgrade.test/allowed.js https://elsewhere.test/

# --- My rules ----------------------------------------------------------------------------------
if has rules add; then
    pep rules add '||myrule.upgrade.test^'
    record rule '||myrule.upgrade.test^'
    record blocks https://myrule.upgrade.test/x.js https://elsewhere.test/
fi

# --- Calls and contacts ------------------------------------------------------------------------
cat >"$WORK/contacts.vcf" <<'EOF'
BEGIN:VCARD
VERSION:3.0
FN:Upgrade Friend
TEL;TYPE=CELL:+1 202 555 0111
END:VCARD
EOF
if has calls block; then
    pep calls block +12025550123
    record call-block +12025550123
    pep calls block '+120255504##'
    record call-block '+120255504##'
    pep calls identify +12025550199 --label Pharmacy
    record call-identify +12025550199 Pharmacy
    pep calls identify '+120255502##' --label Clinic
    record call-identify '+120255502##' Clinic
    if has calls region; then
        pep calls region CA
        record setting phone-region CA
    fi
    if has calls contacts; then
        pep calls contacts "$WORK/contacts.vcf"
        record contact +12025550111
    fi
    if has calls block-all-except-contacts; then
        # On, then off: the setting is stored (off), and the lists still decide.
        pep calls block-all-except-contacts on
        pep calls block-all-except-contacts off
        record setting block-all-except-contacts off
    fi
    # Decisions recorded for the statistics.
    pep calls check +12025550123 --record >/dev/null
    record call-decision +12025550123
fi

# --- Messages ----------------------------------------------------------------------------------
if has sms words add; then
    pep sms words add casino
    record sms-word casino junk
    if mentions --action sms words add; then
        pep sms words add 'weekend sale' --action promotion
        record sms-word 'weekend sale' promotion
    fi
    if mentions --from sms words add; then
        pep sms words add invoice --from 72975 --action transaction
        record sms-sender-word 72975 invoice transaction
    fi
    pep sms senders block +12025550177
    record sms-sender-block +12025550177
    if has sms senders contacts; then
        pep sms senders contacts "$WORK/contacts.vcf"
        record contact +12025550111
    fi
    if has sms contacts-only; then
        pep sms contacts-only on
    else
        pep sms senders contacts-only on
    fi
    record setting contacts-only on
    if has sms guard; then
        # Off, then on: the setting is stored (on), and the rules decide.
        pep sms guard off
        pep sms guard on
        record setting sms-guard on
    fi
    pep sms check --from +12025550177 'hello' --record >/dev/null
    record sms-decision +12025550177
fi
# What this version answers, for the tests to hold the current code to.
if has calls check; then
    for number in +12025550123 +12025550442 +12025550199 +12025550250 +12025550111 +12025550300; do
        verdict=$(pep calls check "$number" --no-record --json)
        record call-verdict "$number" "$(echo "$verdict" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["action"])')" \
            "$(echo "$verdict" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("label") or "")')"
    done
fi
if has sms check; then
    while IFS='|' read -r sender text; do
        verdict=$(pep sms check --from "$sender" "$text" --no-record --json)
        record sms-verdict "$sender" "$text" "$(echo "$verdict" | python3 -c 'import json,sys; print(json.load(sys.stdin)["action"])')"
    done <<'EOF'
+12025550111|see you at dinner
+12025550111|casino night tonight
+12025550111|big weekend sale
+12025550177|hello
+12025550333|hello from a stranger
72975|your invoice is ready
EOF
fi

# --- DNS query log -----------------------------------------------------------------------------
if has dns serve; then
    UPSTREAM_PORT=$(free_port)
    start dnsmasq dnsmasq --keep-in-foreground --no-daemon --port="$UPSTREAM_PORT" --listen-address=127.0.0.1 --bind-interfaces \
        --no-resolv --no-hosts --address=/example.test/192.0.2.1 --address=/upgrade.test/192.0.2.2 --pid-file= --user=root --group=root
    DNSMASQ_PID=$LAST_PID
    DNS_PORT=$(free_port)
    echo "pepper dns serve --listen 127.0.0.1:$DNS_PORT --upstream 127.0.0.1:$UPSTREAM_PORT" >>"$COMMANDS"
    start dns "$PEPPER" dns serve --listen "127.0.0.1:$DNS_PORT" --upstream "127.0.0.1:$UPSTREAM_PORT"
    DNS_PID=$LAST_PID
    wait_port "$DNS_PORT"
    for name in ads.upgrade.test www.example.test; do
        echo "dig @127.0.0.1 -p $DNS_PORT $name A" >>"$COMMANDS"
        answer=$(dig @127.0.0.1 -p "$DNS_PORT" "$name" A +tries=3 +time=2 +noall +comments +answer)
        echo "$answer" >"$WORK/logs/dig-$name.log"
        status=$(echo "$answer" | sed -n 's/.*status: \([A-Z]*\).*/\1/p' | head -1)
        [ -n "$status" ] || { echo "error: no answer from pepper dns serve for $name" >&2; cat "$WORK/logs/dns.log" >&2; exit 1; }
    done
    record dns-query ads.upgrade.test blocked
    record dns-query www.example.test allowed
    stop "$DNS_PID"
    stop "$DNSMASQ_PID"
    pep dns stats --json >"$WORK/dns-stats.json"
fi

# --- Console session ---------------------------------------------------------------------------
if has console; then
    CONSOLE_PORT=$(free_port)
    echo "pepper console --listen 127.0.0.1:$CONSOLE_PORT" >>"$COMMANDS"
    start console "$PEPPER" console --listen "127.0.0.1:$CONSOLE_PORT"
    CONSOLE_PID=$LAST_PID
    wait_port "$CONSOLE_PORT"
    link=""
    for _ in $(seq 1 100); do
        link=$(grep -o 'http://[^ ]*token=[0-9a-f]*' "$WORK/logs/console.log" | head -1 || true)
        [ -n "$link" ] && break
        sleep 0.1
    done
    [ -n "$link" ] || { echo "error: pepper console printed no link" >&2; cat "$WORK/logs/console.log" >&2; exit 1; }
    echo "curl -c cookies.txt <the one-time link>; curl -b cookies.txt http://127.0.0.1:$CONSOLE_PORT/" >>"$COMMANDS"
    curl -s -o /dev/null -c "$WORK/cookies.txt" "$link"
    # Signed in, the console shows a page or leads to one (the setup); without the cookie it
    # answers 401.
    page=$(curl -s -o /dev/null -w '%{http_code}' -b "$WORK/cookies.txt" "http://127.0.0.1:$CONSOLE_PORT/")
    anonymous=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CONSOLE_PORT/")
    if [ "$anonymous" != 401 ] || { [ "$page" != 200 ] && [ "$page" != 303 ]; }; then
        echo "error: the console answered $page with the session cookie and $anonymous without" >&2
        exit 1
    fi
    stop "$CONSOLE_PID"
    cookie=$(awk '!/^#/ && NF >= 7 {print $6 "=" $7}' "$WORK/cookies.txt" | head -1)
    cookie=${cookie:-$(awk '/^#HttpOnly_/ && NF >= 7 {print $6 "=" $7}' "$WORK/cookies.txt" | head -1)}
    [ -n "$cookie" ] || { echo "error: no session cookie" >&2; cat "$WORK/cookies.txt" >&2; exit 1; }
    stored=$(sqlite3 "$HOMEDIR/pepper.sqlite" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'consoleSession'")
    if [ "$stored" = 1 ]; then
        record console-session "$cookie" stored
    else
        # Sessions lived in the console's memory only: the cookie must not sign in after a restart.
        record console-session "$cookie" memory-only
    fi
fi

# --- Picket ------------------------------------------------------------------------------------
# One employer with a domain and an open-ended strike (imported, approved), a strike submitted
# over HTTP and approved, a key with every scope, the demo data and the policy.
cat >"$WORK/picket-import.json" <<'EOF'
{"employers": [{"id": "emp_upgrade", "name": "Upgrade Fixture Corp", "website": "https://struck.upgrade.test",
                "domains": ["struck.upgrade.test"]}],
 "actions": [{"id": "act_upgrade", "employerId": "emp_upgrade", "organization": "Fixture Workers United",
              "actionType": "strike", "location": "Seattle, WA", "startDate": "2026-01-01",
              "description": "On strike until the fixture is read", "coordinates": {"latitude": 47.61, "longitude": -122.34},
              "picketSites": [{"id": "loc_upgrade_gate", "name": "Main gate", "latitude": 47.612, "longitude": -122.331}]}]}
EOF
# picket_fill LABEL [--database ARG]: writes the Picket records into one store.
picket_fill() {
    local label=$1
    shift
    local database=("$@")
    if has picket import; then
        pep picket import "$WORK/picket-import.json" "${database[@]}" >/dev/null
        record "picket-$label" action act_upgrade approved
        record "picket-$label" domain struck.upgrade.test emp_upgrade
    fi
    local scopes=() scope
    # Every scope the version knows (the values its help lists for --scope).
    for scope in $("$PEPPER" picket keys create --help | python3 -c '
import re, sys
text = " ".join(sys.stdin.read().split())
found = re.search(r"--scope <scope> A scope.*?\(values: ([^)]*)\)", text)
print(" ".join(value.strip() for value in found.group(1).split(",")) if found else "")'); do
        scopes+=(--scope "$scope")
    done
    local key
    key=$(pep picket keys create "${scopes[@]}" --label upgrade-fixture --json "${database[@]}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
    record "picket-$label" key "$key"
    local port demo=()
    port=$(free_port)
    if mentions --demo picket serve; then demo=(--demo); fi
    echo "pepper picket serve --listen 127.0.0.1:$port ${demo[*]} ${database[*]}" >>"$COMMANDS"
    start "picket-$label" "$PEPPER" picket serve --listen "127.0.0.1:$port" "${demo[@]}" "${database[@]}"
    local server=$LAST_PID
    wait_port "$port"
    echo "curl -X POST /api/mobile/submit-strike (X-API-Key: the key above)" >>"$COMMANDS"
    local receipt id
    receipt=$(curl -s -f -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' \
        --data '{"employer": {"name": "Submitted Fixture Inc", "website": "https://submitted.upgrade.test"},
                 "action": {"organization": "Fixture Local 1", "actionType": "strike", "location": "Tacoma, WA",
                            "startDate": "2026-02-01", "description": "Submitted by the upgrade fixture"}}' \
        "http://127.0.0.1:$port/api/mobile/submit-strike")
    id=$(echo "$receipt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    pep picket moderate approve "$id" "${database[@]}" >/dev/null
    record "picket-$label" action "$id" approved
    # What the old server serves with the key, once it has seen the approval.
    local served=""
    for _ in $(seq 1 50); do
        served=$(curl -s -f -H "X-API-Key: $key" "http://127.0.0.1:$port/api/mobile/active-strikes" || true)
        echo "$served" | grep -q "$id" && break
        sleep 0.2
    done
    echo "$served" | grep -q "$id" || { echo "error: the old server does not serve the approved strike $id" >&2; exit 1; }
    # A GPS snapshot of the imported strike's picket line, approved.
    echo "curl -X POST /api/mobile/gps-snapshot (X-API-Key: the key above)" >>"$COMMANDS"
    receipt=$(curl -s -f -X POST -H "X-API-Key: $key" -H 'Content-Type: application/json' \
        --data '{"actionId": "act_upgrade", "latitude": 47.6121, "longitude": -122.3312, "notes": "Picket at the main gate"}' \
        "http://127.0.0.1:$port/api/mobile/gps-snapshot")
    id=$(echo "$receipt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    pep picket moderate approve "$id" "${database[@]}" >/dev/null
    record "picket-$label" snapshot "$id" act_upgrade
    stop "$server"
}
if has picket serve; then
    picket_fill sqlite
    if has picket policy; then
        # block: not the default (ask), so that losing it would show.
        pep picket policy block >/dev/null
        record setting picket-policy block
    fi
    if mentions postgres picket serve; then
        # shellcheck source=postgres-server.sh
        source "$REPO/scripts/postgres-server.sh"
        pepper_postgres_start >/dev/null
        POSTGRES_STARTED=1
        psql -q "$PEPPER_TEST_POSTGRES_URL" -c 'CREATE DATABASE picket_fixture'
        PG_URL=${PEPPER_TEST_POSTGRES_URL%/postgres}/picket_fixture
        picket_fill postgres --database "$PG_URL"
        echo "pg_dump --no-owner --no-privileges (the picket_fixture database)" >>"$COMMANDS"
        pg_dump --no-owner --no-privileges "$PG_URL" >"$WORK/picket-postgres.sql"
        pepper_postgres_stop
        POSTGRES_STARTED=0
    fi
fi

# --- The fixture -------------------------------------------------------------------------------
sqlite3 "$HOMEDIR/pepper.sqlite" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT/home"
# Everything the old Pepper left in its home (out/ may be a link to a generation folder beside
# it), but the SQLite log and index (checkpointed into pepper.sqlite above) and the lock files.
cp -a "$HOMEDIR/." "$OUT/home/"
find "$OUT/home" \( -name '*.lock' -o -name '*-wal' -o -name '*-shm' -o -name '*.migration-lock' \) -delete
# Empty folders (lists/ before lists existed, run/) too: git keeps none, and the state makes them.
find "$OUT/home" -mindepth 1 -type d -empty -delete
if [ -L "$OUT/home/out" ]; then
    # Only the generation out/ points to.
    current=$(readlink "$OUT/home/out")
    find "$OUT/home" -maxdepth 1 -name '.out.*' ! -name "$current" -exec rm -rf {} +
fi
cp "$RECORDS" "$OUT/records.tsv"
cp "$WORK/www/upgrade-list.txt" "$OUT/upgrade-list.txt"
if [ -f "$WORK/picket-postgres.sql" ]; then cp "$WORK/picket-postgres.sql" "$OUT/"; fi

migrations=$(sqlite3 "$OUT/home/pepper.sqlite" 'SELECT identifier FROM grdb_migrations ORDER BY rowid' | sed 's/^/- /')
tables=$(sqlite3 "$OUT/home/pepper.sqlite" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name" |
    while read -r table; do echo "- $table: $(sqlite3 "$OUT/home/pepper.sqlite" "SELECT COUNT(*) FROM \"$table\"") rows"; done)
{
    echo "# Upgrade fixture $(basename "$OUT")"
    echo
    echo "Made by Pepper's own \`pepper\` built from commit $COMMIT"
    if git -C "$REPO" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
        subject=$(git -C "$REPO" log -1 --format=%s "$COMMIT")
        [ ${#subject} -le 120 ] || subject="${subject:0:120}…"
        echo "($(git -C "$REPO" log -1 --format=%ad --date=iso "$COMMIT"), \"$subject\")"
    fi
    echo "with \`scripts/make-upgrade-fixture.sh\` on $(date -u +%Y-%m-%dT%H:%M:%SZ) (\`pepper --version\`: $VERSION)."
    echo "Its commands: $COMMANDS_KNOWN"
    echo
    echo "## Migrations applied (in the order this version applied them)"
    echo
    echo "$migrations"
    echo
    echo "## Tables"
    echo
    echo "$tables"
    echo
    echo "## Files"
    echo
    (cd "$OUT" && find . \( -type f -o -type l \) ! -name MANIFEST.md | sort | while read -r file; do
        if [ -L "$file" ]; then echo "- \`${file#./}\`: a link to \`$(readlink "$file")\`"; else echo "- \`${file#./}\`: $(stat -c %s "$file") bytes"; fi
    done)
    echo
    echo "## Not written"
    echo
    echo "- The browser's history and settings (browserHistory, browserSetting, where the version has them): only"
    echo "  the GUI browser (\`pepper browse\`) writes them."
    if ! has calls block; then echo "- No call lists: this version has no \`pepper calls\`."; fi
    if ! has sms words add; then echo "- No message rules: this version has no \`pepper sms\`."; fi
    if ! has dns serve; then echo "- No DNS query log: this version has no \`pepper dns serve\`."; fi
    if ! has console; then echo "- No console session: this version has no \`pepper console\`."; fi
    if ! has picket serve; then echo "- No Picket records: this version has no \`pepper picket\` (its tables, if any, are as its migration made them)."; fi
    if ! has rules add; then echo "- No My rules: this version has no \`pepper rules\`."; fi
    if ! has lists add; then echo "- No list source: this version has no \`pepper lists\`; out/ was compiled from upgrade-list.txt, which the state does not keep."; fi
    echo
    echo "## Records (records.tsv, what the upgrade tests check)"
    echo
    sed 's/^/    /' "$RECORDS"
    echo
    echo "## Commands run (in order)"
    echo
    sed "s/^/    /; s|$WORK|\$WORK|g" "$COMMANDS"
    if [ -f "$WORK/dns-stats.json" ]; then
        echo
        echo "## \`pepper dns stats --json\` after the queries"
        echo
        sed 's/^/    /' "$WORK/dns-stats.json"
    fi
} >"$OUT/MANIFEST.md"
echo "==> $OUT: $(du -sh "$OUT" | cut -f1)"
