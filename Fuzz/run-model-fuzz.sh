#!/usr/bin/env bash
# Fuzzes model loading with libFuzzer for a bounded time (default 60 s):
#   bash Fuzz/run-model-fuzz.sh [seconds]
# Each input is read both as a model's `contents` XML and as a compiled `.mom` (a keyed
# archive); crashes, errors other than ModelLoadingError, and hangs (over 10 s for one
# input) fail the run, leaving the input in .build-fuzz/model-artifacts/.
#
# The loader lives in OpenCoreDataCore, which needs swift-crypto, swift-collections and
# the @Managed macro. A SwiftPM build of all that with the fuzzer flag compiles
# swift-syntax in release mode (over 20 minutes on 2 cores), so the package's ordinary
# debug build (already there after `swift build` or `swift test`) provides the
# dependencies and the macro, and only the predicate, Foundation stand-in, model and core
# modules are compiled again
# here, optimized and instrumented (about 5 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
source Fuzz/fuzz-support.sh
fuzz_prepare model OpenCoreDataCore
crypto=.build/checkouts/swift-crypto/Sources
c_modules=(
  -Xcc "-fmodule-map-file=$bin/OpenCoreDataRuntimeShims.build/module.modulemap" -Xcc -I -Xcc Sources/OpenCoreDataRuntimeShims/include
  -Xcc "-fmodule-map-file=$bin/OpenCoreDataDeflate.build/module.modulemap" -Xcc -I -Xcc Sources/OpenCoreDataDeflate/include
  -Xcc "-fmodule-map-file=$crypto/CCryptoBoringSSLShims/include/module.modulemap" -Xcc -I -Xcc "$crypto/CCryptoBoringSSLShims/include"
  -Xcc "-fmodule-map-file=$crypto/CCryptoBoringSSL/include/module.modulemap" -Xcc -I -Xcc "$crypto/CCryptoBoringSSL/include"
)
# Our modules come first in the search path, the debug build's dependencies after them.
flags=(-O -sanitize=fuzzer -parse-as-library -swift-version 6 -package-name OpenCoreDataFuzz -I "$out/Modules" -I "$bin/Modules")

find Sources/OpenCoreDataPredicate -name '*.swift' -print0 | xargs -0 swiftc "${flags[@]}" -wmo \
  -module-name OpenCoreDataPredicate -emit-module -emit-module-path "$out/Modules/OpenCoreDataPredicate.swiftmodule" \
  -c -o "$out/OpenCoreDataPredicate.o"
find Sources/OpenCoreDataFoundation -name '*.swift' -print0 | xargs -0 swiftc "${flags[@]}" -wmo "${c_modules[@]}" \
  -module-name OpenCoreDataFoundation -emit-module -emit-module-path "$out/Modules/OpenCoreDataFoundation.swiftmodule" \
  -c -o "$out/OpenCoreDataFoundation.o"
find Sources/OpenCoreDataModel -name '*.swift' -print0 | xargs -0 swiftc "${flags[@]}" -wmo "${c_modules[@]}" \
  -module-name OpenCoreDataModel -emit-module -emit-module-path "$out/Modules/OpenCoreDataModel.swiftmodule" \
  -c -o "$out/OpenCoreDataModel.o"
find Sources/OpenCoreDataCore -name '*.swift' -print0 | xargs -0 swiftc "${flags[@]}" -wmo "${c_modules[@]}" \
  -Xfrontend -load-plugin-executable -Xfrontend "$bin/OpenCoreDataMacros-tool#OpenCoreDataMacros" \
  -module-name OpenCoreDataCore -emit-module -emit-module-path "$out/Modules/OpenCoreDataCore.swiftmodule" \
  -c -o "$out/OpenCoreDataCore.o"

# The dependencies' objects, as the debug build made them.
objects=()
debug_objects Crypto CryptoBoringWrapper CCryptoBoringSSL CCryptoBoringSSLShims OrderedCollections InternalCollectionsUtilities \
              OpenCoreDataRuntimeShims OpenCoreDataDeflate
swiftc "${flags[@]}" "${c_modules[@]}" -module-name ModelLoaderFuzz Fuzz/ModelLoaderFuzz.swift \
  "$out/OpenCoreDataCore.o" "$out/OpenCoreDataModel.o" "$out/OpenCoreDataFoundation.o" "$out/OpenCoreDataPredicate.o" "${objects[@]}" -lz -o "$out/model-loader-fuzz"

# Seeds: the tests' model files, XML and compiled.
seed=0
while IFS= read -r -d '' file; do
  seed=$((seed + 1))
  cp "$file" "$out/corpus/seed-$seed"
done < <(find Tests -path '*.xcdatamodel/contents' -print0; find Tests -name '*.mom' -type f -print0)

"$out/model-loader-fuzz" "$out/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix="$out/artifacts/" -print_final_stats=1
