"""Copies the IFRT values real jaxlib releases sent into ifrt-serdes' test data, compactly.

Input: the capture files of the `ifrt_real` toolkit (one JSON file per jaxlib release and
scenario, `<release>-<scenario>.json`, each listing under `ifrt_values` every IFRT value found in
the requests that release's IFRT Proxy client sent). Output: one text file per capture,
`jaxlib-<release>-<scenario>.txt`, with one line per distinct value (see the README beside this
script for the format). Only the standard library is needed.

    python3 crates/ifrt-serdes/interop/captures/extract.py CAPTURES_DIR [OUT_DIR]

OUT_DIR defaults to crates/ifrt-serdes/tests/data/real. Existing files of the same name are
replaced; nothing else there is touched.
"""

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parents[1] / "tests" / "data" / "real"

HEADER = """\
# IFRT values sent by the IFRT Proxy client of jaxlib {release} (scenario `{scenario}`), copied
# from the ifrt_real capture {source} by
# crates/ifrt-serdes/interop/captures/extract.py (see tests/data/real/README.md).
# One line per distinct value, in the order first seen:
#   KIND NAME format=F seen=N at=PATH [payload=MESSAGE] [stablehlo=PRODUCER] hex=BYTES
# KIND is `proto` (a plain message inside a request, NAME its protobuf name) or `envelope` (a
# `Serialized {{ type_name, data }}`, NAME its type name, BYTES the whole envelope). F is the
# `version_number` recorded in the value (in an envelope's payload), or `absent` where the
# release's schema has no such field or the payload is no protobuf message.
"""


def compact_path(path):
    """`kind/kind/rest` (the request kind, then the same name as its field) as `kind/rest`."""
    parts = path.split("/")
    if len(parts) > 1 and parts[0] == parts[1]:
        parts = parts[1:]
    return "/".join(parts)


def lines_of(values):
    """One line per distinct (kind, name, format, bytes), with how often it was seen."""
    seen = {}
    order = []
    for value in values:
        if "type_name" in value:
            kind, name, hex_bytes = "envelope", value["type_name"], value["serialized_hex"]
        else:
            kind, name, hex_bytes = "proto", value["message"], value["bytes_hex"]
        recorded = value.get("recorded_version")
        fmt = "absent" if recorded is None else str(int(recorded))
        key = (kind, name, fmt, hex_bytes)
        if key not in seen:
            extra = []
            if value.get("payload_message"):
                extra.append(f"payload={value['payload_message']}")
            if value.get("stablehlo_bytecode_version"):
                extra.append(f"stablehlo={value['stablehlo_bytecode_version']}")
            seen[key] = {"count": 0, "at": compact_path(value["path"]), "extra": extra}
            order.append(key)
        seen[key]["count"] += 1
    for key in order:
        kind, name, fmt, hex_bytes = key
        entry = seen[key]
        for field in (name, entry["at"], *entry["extra"]):
            if any(c.isspace() for c in field):
                sys.exit(f"whitespace in {field!r}: the line format cannot hold it")
        fields = [kind, name, f"format={fmt}", f"seen={entry['count']}", f"at={entry['at']}"]
        yield " ".join(fields + entry["extra"] + [f"hex={hex_bytes}"])


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    captures = pathlib.Path(sys.argv[1])
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else DEFAULT_OUT
    out.mkdir(parents=True, exist_ok=True)
    files = sorted(captures.glob("*.json"))
    if not files:
        sys.exit(f"no capture files (*.json) in {captures}")
    for path in files:
        capture = json.loads(path.read_text())
        release, scenario = capture["release"], capture["scenario"]
        text = HEADER.format(release=release, scenario=scenario, source=f"captures/{path.name}")
        lines = list(lines_of(capture["ifrt_values"]))
        if not lines:
            text += "# This client sent no IFRT value in this scenario.\n"
        text += "".join(line + "\n" for line in lines)
        target = out / f"jaxlib-{release}-{scenario}.txt"
        target.write_text(text)
        print(f"{target.name}: {len(lines)} distinct values of {len(capture['ifrt_values'])}")


if __name__ == "__main__":
    main()
