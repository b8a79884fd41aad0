#!/usr/bin/env bash
# Checks the systemd units in deploy/ (docs/deploy.md) on a machine where neither they nor Pepper
# are installed, and where systemd need not run (no PID 1 systemd: containers, CI):
#
# - `systemd-analyze verify` on every unit must print nothing: unknown or misspelt settings, bad
#   values and missing dependencies are warnings with exit status 0, so any output fails.
#   verify also checks that every Exec binary exists and is executable. The units run
#   /usr/local/bin/pepper, which this machine need not have, so each unit is verified as a copy
#   in a temporary folder in which that one path is replaced by a stand-in executable (an empty
#   shell script); every other byte is the unit's, and everything else it names (/bin/kill,
#   the targets) is this machine's.
# - `systemd-analyze security --offline=true` (systemd 252 or later) on every service, on the file
#   as it is: its overall exposure is printed, and above MAX_EXPOSURE (2.5) it fails.
# - every timer triggers a service of deploy/, every service runs /usr/local/bin/pepper, and
#   `systemd-sysusers` creates every User= of the units from deploy/sysusers-pepper.conf (in a
#   temporary root: this machine's users are not touched); `systemd-tmpfiles --create` makes the
#   state folders of deploy/tmpfiles-pepper.conf there, owned by those users, mode 0700.
# - every `EnvironmentFile=-/etc/pepper/NAME` of a unit is deploy/NAME, and each of the unit's
#   `Environment="PEPPER_…_OPTIONS=…"` defaults appears there, commented out, word for word (the
#   file shows the default it replaces).
#
# Installs Debian's `systemd` package (systemd-analyze, systemd-sysusers) when systemd-analyze is
# missing; sudo is used when not root. Exit status 0 when every check passes, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

max_exposure=${MAX_EXPOSURE:-2.5}
binary=/usr/local/bin/pepper
export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat SYSTEMD_LOG_COLOR=0

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "==> Installing systemd (for systemd-analyze)"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends systemd >/dev/null
fi
version=$(systemd-analyze --version | awk 'NR == 1 {print $2}')
if ! [[ "$version" =~ ^[0-9]+$ ]] || [ "$version" -lt 252 ]; then
    echo "error: systemd-analyze security --offline needs systemd 252 or later; this is: $(systemd-analyze --version | head -n 1)" >&2
    exit 1
fi

shopt -s nullglob
units=(deploy/*.service deploy/*.timer)
services=(deploy/*.service)
if [ ${#services[@]} -eq 0 ]; then
    echo "error: no unit in deploy/" >&2
    exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin" "$scratch/units" "$scratch/root/etc/sysusers.d"
printf '#!/bin/sh\nexit 0\n' >"$scratch/bin/pepper"
chmod 0755 "$scratch/bin/pepper"

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

echo "systemd $version; units: ${units[*]#deploy/}"

# The binary path is the documented one, and every timer starts a unit that is here.
for unit in "${services[@]}"; do
    grep -q "^ExecStart=$binary " "$unit" || fail "${unit#deploy/}: ExecStart= does not run $binary"
done
# Options files: each one a unit reads is in deploy/, and shows the unit's default as it is.
for unit in "${services[@]}"; do
    while read -r envfile; do
        file="deploy/${envfile#/etc/pepper/}"
        if [[ "$envfile" != /etc/pepper/* ]] || [ ! -f "$file" ]; then
            fail "${unit#deploy/}: EnvironmentFile=-$envfile is not /etc/pepper/NAME with NAME in deploy/"
            continue
        fi
        while IFS= read -r setting; do
            grep -qxF "#$setting" "$file" || fail "$file does not show ${unit#deploy/}'s default as the line: #$setting"
        done < <(sed -n 's/^Environment="\(PEPPER_[A-Z_]*_OPTIONS\)=\(.*\)"$/\1="\2"/p' "$unit")
    done < <(sed -n 's/^EnvironmentFile=-//p' "$unit")
done
for timer in deploy/*.timer; do
    target=$(sed -n 's/^Unit=//p' "$timer")
    target=${target:-$(basename "$timer" .timer).service}
    [ -f "deploy/$target" ] || fail "${timer#deploy/}: it starts $target, which is not in deploy/"
done

# verify: copies whose only change is the binary's path (see above).
for unit in "${units[@]}"; do
    sed "s|$binary|$scratch/bin/pepper|g" "$unit" >"$scratch/units/$(basename "$unit")"
done
for unit in "${units[@]}"; do
    name=$(basename "$unit")
    # --man=no: Documentation= names manual pages of the Debian package, not installed here
    # (scripts/test-deb.sh checks that the package has each).
    if ! output=$(systemd-analyze verify --man=no "$scratch/units/$name" 2>&1) || [ -n "$output" ]; then
        fail "$name: systemd-analyze verify:"
        printf '%s\n' "${output//$scratch\/units\//deploy/}" >&2
    else
        echo "verify    $name: clean"
    fi
done

# security: the unit files themselves.
for unit in "${services[@]}"; do
    name=$(basename "$unit")
    if ! output=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1); then
        fail "$name: systemd-analyze security failed:"
        printf '%s\n' "$output" >&2
        continue
    fi
    exposure=$(printf '%s\n' "$output" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9.]*\).*/\1/p')
    if [ -z "$exposure" ]; then
        fail "$name: no overall exposure in the output of systemd-analyze security:"
        printf '%s\n' "$output" >&2
    elif awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e > m) }'; then
        fail "$name: exposure $exposure is above $max_exposure; what is still open:"
        printf '%s\n' "$output" | grep '^✗' >&2 || true
    else
        echo "security  $name: exposure $exposure (at most $max_exposure)"
    fi
done

# sysusers: the users the units run as.
cp deploy/sysusers-pepper.conf "$scratch/root/etc/sysusers.d/pepper.conf"
if ! output=$(systemd-sysusers --root="$scratch/root" 2>&1); then
    fail "deploy/sysusers-pepper.conf: systemd-sysusers failed:"
    printf '%s\n' "$output" >&2
else
    for unit in "${services[@]}"; do
        user=$(sed -n 's/^User=//p' "$unit")
        if [ -z "$user" ]; then
            fail "${unit#deploy/}: no User="
        elif ! grep -q "^$user:" "$scratch/root/etc/passwd"; then
            fail "${unit#deploy/}: User=$user is not made by deploy/sysusers-pepper.conf"
        fi
    done
    echo "sysusers  sysusers-pepper.conf: makes $(cut -d: -f1 "$scratch/root/etc/passwd" | paste -sd, -)"

    # tmpfiles: the state folders, in the same root (with --root, the file is named as there).
    mkdir -p "$scratch/root/etc/tmpfiles.d"
    cp deploy/tmpfiles-pepper.conf "$scratch/root/etc/tmpfiles.d/pepper.conf"
    if ! output=$(systemd-tmpfiles --create --root="$scratch/root" pepper.conf 2>&1) || [ -n "$output" ]; then
        fail "deploy/tmpfiles-pepper.conf: systemd-tmpfiles --create:"
        printf '%s\n' "$output" >&2
    else
        for unit in "${services[@]}"; do
            user=$(sed -n 's/^User=//p' "$unit")
            folder=/var/lib/$(sed -n 's/^StateDirectory=//p' "$unit")
            # stat names the owner by this machine's users; compare numbers through the root's passwd.
            uid=$(grep "^$user:" "$scratch/root/etc/passwd" | cut -d: -f3)
            if [ "$(stat -c '%a %u' "$scratch/root$folder" 2>/dev/null)" != "700 $uid" ]; then
                fail "deploy/tmpfiles-pepper.conf does not make $folder owned by $user, mode 0700 (${unit#deploy/}'s StateDirectory=)"
            fi
        done
        echo "tmpfiles  tmpfiles-pepper.conf: makes $(sed -n 's/^d \([^ ]*\) .*/\1/p' deploy/tmpfiles-pepper.conf | paste -sd, -)"
    fi
fi

if [ "$failures" -gt 0 ]; then
    echo "error: $failures check(s) of the units in deploy/ failed" >&2
    exit 1
fi
echo "All units in deploy/ verified; every exposure is at most $max_exposure."
