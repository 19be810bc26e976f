"""Extracts the loading facts of a plugin package's shared libraries into a small JSON file: what
se-abi's tests need to rebuild a stand-in of the package (tests/data/plugins/) without keeping
its binaries, which run to hundreds of megabytes.

    python3 extract.py PACKAGE_DIR PLUGIN_RELATIVE_PATH OUT.json

PACKAGE_DIR is the unpacked wheel (its `site-packages` layout). For every shared library in it:
its path, soname, DT_NEEDED, DT_RUNPATH or DT_RPATH, the TensorFlow C API functions it imports
(weak or not) and the entry points and TensorFlow C API functions it exports. Read with
binutils' `readelf` and `nm`.
"""
import json
import os
import re
import subprocess
import sys

C_API = re.compile(r"^(TF_|TFE_|TSL_|TP_|SE_|TFNPD_|TFL_|TfLite)")
ENTRY_POINTS = {"SE_InitPlugin", "TFNPD_InitPlugin", "TF_InitKernel", "TF_InitGraph",
                "TF_InitProfiler"}


def dynamic(path):
    out = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True).stdout
    facts = {"soname": None, "needed": [], "runpath": None, "rpath": None}
    for line in out.splitlines():
        value = line.split("[", 1)[1].rsplit("]", 1)[0] if "[" in line else None
        if "(SONAME)" in line:
            facts["soname"] = value
        elif "(NEEDED)" in line:
            facts["needed"].append(value)
        elif "(RUNPATH)" in line:
            facts["runpath"] = value
        elif "(RPATH)" in line:
            facts["rpath"] = value
    return facts


def symbols(path):
    out = subprocess.run(["nm", "-D", path], capture_output=True, text=True).stdout
    imports, exports = [], []
    for line in out.splitlines():
        parts = line.split()
        kind, name = parts[-2], parts[-1].split("@")[0]
        if kind in ("U", "w", "v"):
            if C_API.match(name):
                imports.append({"name": name, "weak": kind != "U"})
        elif kind.isupper() and (name in ENTRY_POINTS or C_API.match(name)):
            exports.append(name)
    return sorted({i["name"]: i for i in imports}.values(), key=lambda i: i["name"]), sorted(set(exports))


def main():
    package, plugin, out = sys.argv[1], sys.argv[2], sys.argv[3]
    libraries = []
    for root, _, files in os.walk(package):
        for name in sorted(files):
            if not (name.endswith(".so") or ".so." in name):
                continue
            path = os.path.join(root, name)
            imports, exports = symbols(path)
            libraries.append(dict(path=os.path.relpath(path, package), **dynamic(path),
                                  imports=imports, exports=exports))
    libraries.sort(key=lambda l: l["path"])
    with open(out, "w") as f:
        json.dump({"plugin": plugin, "libraries": libraries}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
