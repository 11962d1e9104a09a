#!/usr/bin/env bash
# Fuzzes model loading with libFuzzer for a bounded time (default 60 s):
#   bash Fuzz/run-model-fuzz.sh [seconds]
# Each input is read both as a model's `contents` XML and as a compiled `.mom` (a keyed
# archive); crashes, errors other than ModelLoadingError, and hangs (over 10 s for one
# input) fail the run, leaving the input in .build-fuzz/model-artifacts/.
#
# The loader lives in OpenCoreDataModelFiles, above the model module (which needs
# swift-crypto for version hashes), the Foundation stand-ins and the predicate language;
# nothing of the core. The package's ordinary debug build (already there after
# `swift build` or `swift test`) provides swift-crypto's objects, and only those four
# modules are compiled again here, optimized and instrumented (a few minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
source Fuzz/fuzz-support.sh
fuzz_prepare model OpenCoreDataModelFiles
crypto=.build/checkouts/swift-crypto/Sources
c_modules=(
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
find Sources/OpenCoreDataModelFiles -name '*.swift' -print0 | xargs -0 swiftc "${flags[@]}" -wmo "${c_modules[@]}" \
  -module-name OpenCoreDataModelFiles -emit-module -emit-module-path "$out/Modules/OpenCoreDataModelFiles.swiftmodule" \
  -c -o "$out/OpenCoreDataModelFiles.o"

# The dependencies' objects, as the debug build made them.
objects=()
debug_objects Crypto CryptoBoringWrapper CCryptoBoringSSL CCryptoBoringSSLShims OpenCoreDataDeflate
swiftc "${flags[@]}" "${c_modules[@]}" -module-name ModelLoaderFuzz Fuzz/ModelLoaderFuzz.swift \
  "$out/OpenCoreDataModelFiles.o" "$out/OpenCoreDataModel.o" "$out/OpenCoreDataFoundation.o" "$out/OpenCoreDataPredicate.o" "${objects[@]}" -lz -o "$out/model-loader-fuzz"

# Seeds: the tests' model files, XML and compiled.
seed=0
while IFS= read -r -d '' file; do
  seed=$((seed + 1))
  cp "$file" "$out/corpus/seed-$seed"
done < <(find Tests -path '*.xcdatamodel/contents' -print0; find Tests -name '*.mom' -type f -print0)

"$out/model-loader-fuzz" "$out/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix="$out/artifacts/" -print_final_stats=1
