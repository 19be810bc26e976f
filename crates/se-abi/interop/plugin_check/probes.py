"""Builds the probe plugins and loads each into the ten real releases: the verdicts are se-abi's
test data for `se-abi plugin-check --run` (tests/data/probe_verdicts.json).

    python3 probes.py --venvs DIR [--out FILE] [--release R ...] [--only NAME ...]

The probe is examples/tf_probe.rs, a plugin that breaks one thing at a time as the environment
variable SE_ABI_PROBE asks (see its docs). Besides the probe itself, a few files around it are
built with the C compiler from tests/c/probe_shim.c, as se-abi's tests build them (see
`VARIANTS`): the probe with its section headers stripped, shims that need a library nobody has,
TensorFlow's own library, or that import TensorFlow's functions, C and C++ (with an ELF symbol
version). DIR holds one venv per release, `tf-<release>` (see judge.py). About 40 minutes for
the whole set on two cores.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import judge

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.dirname(os.path.dirname(HERE))
ROOT = os.path.dirname(os.path.dirname(CRATE))
SHIM = os.path.join(CRATE, "tests", "c", "probe_shim.c")

# The probe's structs, and the function members of each (TensorFlow 2.21's header, in order).
FUNCTIONS = {
    "SE_PlatformRegistrationParams": ["destroy_platform", "destroy_platform_fns"],
    "SP_PlatformFns": ["get_device_count", "create_device", "destroy_device",
                       "create_device_fns", "destroy_device_fns", "create_stream_executor",
                       "destroy_stream_executor", "create_timer_fns", "destroy_timer_fns"],
    "SP_DeviceFns": ["get_numa_node", "get_memory_bandwidth", "get_gflops"],
    "SP_StreamExecutor": [
        "allocate", "deallocate", "host_memory_allocate", "host_memory_deallocate",
        "unified_memory_allocate", "unified_memory_deallocate", "get_allocator_stats",
        "device_memory_usage", "create_stream", "destroy_stream", "create_stream_dependency",
        "get_stream_status", "create_event", "destroy_event", "get_event_status",
        "record_event", "wait_for_event", "create_timer", "destroy_timer", "start_timer",
        "stop_timer", "memcpy_dtoh", "memcpy_htod", "memcpy_dtod", "sync_memcpy_dtoh",
        "sync_memcpy_htod", "sync_memcpy_dtod", "block_host_for_event",
        "block_host_until_done", "synchronize_all_activity", "mem_zero", "memset", "memset32",
        "host_callback"],
    "SP_TimerFns": ["nanoseconds"],
}
# struct_size: 0, an older header's (a size some release shipped, or the struct without its
# last member), a newer header's (one more pointer).
SIZES = {
    "SE_PlatformRegistrationParams": [0, 56, 72],
    "SP_Platform": [0, 34, 48],
    "SP_PlatformFns": [0, 80, 96],
    "SP_DeviceFns": [0, 32, 48],
    "SP_StreamExecutor": [0, 264, 280, 296],
    "SP_TimerFns": [0, 16, 32],
}
# The order of TensorFlow's checks in stream_executor.cc (ValidateSPPlatformFns and
# ValidateSPStreamExecutor), every member any release checks: the chains below NULL a suffix of
# it, so that each release names the first member it checks of those left.
ORDER = {
    "SP_PlatformFns": ["create_device", "destroy_device", "create_stream_executor",
                       "destroy_stream_executor", "create_timer_fns", "destroy_timer_fns",
                       "create_device_fns", "destroy_device_fns"],
    "SP_StreamExecutor": [
        "allocate", "deallocate", "get_allocator_stats", "host_memory_allocate",
        "host_memory_deallocate", "device_memory_usage", "create_stream", "destroy_stream",
        "create_stream_dependency", "get_stream_status", "create_event", "destroy_event",
        "get_event_status", "record_event", "wait_for_event", "create_timer", "destroy_timer",
        "start_timer", "stop_timer", "memcpy_dtoh", "memcpy_htod", "sync_memcpy_dtoh",
        "sync_memcpy_htod", "block_host_for_event", "synchronize_all_activity",
        "host_callback", "mem_zero", "memset", "memset32"],
}


def probes():
    """(name, variant, SE_ABI_PROBE) of every probe."""
    out = [("complete", "probe", "")]
    for st, members in FUNCTIONS.items():
        for member in members:
            out.append((f"null {st}.{member}", "probe", f"null={st}.{member}"))
    out.append(("unified, both unified members set", "probe", "unified"))
    for member in ["unified_memory_allocate", "unified_memory_deallocate"]:
        out.append((f"unified, null {member}", "probe",
                    f"unified;null=SP_StreamExecutor.{member}"))
    for st, sizes in SIZES.items():
        for size in sizes:
            out.append((f"size {st} {size}", "probe", f"size={st}:{size}"))
    for field in ["name", "type"]:
        for label, value in [("NULL", "@null"), ("empty", ""), ("lowercase", "probe"),
                             ("with a digit", "PROBE2")]:
            out.append((f"{field} {label}", "probe", f"{field}={value}"))
    out.append(("name and type both lowercase", "probe", "name=probe;type=probe"))
    for name in ["HOST", "INTERPRETER", "CUDA", "ROCM", "SYCL"]:
        out.append((f"name {name}", "probe", f"name={name}"))
    out.append(("type CPU", "probe", "type=CPU"))
    out.append(("type CPU, zero devices", "probe", "type=CPU;devices=0"))
    out.append(("type GPU", "probe", "type=GPU"))
    for function in ["SE_InitPlugin", "create_device_fns", "create_stream_executor",
                     "create_timer_fns", "get_device_count"]:
        out.append((f"status in {function}", "probe",
                    f"status={function}:9:PROBE: refused in {function}"))
    out.append(("status INTERNAL in SE_InitPlugin", "probe",
                "status=SE_InitPlugin:13:PROBE: an internal error"))
    out.append(("zero devices", "probe", "devices=0"))
    out.append(("three devices", "probe", "devices=3"))
    out.append(("negative devices", "probe", "devices=-1"))
    for function in ["SE_InitPlugin", "create_stream_executor", "get_device_count"]:
        out.append((f"crash in {function}", "probe", f"crash={function}"))
    for function in ["SE_InitPlugin", "get_device_count"]:
        out.append((f"exit 3 in {function}", "probe", f"exit={function}:3"))
    out.append(("stdout 200 KB", "probe", "stdout=200000"))
    out.append(("stdout one unflushed line", "probe", "stdout-unflushed=PROBE: buffered"))
    out.append(("fork", "probe", "fork"))
    for st, order in ORDER.items():
        for k in range(len(order)):
            nulls = ";".join(f"null={st}.{m}" for m in order[k:])
            out.append((f"chain {st} from {order[k]}", "probe", nulls))
    out.append(("null SP_PlatformFns.create_device and SP_StreamExecutor.allocate", "probe",
                "null=SP_PlatformFns.create_device;null=SP_StreamExecutor.allocate"))
    out.append(("size SP_Platform 0 and null SP_PlatformFns.create_device", "probe",
                "size=SP_Platform:0;null=SP_PlatformFns.create_device"))
    for variant in ["stripped", "missing", "missing-stripped", "links-tf", "imports-tf",
                    "imports-versioned"]:
        out.append((f"file {variant}", variant, ""))
    out.append(("file links-tf, status in SE_InitPlugin", "links-tf",
                "status=SE_InitPlugin:9:PROBE: refused through TensorFlow's own TF_SetStatus"))
    return out


def strip_section_headers(source, target):
    """`source` without section headers (e_shoff, e_shnum, e_shstrndx zero), as sstrip leaves
    a library: the dynamic loader never reads them."""
    data = bytearray(open(source, "rb").read())
    data[0x28:0x30] = bytes(8)
    data[0x3c:0x40] = bytes(4)
    open(target, "wb").write(data)


def cc(*args):
    compiler = os.environ.get("CC", "cc")
    subprocess.run([compiler, *args], check=True)


def stub(directory, soname, symbols=(), version=None):
    """A library in `directory` with soname `soname` defining `symbols`, only to link against."""
    os.makedirs(directory, exist_ok=True)
    source = os.path.join(directory, soname + ".c")
    with open(source, "w") as f:
        f.write("".join(f"void {s}(void) {{}}\n" for s in symbols) or "int se_abi_stub;\n")
    args = ["-shared", "-fPIC", "-o", os.path.join(directory, soname), source,
            f"-Wl,-soname,{soname}"]
    if version:
        script = os.path.join(directory, soname + ".map")
        with open(script, "w") as f:
            f.write(f"{version} {{ global: *; }};\n")
        args.append(f"-Wl,--version-script={script}")
    cc(*args)


def build(directory, framework_dir=None):
    """Builds every variant into `directory`; returns {variant: path}. `framework_dir` holds a
    real libtensorflow_framework.so.2 to link `links-tf` against (else a stub)."""
    subprocess.run(["cargo", "build", "--quiet", "-p", "se-abi", "--example", "tf-probe"],
                   cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    probe = os.path.join(directory, "libtf_probe.so")
    shutil.copy(os.path.join(target, "debug", "examples", "libtf_probe.so"), probe)
    stubs = os.path.join(directory, "link-only")
    stub(stubs, "libse_abi_missing.so")
    stub(stubs, "_pywrap_tensorflow_internal.so",
         ["_ZN10tensorflow8internal15LogMessageFatalD1Ev"], "tensorflow")
    if framework_dir is None:
        stub(stubs, "libtensorflow_framework.so.2", ["TF_SetStatus"])
        framework_dir = stubs
    variants = {"probe": probe}

    def shim(name, *args):
        path = os.path.join(directory, f"libtf_probe_{name.replace('-', '_')}.so")
        cc("-shared", "-fPIC", "-o", path, SHIM, "-Wl,--no-as-needed", "-Wl,--enable-new-dtags",
           "-Wl,-rpath,$ORIGIN", f"-L{directory}", "-l:libtf_probe.so", *args)
        variants[name] = path
        return path

    variants["stripped"] = os.path.join(directory, "libtf_probe_stripped.so")
    strip_section_headers(probe, variants["stripped"])
    missing = shim("missing", f"-L{stubs}", "-l:libse_abi_missing.so")
    variants["missing-stripped"] = os.path.join(directory, "libtf_probe_missing_stripped.so")
    strip_section_headers(missing, variants["missing-stripped"])
    shim("links-tf", "-DIMPORT_C", f"-L{framework_dir}", "-l:libtensorflow_framework.so.2")
    shim("imports-tf", "-DIMPORT_C")
    shim("imports-versioned", "-DIMPORT_VERSIONED", f"-L{stubs}",
         "-l:_pywrap_tensorflow_internal.so")
    return variants


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venvs", required=True)
    parser.add_argument("--out", default=os.path.join(CRATE, "tests", "data",
                                                      "probe_verdicts.json"))
    parser.add_argument("--release", action="append", help="only these releases")
    parser.add_argument("--only", action="append", help="only probes whose name contains this")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="se-abi-probes-")
    framework = os.path.join(args.venvs, "tf-2.21.0")
    packages = judge.site_packages(os.path.join(framework, "bin", "python"))
    variants = build(directory, os.path.join(packages, "tensorflow"))
    chosen = [p for p in probes() if not args.only or any(o in p[0] for o in args.only)]
    plugins = [(name, variants[variant], [f"SE_ABI_PROBE={spec}"] if spec else [])
               for name, variant, spec in chosen]
    verdicts = judge.judge_all(args.venvs, plugins, args.release or judge.RELEASES,
                               workers=args.workers)
    for name, variant, spec in chosen:
        verdicts[name] = {"variant": variant, "probe": spec, "releases": verdicts[name]["releases"]}
    if os.path.exists(args.out) and (args.only or args.release):
        with open(args.out) as f:
            old = json.load(f)
        for name, entry in verdicts.items():
            old.setdefault(name, entry)["releases"].update(entry["releases"])
            old[name]["variant"], old[name]["probe"] = entry["variant"], entry["probe"]
        verdicts = old
    with open(args.out, "w") as out:
        json.dump(verdicts, out, indent=1, sort_keys=True)
        out.write("\n")
    shutil.rmtree(directory)
    print(f"{len(chosen)} probes, written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
