#!/usr/bin/env python3
"""A user crate outside the workspace, per published crate, that builds beside the newest releases
of that crate's dependencies.

A crates.io user's own project pins its own versions. If a crate of ours required an exact
version (`prost = "=0.14.4"`), a user on the newest patch release could not build at all
("failed to select a version for `prost`"). For each crate this script:
1. finds the newest release of each of the crate's registry dependencies that its requirement's
   line allows (a throwaway lock file over `<major>.<minor>` requirements);
2. writes a user crate outside the workspace that depends on our crate by path and on each of
   those newest releases exactly (`=x.y.z`), and uses the crate;
3. builds it.
Run from the workspace root: `python3 .ci/outside_users.py [scratch-dir]`.
"""
import json
import os
import subprocess
import sys
import tempfile

CRATES = ["se-abi", "graphdef-versions", "tflite-opver", "ifrt-serdes"]


def cargo(*args, cwd):
    subprocess.run(["cargo", *args], cwd=cwd, check=True)


def registry_deps(root, crate):
    """(name, line) of the crate's non-optional normal dependencies from a registry."""
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1"],
        cwd=root, check=True, capture_output=True, text=True).stdout)
    package = next(p for p in meta["packages"] if p["name"] == crate)
    deps = []
    for dep in package["dependencies"]:
        if dep["kind"] is not None or dep["optional"] or dep["source"] is None:
            continue
        # "=0.14.4", "^1.0.2", "^2.0.17": the line is major.minor (0.x) or major (x >= 1).
        version = dep["req"].lstrip("=^~ ").split(",")[0]
        major, minor = (version.split(".") + ["0"])[:2]
        deps.append((dep["name"], f"{major}.{minor}" if major == "0" else major))
    return deps


def newest(deps, scratch):
    """The newest release of each dependency within its line, as a fresh lock file picks it."""
    probe = os.path.join(scratch, "newest-probe")
    os.makedirs(os.path.join(probe, "src"), exist_ok=True)
    with open(os.path.join(probe, "src", "lib.rs"), "w") as f:
        f.write("")
    with open(os.path.join(probe, "Cargo.toml"), "w") as f:
        f.write('[package]\nname = "newest-probe"\nversion = "0.0.0"\nedition = "2021"\n'
                "[workspace]\n[dependencies]\n")
        for name, line in deps:
            f.write(f'{name} = "{line}"\n')
    cargo("generate-lockfile", "--quiet", cwd=probe)
    with open(os.path.join(probe, "Cargo.lock")) as f:
        lock = f.read()
    found = {}
    for block in lock.split("[[package]]")[1:]:
        fields = dict(
            line.split(" = ", 1) for line in block.strip().splitlines() if " = " in line)
        name, version = fields["name"].strip('"'), fields["version"].strip('"')
        if any(name == d for d, _ in deps):
            # Two lines of one crate can both be in the lock file; keep the newest.
            if name not in found or tuple(map(int, version.split(".")[:3])) > tuple(
                    map(int, found[name].split(".")[:3])):
                found[name] = version
    return found


def main():
    root = os.getcwd()
    scratch = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="outside-users-")
    for crate in CRATES:
        pins = newest(registry_deps(root, crate), scratch)
        user = os.path.join(scratch, f"user-of-{crate}")
        os.makedirs(os.path.join(user, "src"), exist_ok=True)
        ident = crate.replace("-", "_")
        with open(os.path.join(user, "Cargo.toml"), "w") as f:
            f.write(f'[package]\nname = "user-of-{crate}"\nversion = "0.0.0"\n'
                    'edition = "2021"\npublish = false\n[workspace]\n[dependencies]\n')
            f.write(f'{crate} = {{ path = "{os.path.join(root, "crates", crate)}" }}\n')
            for name, version in sorted(pins.items()):
                f.write(f'{name} = "={version}"\n')
        with open(os.path.join(user, "src", "lib.rs"), "w") as f:
            f.write(f"//! A crate outside the workspace that uses {crate}.\n"
                    f"pub use {ident};\n")
            for name in sorted(pins):
                f.write(f"pub use {name.replace('-', '_')};\n")
        pinned = ", ".join(f"{n} ={v}" for n, v in sorted(pins.items()))
        print(f"user of {crate}, beside the newest {pinned}", flush=True)
        cargo("build", "--quiet", cwd=user)
    print("every crate builds in an outside user crate beside its dependencies' newest releases")


if __name__ == "__main__":
    main()
