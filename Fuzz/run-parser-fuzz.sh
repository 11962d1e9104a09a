#!/usr/bin/env bash
# Fuzzes the predicate parser with libFuzzer for a bounded time (default 60 s):
#   bash Fuzz/run-parser-fuzz.sh [seconds]
# The predicate layer depends on Foundation only, so it is compiled on its own with
# the fuzzer entry point; crashes and hangs (over 5 s for one input) fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out=.build-fuzz
mkdir -p "$out/corpus"
printf 'name == "x"' > "$out/corpus/seed1"
printf 'ANY tags.title CONTAINS[cd] %%@ AND count BETWEEN {1, 5}' > "$out/corpus/seed2"
printf 'SUBQUERY(items, $i, $i.price > 10 OR NOT $i.name LIKE[c] "a*").@count > 0' > "$out/corpus/seed3"
swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name OpenCoreDataPredicate -package-name OpenCoreDataFuzz \
  Fuzz/PredicateParserFuzz.swift Sources/OpenCoreDataPredicate/*.swift \
  -o "$out/predicate-parser-fuzz"
mkdir -p "$out/parser-artifacts"
"$out/predicate-parser-fuzz" "$out/corpus" -max_total_time="$seconds" -timeout=5 -max_len=512 -print_final_stats=1 \
  -artifact_prefix="$out/parser-artifacts/"
