#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each (default 60).
#
#   bash fuzz/run.sh 30          # every target, 30 s each
#   bash fuzz/run.sh 30 tflite   # only targets whose name contains "tflite"
#
# Needs the nightly toolchain (installed here) and cargo-fuzz, which it installs if missing.
set -euo pipefail
seconds="${1:-60}"
filter="${2:-}"
cd "$(dirname "$0")"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
mkdir -p corpus
crates="$(pwd)/../crates"
for target in $(cargo +nightly fuzz list); do
  [[ -n "$filter" && "$target" != *"$filter"* ]] && continue
  echo "=== $target: ${seconds}s"
  mkdir -p "corpus/$target"
  # Seeds: the real TensorFlow artifacts in each crate's tests/data/ (read-only: libFuzzer
  # writes new inputs only into the first directory, corpus/<target>).
  seeds=()
  case "$target" in
    graphdef_checkpoint*) seeds=("$crates/graphdef-versions/tests/data/checkpoint") ;;
    graphdef_releases) seeds=("$crates/graphdef-versions/tests/data/release_cases/cases" "$crates/graphdef-versions/tests/data/graphdef") ;;
    graphdef_*) seeds=("$crates/graphdef-versions/tests/data/graphdef" "$crates/graphdef-versions/tests/data/findings") ;;
    tflite_*) seeds=("$crates/tflite-opver/tests/data/tflite" "$crates/tflite-opver/tests/data/sig" "$crates/tflite-opver/tests/data/runtimes/specimens" "$crates/tflite-opver/tests/data/runtimes/converted") ;;
    ifrt_*)
      # The values real jaxlib clients sent are kept as hex, one per line: write each out as
      # a seed file of its own.
      real="$(pwd)/corpus/ifrt_real_seeds"
      mkdir -p "$real"
      python3 - "$crates/ifrt-serdes/tests/data/real" "$real" <<'PY'
import pathlib, sys
src, out = map(pathlib.Path, sys.argv[1:])
for path in src.glob("*.txt"):
    for number, line in enumerate(path.read_text().splitlines()):
        hex_value = [w[4:] for w in line.split() if w.startswith("hex=")]
        if hex_value and not line.startswith("#"):
            (out / f"{path.stem}-{number}").write_bytes(bytes.fromhex(hex_value[0]))
PY
      seeds=("$crates/ifrt-serdes/tests/data/golden" "$real") ;;
    # Small real shared libraries (seeds/make_se_abi_plugin_elf.sh): from nothing, the fuzzer
    # never passes the ELF header check (41 edges in a minute).
    se_abi_plugin_elf) seeds=("seeds/se_abi_plugin_elf") ;;
  esac
  for dir in "${seeds[@]}"; do
    [[ -d "$dir" ]] || { echo "fuzz seed directory $dir is missing"; exit 1; }
  done
  cargo +nightly fuzz run "$target" "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048
done
