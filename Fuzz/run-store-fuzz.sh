#!/usr/bin/env bash
# Fuzzes damaged stores with libFuzzer for a bounded time (default 60 s):
#   bash Fuzz/run-store-fuzz.sh [seconds]
# Each input damages a small valid store (bytes of its pages overwritten, the file cut
# short), which is then opened and read in full; crashes, objects read with values the
# store never held, and hangs (over 10 s for one input) fail the run, leaving the input
# in .build-fuzz/store/artifacts/.
#
# Only the SQLite engine and its SQL are compiled again here, optimized and instrumented for the
# fuzzer (about a minute on 2 cores): everything below it (the core, the predicate
# module, GRDB, swift-crypto, swift-collections) is linked from the package's ordinary
# debug build, already there after `swift build` or `swift test`. Coverage then guides
# the fuzzer through the engine's opening and reading code; SQLite itself is the
# system's library.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
source Fuzz/fuzz-support.sh
fuzz_prepare store OpenCoreDataSQLite
# The engine uses the core's `package` declarations, so it is compiled under the name
# SwiftPM gave this package (the checkout folder's, as the debug build recorded it).
package_name="$(grep -o '"-package-name","[^"]*"' .build/debug.yaml 2>/dev/null \
  | grep -v -e grdb -e swift_ -e flyingfox | head -n 1 | cut -d '"' -f 4 || true)"
if [ -z "$package_name" ]; then
  package_name="$(basename "$PWD" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9_]/_/g')"
fi
c_modules=(
  -Xcc "-fmodule-map-file=.build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap"
  -Xcc "-fmodule-map-file=$bin/OpenCoreDataRuntimeShims.build/module.modulemap" -Xcc -I -Xcc Sources/OpenCoreDataRuntimeShims/include
  -Xcc "-fmodule-map-file=$bin/OpenCoreDataDeflate.build/module.modulemap" -Xcc -I -Xcc Sources/OpenCoreDataDeflate/include
)
flags=(-O -sanitize=fuzzer -parse-as-library -swift-version 6 -I "$out/Modules" -I "$bin/Modules")

# The engine and the SQL it runs (OpenCoreDataSQL), both instrumented.
for module in OpenCoreDataSQL OpenCoreDataSQLite; do
  find "Sources/$module" -name '*.swift' -print0 | xargs -0 swiftc "${flags[@]}" -wmo "${c_modules[@]}" \
    -package-name "$package_name" -module-name "$module" \
    -emit-module -emit-module-path "$out/Modules/$module.swiftmodule" -c -o "$out/$module.o"
done

# The other modules' objects, as the debug build made them.
objects=()
debug_objects OpenCoreDataCore OpenCoreDataModel OpenCoreDataModelFiles OpenCoreDataFoundation OpenCoreDataPredicate GRDB Crypto CryptoBoringWrapper CCryptoBoringSSL CCryptoBoringSSLShims \
              OrderedCollections InternalCollectionsUtilities OpenCoreDataRuntimeShims OpenCoreDataDeflate
swiftc "${flags[@]}" "${c_modules[@]}" -module-name StoreFuzz Fuzz/StoreFuzz.swift \
  "$out/OpenCoreDataSQL.o" "$out/OpenCoreDataSQLite.o" "${objects[@]}" -lsqlite3 -lz -o "$out/store-fuzz"

# One seed input: no damage (the store read whole). Inputs are short lists of damage, so
# libFuzzer tries every length at once (-len_control=0) rather than growing them slowly.
printf '\0' > "$out/corpus/seed-intact"
"$out/store-fuzz" "$out/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=256 -len_control=0 -artifact_prefix="$out/artifacts/" -print_final_stats=1
