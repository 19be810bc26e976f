#!/usr/bin/env bash
# The workspace's `rust-version` claims only what CI checks: the compiler CI builds with must be
# that release (or, if a toolchain of exactly that release is installed, the workspace is also
# checked with it).
set -euo pipefail
claimed=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
running=$(rustc --version | awk '{print $2}')
case "$running" in
  "$claimed" | "$claimed".*) echo "rust-version $claimed: CI builds with rustc $running" ;;
  *)
    if rustup toolchain list 2>/dev/null | grep -q "^$claimed"; then
      echo "rust-version $claimed: checking the workspace with that toolchain (CI's own is $running)"
      cargo "+$claimed" check --workspace --all-targets --all-features --quiet
    else
      echo "rust-version says $claimed, but CI builds with rustc $running and has no $claimed toolchain:"
      echo "set rust-version to what CI builds with, or install that toolchain in .ci/run"
      exit 1
    fi
    ;;
esac
