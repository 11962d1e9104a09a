# What the run-*-fuzz.sh scripts that link against the package's debug build share;
# sourced, not run.

# fuzz_prepare NAME TARGET: builds TARGET (and what it needs) in the ordinary debug build,
# and sets `out` (this fuzzer's folder under .build-fuzz) and `bin` (the debug build's products).
fuzz_prepare() {
  out=".build-fuzz/$1"
  mkdir -p "$out/Modules" "$out/corpus" "$out/artifacts"
  swift build --target "$2"
  bin="$(swift build --show-bin-path)"
}

# debug_objects MODULE...: the debug build's object files of each module, appended to `objects`.
debug_objects() {
  local module object
  for module in "$@"; do
    while IFS= read -r -d '' object; do objects+=("$object"); done < <(find "$bin/$module.build" -name '*.o' -print0)
  done
}
