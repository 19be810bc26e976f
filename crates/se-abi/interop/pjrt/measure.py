"""Measures what each JAX release does with PJRT plugins: probe plugins compiled from probe.c
(one thing broken at a time), each loaded by `load_one.py` in a process of its own with a
timeout, under ENABLE_PJRT_COMPATIBILITY unset, 0 and 1. Writes one JSON.gz of facts per
release (`<out>/<jaxlib>.json.gz`).

    python3 measure.py --venvs /work/venvs --out ../../pjrt/measured [--release 0.5.0 ...]
    python3 measure.py --plugin NAME=PATH ...   # real plugins: every release, every setting

Per release it records: the framework's PJRT API version (from the refusal of a 0.0 probe),
for each setting the verdict of probes at the framework's minor, one below, one above, major 1
and minor 0, and the smallest accepted minor (bisected); at the framework's own version, probes
with one slot NULL, a short PJRT_Api, no GetPjrtApi export, and one extension of each type whose
struct holds only its base (its bytes end at an unreadable page); and for every run the calls the
plugin received with the struct_size of their args (`slot`, `size`).
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "PJRT probe: no device"
SETTINGS = ["unset", "0", "1"]
# PJRT_Api slots the probes fill: PJRT 0.90's 128 (a release calls a slot only when the plugin's
# struct_size reaches it; a probe claiming slots it fails sends 0.9.2's error handling into a loop).
SLOTS = 128
# Slots the probe fills with a real function (see probe.c); the others fail UNIMPLEMENTED.
NULL_SLOTS = [3, 4, 10]
# PJRT_Api sizes: up to (not including) PJRT_Client_Create's slot, and the header alone.
SHORT_API_SIZES = [120, 40]
# PJRT_Extension_Type values of the newest header (TF 2.21's, PJRT 0.90): 0 ... 18.
EXT_TYPES = list(range(19))


def releases():
    with open(os.path.join(HERE, "releases.txt")) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


class Probes:
    def __init__(self, work):
        self.work = work
        self.cache = {}

    def build(self, **flags):
        key = json.dumps(flags, sort_keys=True)
        if key in self.cache:
            return self.cache[key]
        name = hashlib.sha256(key.encode()).hexdigest()[:16]
        out = os.path.join(self.work, f"probe-{name}.so")
        defs = []
        for k, v in sorted(flags.items()):
            if k == "no_export":
                if v:
                    defs.append("-DPROBE_NO_EXPORT=1")
            elif k == "demand_name":
                defs.append(f'-DPROBE_DEMAND_NAME="{v}"')
            else:
                defs.append(f"-DPROBE_{k.upper()}={v}")
        subprocess.run(
            ["gcc", "-shared", "-fPIC", "-fvisibility=hidden", "-O1", "-Wall", "-Werror"]
            + defs + ["-o", out, os.path.join(HERE, "probe.c")],
            check=True,
        )
        self.cache[key] = out
        return out


def load(python, plugin, setting, name="probe", timeout=90):
    """One load in its own process: the verdict, the refusal's text, the calls received."""
    log = tempfile.NamedTemporaryFile(delete=False, suffix=".log")
    log.close()
    env = dict(os.environ)
    env.pop("ENABLE_PJRT_COMPATIBILITY", None)
    if setting != "unset":
        env["ENABLE_PJRT_COMPATIBILITY"] = setting
    env["PJRT_PROBE_LOG"] = log.name
    env["JAX_PLATFORMS"] = ""
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    start = time.monotonic()
    try:
        p = subprocess.run(
            [python, os.path.join(HERE, "load_one.py"), plugin, name],
            env=env, capture_output=True, text=True, timeout=timeout,
        )
        rc, stdout, stderr = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, stdout, stderr = None, e.stdout or "", e.stderr or ""
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
        stderr = stderr.decode() if isinstance(stderr, bytes) else stderr
    seconds = round(time.monotonic() - start, 2)
    calls = []
    with open(log.name) as f:
        for line in f:
            m = re.match(r"slot (\d+) size (\d+)", line)
            if m:
                calls.append([int(m.group(1)), int(m.group(2))])
    os.unlink(log.name)
    result = None
    for line in stdout.splitlines():
        if line.startswith("PJRT-PROBE-RESULT "):
            result = json.loads(line[len("PJRT-PROBE-RESULT "):])
    run = {"setting": setting, "calls": calls, "seconds": seconds}
    if rc is None:
        run.update(outcome="timeout", error=f"timeout after {timeout} s")
    elif rc < 0:
        sig = signal.Signals(-rc).name
        run.update(outcome="signal", error=sig, stderr_tail=stderr[-600:])
        # A fatal log line (glog's `F... file:line] text`) says why it aborted: kept whole, as the
        # tail above may end in the stack trace alone.
        fatal = [l.split("] ", 1)[1] for l in stderr.splitlines()
                 if re.match(r"F\d{4} [\d:.]+ +\d+ [\w.]+:\d+\] ", l)]
        if fatal:
            run["fatal"] = fatal[-1]
    elif result is None:
        run.update(outcome="exit", error=f"exit status {rc}", stderr_tail=stderr[-600:])
    else:
        err = result["error"]
        run["step"] = result["step"]
        run["raised"] = err
        if result["step"] == "done":
            run.update(outcome="loaded", error=None)
        elif MARKER in err:
            run.update(outcome="loaded", error=None)
        else:
            run.update(outcome="refused", error=err)
    return run


def version_ok(run):
    """Whether the release got past its version check (a crash later still counts)."""
    if run["outcome"] != "refused":
        return True
    return not re.search(r"PJRT API (major )?version", run.get("error") or "")


def framework_version(runs):
    for run in runs:
        m = re.search(r"framework PJRT API version (\d+)\.(\d+)", run.get("error") or "")
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def measure_release(release, python, probes):
    facts = {"jaxlib": release, "python": python, "runs": []}

    def run(setting, what, **flags):
        flags.setdefault("slots", SLOTS)
        r = load(python, probes.build(**flags), setting)
        r["probe"] = dict(flags, what=what)
        facts["runs"].append(r)
        print(f"  {release} {setting:5} {what:24} {r['outcome']:8} {(r['error'] or '')[:110]}",
              flush=True)
        return r

    first = run("0", "version 0.0", major=0, minor=0)
    fw = framework_version([first])
    if fw is None:
        facts["framework"] = None
        return facts
    major, minor = fw
    facts["framework"] = f"{major}.{minor}"
    for setting in SETTINGS:
        for what, ma, mi in [
            ("framework version", major, minor),
            ("one minor older", major, minor - 1),
            ("one minor newer", major, minor + 1),
            ("next major", major + 1, minor),
            ("version 0.0", major, 0),
        ]:
            if setting == "0" and what == "version 0.0":
                continue  # the first run
            run(setting, what, major=ma, minor=mi)
        # The smallest minor accepted, bisected over [0, framework's minor].
        lo, hi = 0, minor
        accepted = version_ok
        if accepted(run(setting, "bisect", major=major, minor=0)):
            facts.setdefault("min_minor", {})[setting] = 0
            continue
        if not accepted(run(setting, "bisect", major=major, minor=minor - 1)):
            facts.setdefault("min_minor", {})[setting] = minor
            continue
        lo, hi = 0, minor - 1  # lo refused, hi accepted
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if accepted(run(setting, "bisect", major=major, minor=mid)):
                hi = mid
            else:
                lo = mid
        facts.setdefault("min_minor", {})[setting] = hi
    for slot in NULL_SLOTS:
        run("unset", f"slot {slot} NULL", major=major, minor=minor, null_slot=slot)
    for size in SHORT_API_SIZES:
        run("unset", f"PJRT_Api size {size}", major=major, minor=minor, api_size=size)
    run("unset", "no GetPjrtApi", major=major, minor=minor, no_export=1)
    demands(facts, run)
    for t in EXT_TYPES:
        r = run("unset", f"extension {t} base only", major=major, minor=minor, ext_type=t,
                ext_size=24)
        # How far the release reads this extension without checking its struct_size: grow it
        # until the load survives.
        size = 24
        while r["outcome"] == "signal" and size < 128:
            size += 8
            r = run("unset", f"extension {t} size {size}", major=major, minor=minor, ext_type=t,
                    ext_size=size)
    return facts


def add_extents(path, python, probes):
    with gzip.open(path, "rt") as f:
        facts = json.load(f)
    major, minor = (int(x) for x in facts["framework"].split("."))
    facts["runs"] = [r for r in facts["runs"] if "ext_type" not in r["probe"]]

    def run(setting, what, **flags):
        flags.setdefault("slots", SLOTS)
        r = load(python, probes.build(**flags), setting)
        r["probe"] = dict(flags, what=what)
        facts["runs"].append(r)
        print(f"  {facts['jaxlib']} {setting:5} {what:24} {r['outcome']:8} {(r['error'] or '')[:110]}",
              flush=True)
        return r

    for t in EXT_TYPES:
        r = run("unset", f"extension {t} base only", major=major, minor=minor, ext_type=t,
                ext_size=24)
        size = 24
        while r["outcome"] == "signal" and size < 128:
            size += 8
            r = run("unset", f"extension {t} size {size}", major=major, minor=minor, ext_type=t,
                    ext_size=size)
    write(path, facts)


# The args structs of the slots the probe can refuse (probe.c's PROBE_DEMAND_*).
DEMAND_STRUCTS = {3: "PJRT_Plugin_Initialize_Args", 4: "PJRT_Plugin_Attributes_Args",
                  10: "PJRT_Client_Create_Args"}


def demands(facts, run):
    """A plugin built with a later header refuses the args of each slot the release calls: how
    the release reports it (an error, or an abort)."""
    major, minor = (int(x) for x in facts["framework"].split("."))
    base = next(r for r in facts["runs"]
                if r["probe"]["what"] == "framework version" and r["setting"] == "unset")
    passed = {}
    for slot, size in base["calls"]:
        passed.setdefault(slot, size)
    for slot, name in DEMAND_STRUCTS.items():
        if slot in passed:
            run("unset", f"slot {slot} demands more", major=major, minor=minor,
                demand_slot=slot, demand_size=passed[slot] + 8, demand_name=name)


def add_demands(path, python, probes):
    with gzip.open(path, "rt") as f:
        facts = json.load(f)
    facts["runs"] = [r for r in facts["runs"] if "demands more" not in r["probe"]["what"]]

    def run(setting, what, **flags):
        flags.setdefault("slots", SLOTS)
        r = load(python, probes.build(**flags), setting)
        r["probe"] = dict(flags, what=what)
        facts["runs"].append(r)
        print(f"  {facts['jaxlib']} {setting:5} {what:24} {r['outcome']:8} {(r['error'] or '')[:110]}",
              flush=True)
        return r

    demands(facts, run)
    write(path, facts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venvs", default="/work/venvs")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "releases", "pjrt", "jax"))
    ap.add_argument("--release", action="append", default=[])
    ap.add_argument("--plugin", action="append", default=[], help="NAME=PATH of a real plugin")
    ap.add_argument("--extents-only", action="store_true",
                    help="measure the extension probes again (how far each type is read)")
    ap.add_argument("--demands-only", action="store_true",
                    help="add the refusal probes to already measured releases")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="pjrt-probes-")
    probes = Probes(work)
    for release in args.release or releases():
        python = os.path.join(args.venvs, f"jax-{release}", "bin", "python")
        if not os.path.exists(python):
            print(f"{release}: no venv at {python}; run venvs.sh", file=sys.stderr)
            continue
        if args.extents_only:
            add_extents(os.path.join(args.out, f"{release}.json.gz"), python, probes)
            continue
        if args.demands_only:
            add_demands(os.path.join(args.out, f"{release}.json.gz"), python, probes)
            continue
        if args.plugin:
            for spec in args.plugin:
                name, path = spec.split("=", 1)
                facts = {"jaxlib": release, "plugin": name, "runs": []}
                for setting in SETTINGS:
                    # A neutral name: jax hides the failure of a backend it knows by name
                    # ("cuda": "Unknown backend cuda").
                    r = load(python, path, setting, name="plugin")
                    r["probe"] = {"what": name}
                    facts["runs"].append(r)
                    print(f"  {release} {setting:5} {name} {r['outcome']} {(r['error'] or '')[:120]}",
                          flush=True)
                write(os.path.join(args.out, f"{name}-{release}.json.gz"), facts)
            continue
        start = time.monotonic()
        facts = measure_release(release, python, probes)
        facts["seconds"] = round(time.monotonic() - start, 1)
        write(os.path.join(args.out, f"{release}.json.gz"), facts)
        print(f"{release}: framework {facts.get('framework')}, {len(facts['runs'])} runs, "
              f"{facts['seconds']} s", flush=True)


def write(path, facts):
    text = json.dumps(facts, indent=1, sort_keys=True) + "\n"
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(text.encode())


if __name__ == "__main__":
    main()
