#!/usr/bin/env bash
# The Debian package, installed and used in a fresh Debian 12 (bookworm) root (README.md, Install;
# docs/deploy.md). scripts/test.sh runs it.
#
#  1. scripts/package-deb.sh --configuration debug --lintian: both packages from the tests' debug
#     objects (linking them with --static-swift-stdlib relinks only), lintian without error.
#  2. A fresh root: debootstrap --variant=minbase once, kept as a tarball in the cache folder
#     (${XDG_CACHE_HOME:-$HOME/.cache}/pepper/), unpacked anew into a temporary folder each run.
#  3. In it (chroot, /proc and /dev mounted, always unmounted on exit): `apt-get install
#     ./pepper_….deb` (its dependencies from the Debian mirror), then as the user pepper on
#     /var/lib/pepper: `pepper compile` (the embedded starter list), `pepper dns serve` on a free
#     loopback port (upstream: a port where nothing answers) answering dig with NXDOMAIN for the
#     starter list's names, `pepper console` whose one-time link curl opens (once: the second
#     time it is refused), and `systemd-analyze verify` on the installed units.
#  4. `apt-get install --reinstall` (an upgrade's steps): an edited /etc/pepper/dns.env and the
#     state stay; `apt-get remove pepper`: the binary is gone, the state and /etc/pepper (with
#     the edit) stay; `apt-get purge pepper`: both gone.
#
# It needs root (or sudo without a password), mounts (proc, bind) and the Debian mirror. Where
# one is missing it is skipped with the reason (exit 0), unless PEPPER_REQUIRE_DEB=1, which
# scripts/test.sh sets when `scripts/test-deb.sh --probe` succeeds: then it fails. --probe
# checks only that, prints the reason when it cannot run, and exits 1 then.
#
# Time, measured on the project's 2-core machine while three other builds ran (2026-11-28; each
# step prints its own): 5 min 13 s the first time (packaging and lintian 133 s, debootstrap
# 121 s, unpacking 4 s, apt-get update and install of 49 packages 31 s, the checks 12 s) and
# 5 min 16 s with the cached root (packaging and lintian 248 s on a busier machine, install 30 s);
# 70 s for a given release .deb (PEPPER_DEB_FILE). The tarball of the root is 164 MB.
#
# Environment: PEPPER_DEB_MIRROR (default http://deb.debian.org/debian), PEPPER_DEB_CACHE (the
# cache folder), PEPPER_DEB_CONFIGURATION (debug, or release to test a release build),
# PEPPER_DEB_SCRATCH_PATH (swift build's build folder, default .build), PEPPER_DEB_FILE (test
# this pepper_….deb instead of building one; lintian is then not run).
set -euo pipefail
cd "$(dirname "$0")/.."

mirror=${PEPPER_DEB_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
cache=${PEPPER_DEB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pepper}
architecture=$(dpkg --print-architecture 2>/dev/null || echo amd64)
tarball="$cache/debian-$suite-minbase-$architecture.tar"
configuration=${PEPPER_DEB_CONFIGURATION:-debug}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"

# Why this machine cannot run the test, or nothing when it can.
cannot_run() {
    if [ -n "$sudo" ] && ! sudo -n true 2>/dev/null; then
        echo "not root, and sudo asks for a password"
        return
    fi
    for tool in debootstrap chroot mount dig curl dpkg-deb; do
        command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || {
            echo "$tool is not installed"
            return
        }
    done
    local probe error
    probe=$(mktemp -d)
    mkdir -p "$probe/proc" "$probe/dev"
    if ! error=$($sudo mount -t proc proc "$probe/proc" 2>&1); then
        rm -rf "$probe"
        echo "cannot mount /proc in a folder ($(printf '%s' "$error" | tr -s '\n ' '  '))"
        return
    fi
    $sudo umount "$probe/proc"
    if ! error=$($sudo mount --bind /dev "$probe/dev" 2>&1); then
        rmdir "$probe/proc" "$probe/dev" "$probe"
        echo "cannot bind-mount /dev ($(printf '%s' "$error" | tr -s '\n ' '  '))"
        return
    fi
    $sudo umount "$probe/dev"
    rmdir "$probe/proc" "$probe/dev" "$probe"
    if ! curl -sfI --max-time 20 "$mirror/dists/$suite/Release" >/dev/null; then
        echo "the Debian mirror $mirror does not answer"
        return
    fi
}

reason=$(cannot_run)
if [ "${1:-}" = --probe ]; then
    [ -z "$reason" ] || { echo "$reason"; exit 1; }
    exit 0
fi
if [ -n "$reason" ]; then
    if [ "${PEPPER_REQUIRE_DEB:-}" = 1 ]; then
        echo "FAIL: the Debian package test cannot run: $reason" >&2
        exit 1
    fi
    echo "==> Debian package test skipped: $reason"
    exit 0
fi

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
# Each step's name, then its time when the next one begins.
test_started=$(date +%s)
step_started=""
step() {
    local now
    now=$(date +%s)
    [ -z "$step_started" ] || echo "    ($((now - step_started)) s)"
    step_started=$now
    echo "==> deb: $*"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/pepper-deb.XXXXXX")
root="$work/root"
pids=()
cleanup() {
    local pid mount
    for pid in "${pids[@]}"; do $sudo kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do $sudo kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        $sudo kill -KILL "$pid" 2>/dev/null || true
    done
    # Every mount under the root, deepest first; the folder goes only when none is left, and
    # rm never crosses into another file system (the host's /dev stays out of reach).
    for mount in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts | sort -r); do
        $sudo umount "$mount" 2>/dev/null || $sudo umount -l "$mount" || true
    done
    if awk -v r="$root" '$2 == r || index($2, r "/") == 1 {found = 1} END {exit !found}' /proc/mounts; then
        echo "warning: $root still has mounts; left in place" >&2
    else
        $sudo rm -rf --one-file-system "$work"
    fi
}
trap cleanup EXIT

# Runs a command in the root as root, with a clean environment.
in_root() {
    $sudo chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}
# The command line that runs a command in the root as the user pepper, on the state the services
# use (an array, not a function: started in the background, its pid is then the program's).
as_pepper=()
# A loopback port free for both UDP and TCP.
free_port() {
    python3 -c '
import socket
while True:
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM); t.bind(("127.0.0.1", 0)); port = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        u.close(); t.close()
'
}
# Waits up to $2 seconds for the file $1 to contain the pattern $3.
wait_for() {
    local deadline=$(($(date +%s) + $2))
    until grep -q "$3" "$1" 2>/dev/null; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

echo "==> deb: the Debian package in a fresh Debian 12 root ($work)"

# --- 1. The packages -------------------------------------------------------------------------
if [ -n "${PEPPER_DEB_FILE:-}" ]; then
    deb=$PEPPER_DEB_FILE
    step "testing $deb"
else
    step "scripts/package-deb.sh --configuration $configuration --compression gzip --lintian"
    # gzip: xz takes a minute longer on a debug binary, and the contents are what is tested.
    scripts/package-deb.sh --configuration "$configuration" ${PEPPER_DEB_SCRATCH_PATH:+--scratch-path "$PEPPER_DEB_SCRATCH_PATH"} \
        --compression gzip --output "$work/debs" --lintian
    deb=$(ls "$work"/debs/pepper_*.deb)
fi
version=$(dpkg-deb -f "$deb" Version)

# --- 2. The root -----------------------------------------------------------------------------
if [ ! -f "$tarball" ]; then
    step "debootstrap --variant=minbase $suite (once: kept as $tarball)"
    fresh="$work/fresh"
    $sudo debootstrap --variant=minbase "$suite" "$fresh" "$mirror" >"$work/debootstrap.log" 2>&1 || {
        tail -n 20 "$work/debootstrap.log" >&2
        echo "FAIL: debootstrap failed (log above)" >&2
        exit 1
    }
    # The downloaded packages are not part of the system (apt-get clean would remove them too).
    $sudo find "$fresh/var/cache/apt/archives" -name '*.deb' -delete
    mkdir -p "$cache"
    $sudo tar --numeric-owner -C "$fresh" -cf - . >"$tarball.$$"
    mv "$tarball.$$" "$tarball"
    $sudo rm -rf --one-file-system "$fresh"
fi
step "a fresh root from $tarball ($(du -h "$tarball" | cut -f1))"
$sudo mkdir "$root"
$sudo tar --numeric-owner -C "$root" -xpf "$tarball"
$sudo mount -t proc proc "$root/proc"
$sudo mount --bind /dev "$root/dev"
$sudo cp /etc/resolv.conf "$root/etc/resolv.conf"
# Nothing started by a package's scripts in the root (Debian's convention for chroots).
printf '#!/bin/sh\nexit 101\n' | $sudo tee "$root/usr/sbin/policy-rc.d" >/dev/null
$sudo chmod 0755 "$root/usr/sbin/policy-rc.d"
$sudo cp "$deb" "$root/tmp/"

# --- 3. Install and use ----------------------------------------------------------------------
step "apt-get update; apt-get install ./$(basename "$deb")"
in_root apt-get update -qq
if ! in_root apt-get install -y -q "./tmp/$(basename "$deb")" >"$work/install.log" 2>&1; then
    tail -n 30 "$work/install.log" >&2
    echo "FAIL: apt-get install failed (log above)" >&2
    exit 1
fi
new=$(sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$work/install.log")
echo "    $(wc -w <<<"$new") packages set up: $(echo $new)"
installed=$(in_root dpkg-query -W -f='${Status} ${Version}' pepper)
[ "$installed" = "install ok installed $version" ] || fail "dpkg says '$installed' after the install"
printed=$(in_root pepper --version | awk 'NR == 1 {print $1}')
[ "$printed" = "${version%-*}" ] || fail "pepper --version printed '$printed', not ${version%-*}"
for user in pepper pepper-picket; do
    in_root getent passwd "$user" >/dev/null || fail "postinst did not make the user $user"
done
for folder in pepper pepper-picket; do
    owner=$(in_root stat -c '%U %a' "/var/lib/$folder" 2>/dev/null) || owner=missing
    [ "$owner" = "$folder 700" ] || fail "/var/lib/$folder is '$owner', not '$folder 700'"
done
for file in /usr/bin/pepper /usr/lib/systemd/system/pepper-dns.service /usr/lib/sysusers.d/pepper.conf \
    /usr/lib/tmpfiles.d/pepper.conf /etc/pepper/dns.env /etc/pepper/console.env /etc/pepper/picket.env \
    /usr/share/bash-completion/completions/pepper /usr/share/zsh/vendor-completions/_pepper \
    /usr/share/fish/vendor_completions.d/pepper.fish /usr/share/man/man1/pepper.1.gz \
    /usr/share/man/man1/pepper.dns.serve.1.gz /usr/share/doc/pepper/copyright; do
    $sudo test -s "$root$file" || fail "$file is not installed"
done
[ "$($sudo stat -c %a "$root/etc/pepper/picket.env")" = 600 ] || fail "/etc/pepper/picket.env is readable by others than root"
grep -q '^ExecStart=/usr/bin/pepper dns serve \$PEPPER_DNS_OPTIONS$' "$root/usr/lib/systemd/system/pepper-dns.service" ||
    fail "pepper-dns.service does not run /usr/bin/pepper"
# Enabled the Debian way (links made by deb-systemd-helper even without a running systemd).
for link in multi-user.target.wants/pepper-dns.service timers.target.wants/pepper-update.timer; do
    $sudo test -L "$root/etc/systemd/system/$link" || fail "postinst did not enable ${link#*/} ($link)"
done
$sudo test ! -e "$root/etc/systemd/system/multi-user.target.wants/pepper-console.service" ||
    fail "postinst enabled pepper-console.service, which is installed disabled"
# shellcheck disable=SC2206 # $sudo is "", or "sudo -n": two words on purpose.
as_pepper=($sudo chroot --userspec="$(in_root id -u pepper):$(in_root id -g pepper)" "$root" /usr/bin/env -i
    PATH=/usr/bin:/bin HOME=/var/lib/pepper LC_ALL=C.UTF-8 PEPPER_HOME=/var/lib/pepper)

step "pepper compile (the embedded starter list), as pepper on /var/lib/pepper"
if output=$("${as_pepper[@]}" pepper compile 2>&1); then
    printf '%s\n' "$output" | sed -n '1,4p'
    $sudo test -s "$root/var/lib/pepper/out/manifest.json" || fail "pepper compile wrote no /var/lib/pepper/out/manifest.json"
    grep -q 'pepper-starter' <<<"$output" || fail "pepper compile did not compile the starter list: $output"
else
    fail "pepper compile failed: $output"
fi

step "pepper dns serve on a free loopback port, asked by dig"
dns_port=$(free_port)
dead_port=$(free_port)
"${as_pepper[@]}" pepper dns serve --listen "127.0.0.1:$dns_port" --upstream "127.0.0.1:$dead_port" >"$work/dns.log" 2>&1 &
pids+=($!)
if wait_for "$work/dns.log" 30 'listening on'; then
    sed -n '1p' "$work/dns.log"
    for name in doubleclick.net www.doubleclick.net google-analytics.com; do
        answer=$(dig @127.0.0.1 -p "$dns_port" +tries=1 +time=5 "$name" A)
        grep -q 'status: NXDOMAIN' <<<"$answer" && echo "    $name: NXDOMAIN" ||
            fail "dig $name: not NXDOMAIN: $(grep -m1 'status:' <<<"$answer" || echo 'no answer')"
    done
    # A name the list does not block goes to the upstream, where nothing answers: not NXDOMAIN.
    answer=$(dig @127.0.0.1 -p "$dns_port" +tries=1 +time=10 example.org A)
    status=$(grep -o 'status: [A-Z]*' <<<"$answer" || echo 'no answer')
    [ "$status" != "status: NXDOMAIN" ] && echo "    example.org (not blocked; no upstream): $status" ||
        fail "example.org, which no list blocks, was answered NXDOMAIN"
    answer=$(dig @127.0.0.1 -p "$dns_port" +tcp +tries=1 +time=5 doubleclick.net A)
    grep -q 'status: NXDOMAIN' <<<"$answer" && echo "    doubleclick.net over TCP: NXDOMAIN" || fail "dig +tcp doubleclick.net: not NXDOMAIN"
else
    fail "pepper dns serve did not start within 30 s: $(cat "$work/dns.log")"
fi
$sudo kill "${pids[-1]}" 2>/dev/null || true
wait "${pids[-1]}" 2>/dev/null || true

step "pepper console on a free loopback port, its one-time link opened by curl"
console_port=$(free_port)
"${as_pepper[@]}" pepper console --listen "127.0.0.1:$console_port" >"$work/console.log" 2>&1 &
pids+=($!)
if wait_for "$work/console.log" 30 'open http://'; then
    link=$(grep -o 'http://[^ ]*token=[^ ]*' "$work/console.log" | head -n 1)
    echo "    link: ${link%%token=*}token=…"
    code=$(curl -s -o "$work/page.html" -w '%{http_code}' -c "$work/cookies" -b "$work/cookies" -L --max-time 20 "$link")
    if [ "$code" = 200 ] && grep -qi '<title>[^<]*Pepper' "$work/page.html"; then
        echo "    the link: 200, $(grep -o '<title>[^<]*</title>' "$work/page.html" | head -n 1)"
    else
        fail "the console's link answered $code: $(head -c 300 "$work/page.html")"
    fi
    code=$(curl -s -o /dev/null -w '%{http_code}' -b "$work/cookies" --max-time 20 "http://127.0.0.1:$console_port/lists")
    [ "$code" = 200 ] && echo "    /lists with the session's cookie: 200" || fail "/lists with the session's cookie answered $code"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$link")
    [ "$code" = 403 ] && echo "    the link again: 403 (it works once)" || fail "the link opened a second time answered $code, not 403"
else
    fail "pepper console printed no link within 30 s: $(cat "$work/console.log")"
fi
$sudo kill "${pids[-1]}" 2>/dev/null || true
wait "${pids[-1]}" 2>/dev/null || true

step "systemd-analyze verify on the installed units (in the root)"
units=$(cd "$root/usr/lib/systemd/system" && ls pepper-*)
# --man=no: the root has no man command; the pages Documentation= names are checked as files.
if output=$(in_root sh -c "cd /usr/lib/systemd/system && SYSTEMD_LOG_COLOR=0 systemd-analyze verify --man=no $(echo $units)" 2>&1) && [ -z "$output" ]; then
    echo "    clean: $(echo $units)"
else
    fail "systemd-analyze verify: $output"
fi
for page in $(sed -n 's/^Documentation=man:\([^(]*\)(1)$/\1/p' "$root"/usr/lib/systemd/system/pepper-*.service); do
    $sudo test -s "$root/usr/share/man/man1/$page.1.gz" || fail "a unit's Documentation= names $page(1), which is not installed"
done

# --- 4. Reinstall, remove and purge ---------------------------------------------------------
step "apt-get install --reinstall: an edited /etc/pepper/dns.env and the state stay"
printf 'PEPPER_DNS_OPTIONS="--listen 127.0.0.1:5353 --upstream 9.9.9.9"\n' | $sudo tee -a "$root/etc/pepper/dns.env" >/dev/null
in_root apt-get install --reinstall -y -q "./tmp/$(basename "$deb")" >"$work/reinstall.log" 2>&1 || {
    tail -n 20 "$work/reinstall.log" >&2
    fail "apt-get install --reinstall failed"
}
$sudo grep -q '^PEPPER_DNS_OPTIONS="--listen 127.0.0.1:5353' "$root/etc/pepper/dns.env" || fail "the reinstall replaced the edited /etc/pepper/dns.env"
$sudo test -s "$root/var/lib/pepper/out/manifest.json" || fail "the reinstall lost /var/lib/pepper/out/manifest.json"
[ "$failures" -gt 0 ] || echo "    the edited dns.env and the compiled state are still there"

step "apt-get remove pepper: the state and /etc/pepper stay"
in_root apt-get remove -y -q pepper >"$work/remove.log" 2>&1 || { tail -n 20 "$work/remove.log" >&2; fail "apt-get remove failed"; }
$sudo test ! -e "$root/usr/bin/pepper" || fail "/usr/bin/pepper is still there after apt-get remove"
$sudo test ! -e "$root/usr/lib/systemd/system/pepper-dns.service" || fail "pepper-dns.service is still there after apt-get remove"
for file in /var/lib/pepper/pepper.sqlite /var/lib/pepper/out/manifest.json /etc/pepper/dns.env /etc/pepper/picket.env; do
    $sudo test -e "$root$file" || fail "$file is gone after apt-get remove (only purge removes it)"
done
$sudo grep -q '^PEPPER_DNS_OPTIONS="--listen 127.0.0.1:5353' "$root/etc/pepper/dns.env" || fail "apt-get remove undid the edit of /etc/pepper/dns.env"
status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' pepper 2>/dev/null || true)
[ "${status% }" = rc ] && echo "    dpkg: rc (removed, configuration kept); state and /etc/pepper still there" ||
    fail "dpkg says '$status' after apt-get remove, not rc"

step "apt-get purge pepper: the state and /etc/pepper go"
in_root apt-get purge -y -q pepper >"$work/purge.log" 2>&1 || { tail -n 20 "$work/purge.log" >&2; fail "apt-get purge failed"; }
for path in /var/lib/pepper /var/lib/pepper-picket /etc/pepper /etc/systemd/system/multi-user.target.wants/pepper-dns.service \
    /etc/systemd/system/timers.target.wants/pepper-update.timer; do
    $sudo test ! -e "$root$path" -a ! -L "$root$path" || fail "$path is still there after apt-get purge"
done
status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' pepper 2>/dev/null || true)
[ -z "$status" ] || [ "${status% }" = un ] || [ "${status% }" = pn ] || fail "dpkg says '$status' after apt-get purge"
[ "$failures" -eq 0 ] && echo "    dpkg: purged; /var/lib/pepper*, /etc/pepper and the units' links gone"

echo "    ($(($(date +%s) - step_started)) s)"
if [ "$failures" -gt 0 ]; then
    echo "error: $failures check(s) of the Debian package failed ($(($(date +%s) - test_started)) s)" >&2
    exit 1
fi
echo "The Debian package installs, serves DNS and the console, verifies, removes and purges in a fresh Debian 12 root ($(($(date +%s) - test_started)) s)."
