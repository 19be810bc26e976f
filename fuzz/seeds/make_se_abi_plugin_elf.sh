#!/usr/bin/env bash
# Makes the seeds of the se_abi_plugin_elf fuzz target: three small x86-64 shared libraries
# (about 6 KB each), so that libFuzzer starts from files the ELF reader gets far into instead
# of from empty inputs (which never pass the ELF header check).
#   plain.so        SE_InitPlugin importing TF_GetCode and glibc functions (versioned imports)
#   versioned.so    the same with a version script (DT_VERDEF, two version nodes), DT_RUNPATH,
#                   two DT_NEEDED entries, and both hash tables (DT_HASH and DT_GNU_HASH)
#   no_sections.so  plain.so with its section header table dropped (e_shoff, e_shnum and
#                   e_shstrndx zeroed), as sstrip leaves a file: ld.so loads it all the same
# Needs gcc and python3. Run from anywhere: bash fuzz/seeds/make_se_abi_plugin_elf.sh
set -euo pipefail
out="$(cd "$(dirname "$0")" && pwd)/se_abi_plugin_elf"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/probe.c" <<'C'
#include <stdio.h>
#include <string.h>
extern int TF_GetCode(const void *status);
void SE_InitPlugin(void *params, void *status) {
  (void)params;
  printf("%d %zu\n", TF_GetCode(status), strlen("x"));
}
int SE_InitPluginFns(void) { return 1; }
C
cat >"$work/versions.map" <<'MAP'
PROBE_1.0 { global: SE_InitPlugin; local: *; };
PROBE_2.0 { global: SE_InitPluginFns; } PROBE_1.0;
MAP
small=(-shared -fPIC -O2 -s -Wl,-z,max-page-size=4096 -Wl,-z,noseparate-code)
mkdir -p "$out"
gcc "${small[@]}" -o "$out/plain.so" "$work/probe.c"
gcc "${small[@]}" -Wl,--version-script="$work/versions.map" -Wl,-rpath,'$ORIGIN/../lib' \
  -Wl,--enable-new-dtags -Wl,--hash-style=both -o "$out/versioned.so" "$work/probe.c" \
  -Wl,--no-as-needed -lz
python3 - "$out/plain.so" "$out/no_sections.so" <<'PY'
import sys
elf = bytearray(open(sys.argv[1], "rb").read())
elf[0x28:0x30] = bytes(8)  # e_shoff
elf[0x3C:0x40] = bytes(4)  # e_shnum, e_shstrndx
open(sys.argv[2], "wb").write(bytes(elf))
PY
ls -l "$out"
