"""Extracts the loading facts of a plugin package's shared libraries into a small JSON file: what
se-abi's tests need to rebuild a stand-in of the package (tests/data/plugins/) without keeping
its binaries, which run to hundreds of megabytes.

    python3 extract.py PACKAGE_DIR PLUGIN_RELATIVE_PATH OUT.json

PACKAGE_DIR is the unpacked wheel (its `site-packages` layout). For every shared library in it:
its path, soname, DT_NEEDED, DT_RUNPATH or DT_RPATH, every symbol it imports (C and C++, weak or
not; without their versions, which the stand-in cannot reproduce), and the symbols it exports
that matter to a load: the entry points, TensorFlow's C API, and whatever another library of the
package imports. Read with binutils' `readelf` and `nm`.
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
            imports.append({"name": name, "weak": kind != "U"})
        elif kind.isupper() or kind in ("i", "u"):
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
    basenames = {os.path.basename(l["path"]) for l in libraries}
    for library in libraries:
        data = open(os.path.join(package, library["path"]), "rb").read()
        tails = {part.rsplit(b"/", 1)[-1] for part in data.split(b"\0")}
        library["names"] = sorted(n for n in basenames if n.encode() in tails)
    # Of each library's exports, keep what a load needs: the entry points, TensorFlow's C API,
    # and what the package's libraries import from each other.
    imported = {i["name"] for library in libraries for i in library["imports"]}
    for library in libraries:
        library["exports"] = [e for e in library["exports"]
                              if e in ENTRY_POINTS or C_API.match(e) or e in imported]
    with open(out, "w") as f:
        json.dump({"plugin": plugin, "libraries": libraries}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
