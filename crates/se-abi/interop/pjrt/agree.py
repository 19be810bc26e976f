"""Compares `se-abi pjrt-check --run` with what the JAX releases did with real plugins
(`releases/pjrt/jax/<name>-<jaxlib>.json.gz`, made by `measure.py --plugin NAME=PATH`), for every
release and every ENABLE_PJRT_COMPATIBILITY setting. "Loads" for a real plugin on this machine is
a version accepted and only the missing device failing.

    python3 agree.py --se-abi target/release/se-abi NAME=PATH ...
"""
import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FACTS = os.path.join(HERE, "..", "..", "releases", "pjrt", "jax")
NO_DEVICE = ("No visible GPU devices", "TPU initialization failed")


def measured(run):
    error = run.get("error") or ""
    if run["outcome"] == "loaded" or any(m in error for m in NO_DEVICE):
        return True, None
    return False, re.sub(r"^Unable to initialize backend '[^']*': ", "", error)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--se-abi", required=True)
    ap.add_argument("plugins", nargs="+", help="NAME=PATH")
    args = ap.parse_args()
    total = agreed = 0
    for spec in args.plugins:
        name, path = spec.split("=", 1)
        for setting in ["unset", "0", "1"]:
            cmd = [args.se_abi, "pjrt-check", path, "--run", "--json"]
            if setting != "unset":
                cmd += ["--compat", setting]
            start = time.monotonic()
            out = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
            seconds = time.monotonic() - start
            predicted = {r["jaxlib"]: r for r in out["releases"]}
            for f in sorted(glob.glob(os.path.join(FACTS, f"{name}-*.json.gz"))):
                facts = json.load(gzip.open(f))
                run = next(r for r in facts["runs"] if r["setting"] == setting)
                loads, error = measured(run)
                p = predicted.get(facts["jaxlib"])
                total += 1
                if p is not None and p.get("after_client_create"):
                    # A refusal after client creation: where the plugin needs no device it was
                    # measured (the abort, whose F line the note quotes); where loading stopped
                    # at the missing device, naming the struct refused is the agreement.
                    fatal = (run.get("fatal") or "").replace("Unexpected error status ", "", 1)
                    ok = p["loads"] is False and (
                        any(m in (run.get("error") or "") for m in NO_DEVICE)
                        or (run["outcome"] == "signal" and p["error"] == error
                            and fatal in (p.get("note") or "")))
                else:
                    ok = p is not None and p["loads"] == loads and (loads or p["error"] == error)
                agreed += ok
                if not ok:
                    print(f"DISAGREE {name} {facts['jaxlib']} {setting}: measured {loads} {error!r}"
                          f" predicted {p}")
            print(f"{name} setting {setting}: pjrt-check --run took {seconds:.1f} s, "
                  f"PJRT {out['pjrt_api_version']}")
    print(f"{agreed}/{total} verdicts agree")


if __name__ == "__main__":
    main()
