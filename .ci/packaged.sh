#!/usr/bin/env bash
# What a crates.io user gets: each crate is packaged (no warnings), passes `cargo publish
# --dry-run`, and its packaged form passes its own `cargo test` from the extracted folder, outside
# the workspace (the unit tests and doctests may use only what the package ships).
# Run from the workspace root: `bash .ci/packaged.sh`.
set -euo pipefail
crates=(se-abi graphdef-versions tflite-opver ifrt-serdes)
target=${CARGO_TARGET_DIR:-$PWD/target}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for crate in "${crates[@]}"; do
  echo "--- $crate: cargo package"
  # The build from the package is verified below, by its own tests; here only what is packaged.
  cargo package -p "$crate" --no-verify 2>"$scratch/package.log" || { cat "$scratch/package.log"; exit 1; }
  if grep -q "^warning" "$scratch/package.log"; then
    cat "$scratch/package.log"
    echo "$crate: cargo package warned (above); a published crate packages cleanly"
    exit 1
  fi
  cargo publish --dry-run --quiet -p "$crate" --no-verify 2>&1 | grep -v "aborting upload due to dry run" || true
  version=$(cargo pkgid -p "$crate" | sed 's/.*[#@]//')
  tar -xzf "$target/package/$crate-$version.crate" -C "$scratch"
  echo "--- $crate: cargo test in the extracted package ($crate-$version/)"
  (cd "$scratch/$crate-$version" && cargo test --quiet)
done
echo "every crate packages cleanly and passes its own tests as published"
