#!/usr/bin/env bash
# Builds Pepper's Debian packages (README.md, Install; docs/deploy.md):
#
#   pepper_VERSION_ARCH.deb          /usr/bin/pepper, its systemd units, users (sysusers.d) and
#                                    state folders (tmpfiles.d), the options files in /etc/pepper
#                                    (conffiles), bash/zsh/fish completions, manual pages
#   pepper-browser_VERSION_ARCH.deb  /usr/bin/pepper-browser, the WebKitGTK window of
#                                    `pepper browse`, which depends on WebKitGTK's libraries
#
# VERSION is Debian's: the release that `pepper --version` prints first, then the Debian revision
# of deploy/debian/changelog's latest entry (0.1.0-1), which must name that release. The binaries
# are built with the Swift runtime and Foundation linked in (`--static-swift-stdlib`), so the
# packages need no Swift; their library dependencies are computed by dpkg-shlibdeps. Packages
# are made with `dpkg-deb --build --root-owner-group` (no debhelper): the maintainer scripts are
# deploy/debian/pepper.{postinst,prerm,postrm}, the units and files come from deploy/.
#
# Costs, measured on the project's 2-core machine while three other builds ran (2026-11-28): a
# release build from nothing took 55 minutes; once built, packaging takes 2-5 minutes (relinks,
# generate-manual, strip, dpkg-shlibdeps, xz) and lintian about 1 more; the packages are 25 MB
# (pepper) and 18 MB (pepper-browser). scripts/test-deb.sh packages the tests' debug objects
# instead (--configuration debug): --static-swift-stdlib adds -static-stdlib to every compile
# command, but the driver finds the objects current and recompiles only Hummingbird's (about 100
# files); pepper relinks in 20-90 s, pepper-browser in 2-20 s.
#
# Needs: swift, dpkg-dev (dpkg-shlibdeps, dpkg-parsechangelog), binutils (strip), python3,
# libcurl4-openssl-dev and libxml2-dev (the static Foundation links them); libwebkit2gtk-4.1-dev
# to build pepper-browser; lintian for --lintian.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

usage() {
    cat <<'EOF'
Usage: scripts/package-deb.sh [OPTIONS]

Builds pepper_VERSION_ARCH.deb and pepper-browser_VERSION_ARCH.deb: the binaries with the Swift
runtime linked in (swift build --static-swift-stdlib), the units, users, state folders, options
files (/etc/pepper), completions and manual pages, with dependencies from dpkg-shlibdeps.
VERSION is the release `pepper --version` prints with the Debian revision of
deploy/debian/changelog (0.1.0-1). Prints where the packages are and their sizes.
Install with: sudo apt install ./dist/deb/pepper_VERSION_ARCH.deb

Options:
  -o, --output DIR            Where to write the packages (default: dist/deb).
  -c, --configuration CONFIG  release (default) or debug: debug packages the objects of a debug
                              build (e.g. the tests' `swift build`) and only relinks them; the
                              binaries are stripped either way, but a debug build is slower.
      --scratch-path DIR      swift build's build folder (default: .build).
      --only PACKAGE          Build only pepper or only pepper-browser (pepper is built in both
                              cases: its version names the packages).
  -Z, --compression TYPE      dpkg-deb's compression: xz (default), gzip, zstd or none.
      --lintian               Run lintian on the packages afterwards; fail when it reports an
                              error (warnings are printed).
  -h, --help                  Show this help.

Environment: SOURCE_DATE_EPOCH (default: the date of deploy/debian/changelog's latest entry)
is the time stamp of every file, so the same build gives the same packages.
EOF
}

output=dist/deb
configuration=release
scratch_path=""
only=""
compression=xz
run_lintian=false
while [ $# -gt 0 ]; do
    case "$1" in
    -o | --output) output=${2:?--output needs a folder}; shift 2 ;;
    -c | --configuration) configuration=${2:?--configuration needs debug or release}; shift 2 ;;
    --scratch-path) scratch_path=${2:?--scratch-path needs a folder}; shift 2 ;;
    --only) only=${2:?--only needs pepper or pepper-browser}; shift 2 ;;
    -Z | --compression) compression=${2:?--compression needs xz, gzip, zstd or none}; shift 2 ;;
    --lintian) run_lintian=true; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "error: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
done
case "$configuration" in debug | release) ;; *) echo "error: --configuration takes debug or release, not '$configuration'" >&2; exit 64 ;; esac
case "$only" in "" | pepper | pepper-browser) ;; *) echo "error: --only takes pepper or pepper-browser, not '$only'" >&2; exit 64 ;; esac
case "$compression" in xz | gzip | zstd | none) ;; *) echo "error: --compression takes xz, gzip, zstd or none, not '$compression'" >&2; exit 64 ;; esac

# The tools, each named with the Debian package that has it.
missing=()
for tool in swift:swift dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev dpkg-parsechangelog:dpkg-dev strip:binutils readelf:binutils python3:python3 gzip:gzip; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool%%:*} (Debian package ${tool#*:})")
done
# The libraries the static Foundation links against, by their development names.
for library in curl:libcurl4-openssl-dev xml2:libxml2-dev; do
    compgen -G "/usr/lib/*/lib${library%%:*}.so" >/dev/null || compgen -G "/usr/lib/lib${library%%:*}.so" >/dev/null ||
        missing+=("lib${library%%:*}.so (Debian package ${library#*:})")
done
if $run_lintian && ! command -v lintian >/dev/null 2>&1; then missing+=("lintian (Debian package lintian)"); fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "error: missing: ${missing[*]}" >&2
    exit 1
fi

packages=(pepper pepper-browser)
[ -z "$only" ] || packages=("$only")
build_pepper_browser=false
[ "$only" = pepper ] || build_pepper_browser=true

elapsed() { echo "$(($(date +%s) - $1)) s"; }

# --- Build ----------------------------------------------------------------------------------
# --disable-local-rpath: no $ORIGIN search path in the binaries (with the runtime linked in they
# load nothing from their own folder; lintian's custom-library-search-path). The group: the
# static Foundation's libraries need each other and the system's libcurl and libxml2, and the
# order in which swiftc's automatic linking names them leaves symbols undefined (CFURLSession…
# and curl_… in pepper; swift_u…, _FoundationCollections and Synchronization symbols in a debug
# pepper-browser), so they are named again, in a group the linker searches until nothing new
# resolves. The linker flags change only the link: the objects are reused.
static_foundation=()
for library in FoundationNetworking _CFURLSessionInterface FoundationXML _CFXMLInterface Foundation CoreFoundation \
    FoundationInternationalization _FoundationICU FoundationEssentials _FoundationCollections _FoundationCShims \
    swiftSynchronization swiftDispatch dispatch BlocksRuntime swiftCore curl xml2; do
    static_foundation+=(-Xlinker "-l$library")
done
swift_arguments=(-c "$configuration" --static-swift-stdlib --disable-local-rpath
    -Xlinker --start-group "${static_foundation[@]}" -Xlinker --end-group)
[ -z "$scratch_path" ] || swift_arguments+=(--scratch-path "$scratch_path")
products=(pepper)
$build_pepper_browser && products+=(pepper-browser)
for product in "${products[@]}"; do
    started=$(date +%s)
    echo "==> swift build -c $configuration --static-swift-stdlib --product $product${scratch_path:+ --scratch-path $scratch_path} (and the link options above in this script)"
    swift build "${swift_arguments[@]}" --product "$product"
    echo "    built $product in $(elapsed "$started")"
done
bin=$(swift build "${swift_arguments[@]}" --show-bin-path)

# A binary that still loads Swift's runtime (built without --static-swift-stdlib, or linked
# again without it since) would not run where Swift is not installed.
for product in "${products[@]}"; do
    if readelf -d "$bin/$product" | grep -q 'Shared library: \[lib\(swift\|Foundation\|dispatch\|BlocksRuntime\)'; then
        echo "error: $bin/$product loads Swift's runtime as a shared library; it was not linked with --static-swift-stdlib" >&2
        exit 1
    fi
done

# --- Versions -------------------------------------------------------------------------------
release=$("$bin/pepper" --version | awk 'NR == 1 {print $1}')
if ! [[ "$release" =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
    echo "error: '$bin/pepper --version' begins with '$release', which is no release number" >&2
    exit 1
fi
changelog=deploy/debian/changelog
version=$(dpkg-parsechangelog -l "$changelog" -S Version)
if [ "${version%-*}" != "$release" ] || [ "$version" = "${version%-*}" ]; then
    echo "error: $changelog's latest entry is for $version, but pepper is release $release: add an entry for $release-1 at its top" >&2
    exit 1
fi
maintainer=$(dpkg-parsechangelog -l "$changelog" -S Maintainer)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$changelog" -S Timestamp)}
date_of_release=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
architecture=$(dpkg --print-architecture)
echo "==> pepper $release, Debian version $version, $architecture"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- Files shared by both packages ----------------------------------------------------------
# copyright (DEP-5): deploy/debian/copyright, whose Expat text is LICENSE's and whose header
# lists the Swift packages linked in (from the resolved dependencies, each with the license its
# LICENSE file states). Every file NOTICE names must have a Files: paragraph there.
while read -r path; do
    if ! grep -q "^Files:.* $path\$\|^Files: $path\$" deploy/debian/copyright; then
        echo "error: NOTICE names $path, which deploy/debian/copyright has no Files: paragraph for" >&2
        exit 1
    fi
done < <(grep -o 'Sources/[A-Za-z0-9/._-]*\.swift' NOTICE)
dependencies_json=$(swift package ${scratch_path:+--scratch-path "$scratch_path"} show-dependencies --format json)
python3 - "$work/copyright" "$dependencies_json" <<'PYTHON'
import json, os, re, sys

destination, dependencies = sys.argv[1], json.loads(sys.argv[2])

def license_of(folder):
    for name in ("LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            text = open(path, encoding="utf-8", errors="replace").read(4000)
            if "Apache License" in text and "Version 2.0" in text:
                return "Apache-2.0"
            if "Permission is hereby granted, free of charge" in text:
                return "Expat"
            return "see its " + name
    return "see its repository"

seen, packages = set(), []
def walk(node):
    for child in node.get("dependencies", []):
        if child["identity"] not in seen:
            seen.add(child["identity"])
            packages.append((child["name"], child["version"], child["url"], license_of(child["path"])))
        walk(child)
walk(dependencies)

lines = [
    "The binaries link in the Swift runtime and Foundation (Apache-2.0 with the Runtime",
    "Library Exception; Apple Inc. and the Swift project authors, https://swift.org) and",
    "the parts they use of the Swift packages Pepper builds with (some, like the DocC",
    "plugin, serve only as tools; name, version, license; each package's own LICENSE and",
    "NOTICE files give the details; swift-crypto and swift-nio-ssl embed BoringSSL, under",
    "the OpenSSL and ISC licenses; swift-nio-extras embeds zlib, under the Zlib license):",
]
lines += [f"{name} {version} ({url}): {license}" for name, version, url, license in sorted(packages)]

template = open("deploy/debian/copyright", encoding="utf-8").read()
license_text = open("LICENSE", encoding="utf-8").read()
# The Expat paragraph's text: LICENSE from "Permission is hereby granted" on.
expat = license_text[license_text.index("Permission is hereby granted"):].strip("\n")
def indent(text):
    return "\n".join(" " + line if line.strip() else " ." for line in text.split("\n"))
copyright_text = template.replace("@LINKED@", indent("\n".join(lines))).replace("@EXPAT@", indent(expat))
if "@" in re.sub(r"<[^>]*@[^>]*>|https?://\S+", "", copyright_text):
    sys.exit("error: deploy/debian/copyright has a placeholder that is not filled in")
open(destination, "w", encoding="utf-8").write(copyright_text)
PYTHON
gzip -9n <"$changelog" >"$work/changelog.Debian.gz"

# Installs FILE as the stripped binary DESTINATION (what dh_strip does, without a dbgsym package).
install_binary() {
    install -D -m 0755 "$1" "$2"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$2"
}

# Sets the stamps, md5sums and Installed-Size of the package root $1 and builds it.
build_package() {
    local root=$1 name=$2 deb
    (cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
    chmod 0644 "$root/DEBIAN/md5sums"
    find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    deb="$output/${name}_${version}_${architecture}.deb"
    dpkg-deb --build --root-owner-group -Z"$compression" "$root" "$deb" >/dev/null
    built+=("$deb")
}

# The size in KiB that dpkg records (Installed-Size): each file's size rounded up to 1 KiB.
installed_size() {
    find "$1" ! -path "$1/DEBIAN*" \( -type f -o -type l \) -printf '%s\n' | awk '{ total += int(($1 + 1023) / 1024) } END { print total + 0 }'
}

# shlibs:Depends of BINARY through dpkg-shlibdeps, which runs in a source package's layout:
# the packages' roots are $work/debian/NAME, beside a debian/control that names them.
mkdir -p "$work/debian"
printf 'Source: pepper\n\nPackage: pepper\nArchitecture: any\n\nPackage: pepper-browser\nArchitecture: any\n' >"$work/debian/control"
shlib_depends() {
    (cd "$work" && dpkg-shlibdeps -O -e"${1#"$work"/}") | sed -n 's/^shlibs:Depends=//p'
}

mkdir -p "$output"
built=()

# --- pepper ---------------------------------------------------------------------------------
if [[ " ${packages[*]} " == *" pepper "* ]]; then
    started=$(date +%s)
    root="$work/debian/pepper"
    install_binary "$bin/pepper" "$root/usr/bin/pepper"

    # The units of deploy/, running the package's binary (deploy/ names /usr/local/bin/pepper,
    # where a manual install puts it: docs/deploy.md).
    units=/usr/lib/systemd/system
    install -d "$root$units"
    for unit in deploy/pepper-*.service deploy/pepper-*.timer; do
        sed 's|^\(Exec[A-Za-z]*=\)/usr/local/bin/pepper |\1/usr/bin/pepper |' "$unit" >"$root$units/$(basename "$unit")"
        chmod 0644 "$root$units/$(basename "$unit")"
    done
    if grep -q '^Exec[A-Za-z]*=/usr/local/' "$root$units"/*; then
        echo "error: a unit still runs /usr/local/bin/pepper" >&2
        exit 1
    fi
    install -D -m 0644 deploy/sysusers-pepper.conf "$root/usr/lib/sysusers.d/pepper.conf"
    install -D -m 0644 deploy/tmpfiles-pepper.conf "$root/usr/lib/tmpfiles.d/pepper.conf"

    # The options files (conffiles). picket.env may hold the database's password: root's only.
    install -D -m 0644 deploy/dns.env "$root/etc/pepper/dns.env"
    install -D -m 0644 deploy/console.env "$root/etc/pepper/console.env"
    install -D -m 0600 deploy/picket.env "$root/etc/pepper/picket.env"

    # Completions, where Debian's bash-completion, zsh and fish look for a package's own.
    install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
        "$root/usr/share/fish/vendor_completions.d"
    # bash-completion sources the file: the generator's #! line goes.
    "$bin/pepper" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/pepper"
    "$bin/pepper" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_pepper"
    "$bin/pepper" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/pepper.fish"

    # Manual pages, a page per command, by swift-argument-parser's generate-manual: the tool its
    # GenerateManual plugin runs, built here with the same arguments as pepper and run as the
    # plugin runs it. Not `swift package plugin generate-manual`: it builds every product again
    # without these link options, and the next --static-swift-stdlib build after it then linked
    # with a plan missing -static-stdlib (SwiftPM 6.3: "cannot find -lCoreFoundation").
    echo "==> manual pages (swift-argument-parser's generate-manual)"
    swift build "${swift_arguments[@]}" --product generate-manual >"$work/generate-manual.log" 2>&1 || {
        cat "$work/generate-manual.log" >&2
        echo "error: building swift-argument-parser's generate-manual failed (above)" >&2
        exit 1
    }
    tool="$bin/generate-manual"
    mkdir -p "$work/manual"
    "$tool" "$bin/pepper" --multi-page --date "$date_of_release" --authors "$maintainer" --output-directory "$work/manual" >/dev/null
    if ! compgen -G "$work/manual/pepper.dns.serve.1" >/dev/null; then
        echo "error: generate-manual wrote no page for pepper dns serve in $work/manual" >&2
        exit 1
    fi
    install -d "$root/usr/share/man/man1"
    for page in "$work"/manual/*.1; do
        # Two changes for man and apropos: a blank line of a command's discussion is a
        # paragraph break, which mdoc spells .Pp (man warns about blank lines); and the NAME
        # section names the page as it is called (pepper.dns.serve, one word: whatis cannot read
        # "pepper dns serve"), while the synopsis keeps the command as typed.
        awk -v page="$(basename "$page" .1)" '
            /^$/ { print ".Pp"; next }
            /^\.Nm "/ && command == "" { command = substr($0, 5); print ".Nm " page; next }
            /^\.Nm$/ && command != "" { print ".Nm " command; next }
            { print }
        ' "$page" | gzip -9n >"$root/usr/share/man/man1/$(basename "$page").gz"
    done

    install -D -m 0644 "$work/copyright" "$root/usr/share/doc/pepper/copyright"
    install -m 0644 "$work/changelog.Debian.gz" "$root/usr/share/doc/pepper/changelog.Debian.gz"
    install -D -m 0644 deploy/debian/pepper.lintian-overrides "$root/usr/share/lintian/overrides/pepper"

    install -d "$root/DEBIAN"
    for script in postinst prerm postrm; do
        install -m 0755 "deploy/debian/pepper.$script" "$root/DEBIAN/$script"
    done
    (cd "$root" && find etc -type f | sed 's|^|/|' | LC_ALL=C sort) >"$root/DEBIAN/conffiles"
    # Besides the libraries: systemd-sysusers and systemd-tmpfiles for postinst (the standalone
    # ones do without systemd), and procps for /bin/kill, which pepper-dns.service's ExecReload=
    # runs (a minimal Debian has neither).
    depends=$(shlib_depends "$root/usr/bin/pepper")
    cat >"$root/DEBIAN/control" <<EOF
Package: pepper
Version: $version
Architecture: $architecture
Maintainer: $maintainer
Installed-Size: $(installed_size "$root")
Depends: $depends, systemd | systemd-standalone-sysusers, systemd | systemd-standalone-tmpfiles, procps
Recommends: ca-certificates
Suggests: pepper-browser
Section: net
Priority: optional
Description: blocker of ads, trackers, boycotted domains, spam calls and junk texts
 Pepper turns filter lists (Adblock Plus, AdGuard, hosts files, domain lists,
 DuckDuckGo Tracker Radar, Disconnect) into WebKit content blockers and keeps
 them up to date, and serves them to every program of a machine or network as
 a filtering DNS forwarder (plain, over TLS or over HTTPS upstreams; cache,
 serve-stale, client groups, Prometheus metrics). It also filters calls and
 text messages, and serves the Online Picket Line API.
 .
 This package has the pepper command, systemd services for the DNS filter
 (enabled, on 127.0.0.1:53), the list updates (a timer, enabled), the web
 console, following a serving home (pepper sync follow) and the Picket server
 (all disabled), their users and state folders
 in /var/lib, their options in /etc/pepper, shell completions and manual pages.
EOF
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
    build_package "$root" pepper
    echo "    pepper: Depends: $depends, systemd | systemd-standalone-sysusers, systemd | systemd-standalone-tmpfiles, procps ($(elapsed "$started"))"
fi

# --- pepper-browser -------------------------------------------------------------------------
if [[ " ${packages[*]} " == *" pepper-browser "* ]]; then
    started=$(date +%s)
    root="$work/debian/pepper-browser"
    # Beside pepper: `pepper browse` runs the pepper-browser of its own folder.
    install_binary "$bin/pepper-browser" "$root/usr/bin/pepper-browser"
    install -d "$root/usr/share/man/man1"
    gzip -9n <deploy/debian/pepper-browser.1 >"$root/usr/share/man/man1/pepper-browser.1.gz"
    install -D -m 0644 "$work/copyright" "$root/usr/share/doc/pepper-browser/copyright"
    install -m 0644 "$work/changelog.Debian.gz" "$root/usr/share/doc/pepper-browser/changelog.Debian.gz"
    install -D -m 0644 deploy/debian/pepper-browser.lintian-overrides "$root/usr/share/lintian/overrides/pepper-browser"
    install -d "$root/DEBIAN"
    depends=$(shlib_depends "$root/usr/bin/pepper-browser")
    cat >"$root/DEBIAN/control" <<EOF
Package: pepper-browser
Version: $version
Architecture: $architecture
Maintainer: $maintainer
Installed-Size: $(installed_size "$root")
Depends: pepper (= $version), $depends
Section: web
Priority: optional
Description: privacy web browser of Pepper (WebKitGTK)
 The window of "pepper browse": a WebKitGTK browser that blocks what Pepper's
 compiled content blockers block, shows how many requests it blocked on each
 page (one click turns blocking off for a site), and keeps its history, zoom
 and search engine across launches in Pepper's state.
EOF
    chmod 0644 "$root/DEBIAN/control"
    build_package "$root" pepper-browser
    echo "    pepper-browser: Depends: pepper (= $version), $depends ($(elapsed "$started"))"
fi

# --- lintian --------------------------------------------------------------------------------
if $run_lintian; then
    started=$(date +%s)
    echo "==> lintian ${built[*]}"
    # --fail-on error: warnings and information are printed, only an error fails.
    lintian --fail-on error --display-info "${built[@]}"
    echo "    lintian: no error ($(elapsed "$started"))"
fi

echo "==> Debian packages in $output:"
for deb in "${built[@]}"; do
    printf '    %s  %s bytes (%s)\n' "$deb" "$(stat -c %s "$deb")" "$(du -h --apparent-size "$deb" | cut -f1)"
done
