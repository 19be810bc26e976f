#!/usr/bin/env python3
"""Compares `graphdef-versions releases --json` with what the real releases said (verdicts.json).

For every case and release: the verdict, then, when both refuse, the exception class and the
message (`errors[0]` against `str(e)`, both with what is not the file's doing taken out as the
crate's test `tests/graphdef_versions/wild.rs` takes it out: the Python stack TensorFlow puts
in a failed restore's text, the number of a pruned function, the `_k` suffix of a fed
placeholder's name; and when the crate lists several errors, those of a TensorFlow 1
SavedModel's failing signatures, TensorFlow's must be one of them). A SavedModel is also compared as `import_graph_def`
imports its first meta graph: its `graph_def` is written to a temporary file and given to the
tool as a GraphDef (this needs TensorFlow's protos: run this script with a TensorFlow venv's
Python). The tool runs with the cases' folder as its working directory and the case's name as
its path, as judge.py's loads do, and with `--host` set to the host the verdicts were made on.

Usage:
  python judge_venv/bin/python compare.py --cli target/release/graphdef-versions [--json OUT]
  ... compare.py --cli ... --set external --root DIR
Prints one line per disagreement and, at the end, the agreement per release.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The data this script reads and writes: the crate's tests/data/wild/.
DATA = os.path.join(HERE, "..", "..", "tests", "data", "wild")


def run_cli(cli, path, cwd, host):
    proc = subprocess.run([cli, "releases", path, "--json", "--host", host],
                          cwd=cwd, capture_output=True, text=True)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"unreadable": True, "error": f"exit {proc.returncode}: {proc.stderr.strip()}"}


def compare(case, how, report, expected, out):
    """Appends to out one record per release where report and expected differ."""
    if report.get("unreadable"):
        for release in expected:
            out.append({"case": case, "how": how, "release": release, "what": "unreadable",
                        "tf": summary(expected[release]), "ours": report["error"]})
        return
    ours = {r["release"]: r for r in report["releases"]}
    for release, tf in expected.items():
        mine = ours.get(release)
        if mine is None:
            continue
        base = {"case": case, "how": how, "release": release, "tf": summary(tf)}
        ours_text = "loads" if mine["accepted"] else f"{mine['error_class']}: {mine['errors'][0]}"
        if mine["accepted"] != tf["ok"]:
            out.append({**base, "what": "verdict", "ours": ours_text})
        elif not tf["ok"]:
            if mine["error_class"] != tf["error_class"]:
                out.append({**base, "what": "class", "ours": ours_text})
            elif not agrees(mine["errors"], tf["error"]):
                out.append({**base, "what": "message", "ours": ours_text})


def normalized(message):
    """A message with what is not the file's doing taken out (as `normalized` in wild.rs)."""
    lines = []
    in_stack = False
    for line in message.split("\n"):
        if line.startswith("Detected at node "):
            in_stack = True
            continue
        if in_stack:
            if line == "" or line.startswith(" ") or line.startswith("Node: '"):
                continue
            in_stack = False
        lines.append(line)
    text = re.sub(r"__inference_pruned_(\d+|N)", "__inference_pruned_N", "\n".join(lines))
    m = re.fullmatch(r"TF_Output (.*?)(_\d+)?(:0 appears more than once in the input list)", text)
    if m:
        text = f"TF_Output {m.group(1)}[_k]{m.group(3)}"
    return text


def agrees(ours, theirs):
    """The crate's first error is TensorFlow's; or, when it lists several (the failing
    signatures of a TensorFlow 1 SavedModel, any of which a run may raise first), one of them."""
    ours = [normalized(e) for e in ours]
    theirs = normalized(theirs)
    return ours[0] == theirs if len(ours) == 1 else theirs in ours


# The kinds of disagreement named in issue #25, told apart by what TF or the crate said.
KINDS = [
    ("1 colocation in function bodies", lambda tf, ours: "expects to be colocated with unknown node" in ours),
    ("2 object-graph revival", lambda tf, ours: "has no attribute 'add_slot'" in tf or "No encoder for object" in tf),
    ("4 missing variables", lambda tf, ours: "TensorSliceReader" in tf or "No such file or directory" in tf
     or "RestoreV2" in tf),
    ("3 TF1 signature pruning / shape inference", lambda tf, ours: "appears more than once in the input list" in tf
     or "has a reference type" in tf or "Shape must be" in tf or "Shapes must be" in tf),
]


def classify(d):
    """Every kind the disagreement shows: a refusal of ours TF does not make, and TF's own reason."""
    kinds = [name for name, test in KINDS if test(d["tf"], d["ours"])]
    return " + ".join(kinds) or "new kind"


# Names that vary from one run of the same release to the next (not the file's doing).
VARYING = [
    (re.compile(r"(StatefulPartitionedCall_\d+)(_\d+)?:0 appears"), r"\1[_<k>]:0 appears"),
    (re.compile(r"Output 0 of node '[^']+' has a reference type"), "Output 0 of node '<n>' has a reference type"),
]


def steady(text):
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text


def first_line(text, width=160):
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= width else line[:width] + "..."


RELEASES = ["2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2",
            "2.17.1", "2.18.1", "2.19.1", "2.20.0", "2.21.0"]


def releases_span(releases):
    """"2.12.1 to 2.15.1" for releases that follow each other, else each one."""
    at = sorted(RELEASES.index(r) for r in releases)
    if len(at) > 2 and at[-1] - at[0] == len(at) - 1:
        return f"{RELEASES[at[0]]} to {RELEASES[at[-1]]}"
    return ", ".join(RELEASES[i] for i in at)


def markdown(out):
    """One row per case, way of loading, kind and pair of answers, with the releases it covers."""
    rows = {}
    for d in out:
        key = (d["case"], d["how"], d["kind"], d["what"], first_line(steady(d["tf"]), 110),
               first_line(d["ours"], 110))
        rows.setdefault(key, []).append(d["release"])
    lines = ["| case | loaded as | releases | kind | differs in | TF said | the crate said |",
             "|---|---|---|---|---|---|---|"]
    for (case, how, kind, what, tf, ours), releases in rows.items():
        cell = lambda t: "`" + t.replace("|", "\\|").replace("`", "'") + "`"
        span = releases_span(releases)
        lines.append(f"| {case} | {how} | {span} | {kind} | {what} | {cell(tf)} | {cell(ours)} |")
    return "\n".join(lines) + "\n"


def summary(verdict):
    return "loads" if verdict["ok"] else f"{verdict['error_class']}: {verdict['error']}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", required=True, help="the graphdef-versions binary")
    p.add_argument("--cases", default=os.path.join(DATA, "cases.json"))
    p.add_argument("--set", choices=["kept", "external"], default="kept")
    p.add_argument("--root")
    p.add_argument("--verdicts")
    p.add_argument("--host", default="vm", help="the host name in TF's messages (the verdicts' machine)")
    p.add_argument("--json", help="write the disagreements here as JSON")
    p.add_argument("--markdown", help="write a table of the disagreements here")
    args = p.parse_args()
    root = os.path.abspath(args.root or os.path.join(DATA, "cases"))
    cli = os.path.abspath(args.cli)
    with open(args.verdicts or os.path.join(DATA, "verdicts.json" if args.set == "kept" else "external_verdicts.json")) as f:
        verdicts = json.load(f)
    with open(args.cases) as f:
        cases = [c for c in json.load(f) if c["kept"] == (args.set == "kept") and c["case"] in verdicts]

    out = []
    agree = {}
    for c in cases:
        name = c["case"]
        expected = verdicts[name]
        before = len(out)
        compare(name, "load", run_cli(cli, name, root, args.host), expected, out)
        if c["kind"] == "saved_model":
            from tensorflow.core.protobuf import saved_model_pb2
            with open(os.path.join(root, name, "saved_model.pb"), "rb") as f:
                graph = saved_model_pb2.SavedModel.FromString(f.read()).meta_graphs[0].graph_def
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "graph.pb")
                with open(path, "wb") as f:
                    f.write(graph.SerializeToString())
                imported = {r: v["import_graph_def"] for r, v in expected.items()}
                compare(name, "import_graph_def", run_cli(cli, path, tmp, args.host), imported, out)
        wrong = {(d["release"], d["how"]) for d in out[before:]}
        for release in expected:
            a = agree.setdefault(release, [0, 0, 0, 0])  # load agree, load total, import agree, import total
            a[0] += (release, "load") not in wrong
            a[1] += 1
            if c["kind"] == "saved_model":
                a[2] += (release, "import_graph_def") not in wrong
                a[3] += 1
    for d in out:
        d["kind"] = classify(d)
        print(f"{d['case']} [{d['how']}] {d['release']} {d['what']} ({d['kind']}): "
              f"TF {first_line(d['tf'])!r}; ours {first_line(d['ours'])!r}")
    print("\nrelease   as loaded (all cases)   import_graph_def of SavedModels")
    for release in sorted(agree):
        a = agree[release]
        print(f"{release}    {a[0]}/{a[1]}                    {a[2]}/{a[3]}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"disagreements": out, "agreement": agree}, f, indent=1)


if __name__ == "__main__":
    main()
