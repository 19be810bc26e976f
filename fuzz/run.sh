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
oracle="$(pwd)/../../shared/oracle"
for target in $(cargo +nightly fuzz list); do
  [[ -n "$filter" && "$target" != *"$filter"* ]] && continue
  echo "=== $target: ${seconds}s"
  mkdir -p "corpus/$target"
  # Seeds: real TensorFlow artifacts from ../shared/oracle/ when it is beside the checkout
  # (read-only: libFuzzer writes new inputs only into the first directory, corpus/<target>).
  seeds=()
  case "$target" in
    graphdef_*) seeds=("$oracle/graphdef") ;;
    tflite_*) seeds=("$oracle/tflite" "$oracle/sig") ;;
  esac
  present=()
  for dir in "${seeds[@]}"; do [[ -d "$dir" ]] && present+=("$dir"); done
  seeds=("${present[@]}")
  cargo +nightly fuzz run "$target" "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048
done
