#!/usr/bin/env bash
# The documentation's checks, run by scripts/test.sh after `swift build --build-tests`:
#
# 1. runs every snippet of Snippets/ (the code the getting-started articles include): SwiftPM
#    builds them with the package, and each checks what it shows with preconditions the articles
#    hide, so an example that stops compiling or stops doing what its article says fails here;
# 2. builds the DocC catalogs of the libraries below with one `swift package
#    generate-documentation`, DocC's warnings treated as errors (a broken symbol link, a
#    snippet or slice that does not exist, an undocumented parameter);
# 3. lists the public symbols of those libraries without a doc comment
#    (scripts/check-docs.py says which count), from the symbol graphs step 2 extracted.
#
# The archives land in .build/plugins/Swift-DocC/outputs/TARGET.doccarchive (README.md says how
# to read them).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(FilterLists ContentBlocker FilterEngine DNSFilter Picket CallFilter PepperActions ListSync Storage)

bin="$(swift build --show-bin-path)"
echo "==> snippets"
for file in Snippets/*/*.swift; do
    name="$(basename "$file" .swift)"
    # Built by the `swift build` before this script (an edit of comments alone relinks nothing,
    # so the binary's date says nothing here).
    if [ ! -x "$bin/$name" ]; then
        echo "check-docs: $bin/$name is missing: run 'swift build' first" >&2
        exit 1
    fi
    if ! output="$("$bin/$name" 2>&1)"; then
        printf '%s\n' "$output" >&2
        echo "check-docs: the snippet $file failed" >&2
        exit 1
    fi
done

echo "==> DocC (${targets[*]})"
symbols="$(dirname "$bin")/extracted-symbols"
rm -rf "$symbols"
target_arguments=()
for target in "${targets[@]}"; do target_arguments+=(--target "$target"); done
swift package generate-documentation "${target_arguments[@]}" --warnings-as-errors

echo "==> doc comments"
python3 scripts/check-docs.py "$symbols" "${targets[@]}"
