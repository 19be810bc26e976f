"""Keeps of a shared library only what the dynamic loader reads to bind it, as a small JSON file
from which se-abi's tests rebuild it (tests/data/plugins/<name>.skeleton.json).

    python3 skeleton.py LIBRARY.so OUT.json

The dynamic loader reads a library through its program headers: the ELF header, the program
headers, the dynamic section (PT_DYNAMIC), and the tables its entries point at (strings,
symbols, their hash table and versions, relocations). Those bytes are kept where they are;
everything else (code, data, section headers) becomes zeros, and relocations that name no
symbol (R_X86_64_RELATIVE: most of them) become R_X86_64_NONE, which the loader skips. The
rebuilt file has the original's size, symbols, versions and relocation order: `se-abi
plugin-check` reads it as it reads the original, and the verdicts of the original, judged in
the real releases, hold for it. It cannot be run.

The JSON: {"source": ..., "size": N, "sha256": <of the original>, "chunks": [[offset, hex]...]}.
"""
import hashlib
import json
import struct
import sys

PT_LOAD, PT_DYNAMIC = 1, 2
DT = dict(NULL=0, NEEDED=1, PLTRELSZ=2, HASH=4, STRTAB=5, SYMTAB=6, RELA=7, RELASZ=8,
          STRSZ=10, SONAME=14, RPATH=15, REL=17, RELSZ=18, PLTREL=20, JMPREL=23, RUNPATH=29,
          GNU_HASH=0x6ffffef5, VERSYM=0x6ffffff0, VERDEF=0x6ffffffc, VERDEFNUM=0x6ffffffd,
          VERNEED=0x6ffffffe, VERNEEDNUM=0x6fffffff)


def main():
    source, out = sys.argv[1], sys.argv[2]
    data = open(source, "rb").read()
    keep = bytearray(len(data))  # 1 where a byte is kept
    kept = bytearray(data)

    def mark(offset, size):
        for i in range(offset, min(offset + size, len(data))):
            keep[i] = 1

    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    mark(0, 64)
    mark(phoff, phentsize * phnum)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == PT_DYNAMIC:
            dynamic = (p_vaddr, p_memsz)

    def offset_of(address):
        for vaddr, offset, filesz in loads:
            if vaddr <= address < vaddr + filesz:
                return offset + address - vaddr
        raise ValueError(f"address {address:#x} outside the loadable segments")

    at = offset_of(dynamic[0])
    tags = {}
    for i in range(dynamic[1] // 16):
        tag, value = struct.unpack_from("<QQ", data, at + 16 * i)
        tags.setdefault(tag, value)
        if tag == DT["NULL"]:
            mark(at, 16 * (i + 1))
            break
    mark(offset_of(tags[DT["STRTAB"]]), tags[DT["STRSZ"]])
    # The symbol count, from the GNU hash table (the loader needs no more).
    gnu = offset_of(tags[DT["GNU_HASH"]])
    nbuckets, symoffset, bloom, _ = struct.unpack_from("<IIII", data, gnu)
    buckets = gnu + 16 + 8 * bloom
    last = max(struct.unpack_from(f"<{nbuckets}I", data, buckets))
    chains = buckets + 4 * nbuckets
    count = last
    while not struct.unpack_from("<I", data, chains + 4 * (count - symoffset))[0] & 1:
        count += 1
    count += 1
    mark(gnu, chains + 4 * (count - symoffset) - gnu)
    if DT["HASH"] in tags:
        h = offset_of(tags[DT["HASH"]])
        nb, nc = struct.unpack_from("<II", data, h)
        mark(h, 8 + 4 * (nb + nc))
    mark(offset_of(tags[DT["SYMTAB"]]), 24 * count)
    if DT["VERSYM"] in tags:
        mark(offset_of(tags[DT["VERSYM"]]), 2 * count)
    for table, number in [("VERDEF", "VERDEFNUM"), ("VERNEED", "VERNEEDNUM")]:
        if DT[table] not in tags:
            continue
        at = offset_of(tags[DT[table]])
        for _ in range(tags[DT[number]]):
            if table == "VERDEF":
                _, _, _, cnt, _, aux, nxt = struct.unpack_from("<HHHHIII", data, at)
                mark(at, 20)
                a = at + aux
                for _ in range(cnt):
                    mark(a, 8)
                    a += struct.unpack_from("<II", data, a)[1]
            else:
                _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", data, at)
                mark(at, 16)
                a = at + aux
                for _ in range(cnt):
                    mark(a, 16)
                    a += struct.unpack_from("<IHHII", data, a)[4]
            at += nxt
    for table, size in [("RELA", "RELASZ"), ("JMPREL", "PLTRELSZ")]:
        if DT[table] not in tags:
            continue
        at = offset_of(tags[DT[table]])
        for i in range(tags[DT[size]] // 24):
            entry = at + 24 * i
            info, = struct.unpack_from("<Q", data, entry + 8)
            if info >> 32 == 0:  # no symbol: R_X86_64_RELATIVE and the like
                kept[entry:entry + 24] = bytes(24)
            else:
                mark(entry, 24)
    chunks = []
    i = 0
    while i < len(data):
        if keep[i] and kept[i]:
            j = i
            while j < len(data) and keep[j]:
                j += 1
            while j > i and not kept[j - 1]:
                j -= 1
            chunks.append([i, kept[i:j].hex()])
            i = j
        else:
            i += 1
    with open(out, "w") as f:
        json.dump({"source": source.rsplit("/", 1)[-1], "size": len(data),
                   "sha256": hashlib.sha256(data).hexdigest(), "chunks": chunks}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
