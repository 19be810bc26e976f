#!/usr/bin/env python3
"""Copies every distinct `Serialized` envelope that real jaxlib IFRT Proxy clients sent into
this crate's test data, one file each, with a manifest of what each file is.

Input: the capture files of the IFRT Proxy toolkit (`captures/<release>-<scenario>.json`, made
by its `reproduce.sh`: every request a real jaxlib client sent to a fake proxy server, with
every IFRT value found in it). Output: `tests/data/real/*.pb` (the envelope bytes, exactly as
sent) and `tests/data/real/MANIFEST.tsv`.

    python3 crates/ifrt-serdes/interop/captures/extract.py CAPTURES_DIR

Standard library only. The tests never read the captures themselves, only the copies.
"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "data", "real")


def snake(type_name):
    short = type_name.split("::")[-1]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", short).lower()


def main(captures):
    os.makedirs(OUT, exist_ok=True)
    seen = {}
    rows = []
    for path in sorted(glob.glob(os.path.join(captures, "*.json"))):
        capture = json.load(open(path))
        release, scenario = capture["release"], capture["scenario"]
        for value in capture["ifrt_values"]:
            if "type_name" not in value:
                continue
            data = bytes.fromhex(value["serialized_hex"])
            if data in seen:
                continue
            count = sum(1 for r in rows if r[1] == value["type_name"] and r[3] == release)
            name = f"{snake(value['type_name'])}_{release}_{count}.pb"
            seen[data] = name
            with open(os.path.join(OUT, name), "wb") as f:
                f.write(data)
            recorded = value.get("recorded_version")
            rows.append((
                name,
                value["type_name"],
                "0" if recorded is None else str(recorded),
                release,
                scenario,
                str(value["request_seq"]),
                value.get("stablehlo_bytecode_version") or "-",
            ))
    with open(os.path.join(OUT, "MANIFEST.tsv"), "w") as f:
        f.write("# file\ttype_name\tformat\tjaxlib\tscenario\trequest\tstablehlo_producer\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    print(f"{len(rows)} distinct envelopes written to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
