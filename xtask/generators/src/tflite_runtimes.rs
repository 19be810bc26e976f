//! TensorFlow Lite runtime facts for tflite-opver: probed from the real wheels, turned into
//! tables.
//!
//! - `cargo xtask tflite-runtimes [--venvs DIR] [--runtime NAME]...` installs each runtime's
//!   wheel into a scratch venv (`DIR/tf-<version>` for `tensorflow-cpu`, the venvs
//!   `cargo xtask tf-releases` makes too; `DIR/tflite-<dist>-<version>` for the others; a venv
//!   whose distribution is already at that version is reused) and runs
//!   `tflite_runtimes_probe.py` there, which hands small models to the runtime's Python
//!   interpreter and records what it constructs and what it refuses, in which words. The facts
//!   go to `crates/tflite-opver/runtimes/<family>-<version>.json.gz`, gzip-compressed JSON with
//!   sorted keys and no timestamp: committed, they are the source data.
//! - `cargo xtask codegen` turns them into `src/generated/runtimes.rs` ([`generate`]): per
//!   runtime, its registrations as one bitmask of versions per builtin code, the tensor types it
//!   accepts, its behaviours and its message templates. `--check` fails when that is stale.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::generated::{Files, facts_header};
use crate::gz::{gunzip, gzip};
use crate::venv::{self, run};

/// One runtime a Python 3.11 user on Linux x86-64 can install.
pub struct Runtime {
    /// The PyPI distribution.
    pub family: &'static str,
    pub version: &'static str,
    /// Pins installed beside it (the 1.0 releases of ai-edge-litert and tflite-runtime were
    /// built against numpy 1 but do not say so).
    pub pins: &'static [&'static str],
}

const NUMPY_1: &[&str] = &["numpy==1.26.4"];

macro_rules! runtimes {
    ($($family:literal $version:literal $pins:expr;)*) => {
        &[$(Runtime { family: $family, version: $version, pins: $pins },)*]
    };
}

/// Every runtime covered, as the crate lists them: by family, each oldest first. The
/// `tensorflow-cpu` releases are those of `cargo xtask tf-releases`; `tflite-runtime` 2.14.0 is
/// its only release with a CPython 3.11 wheel; the `ai-edge-litert` releases are every one with
/// a CPython 3.11 manylinux x86-64 wheel on PyPI when these facts were probed.
pub const RUNTIMES: &[Runtime] = runtimes! {
    "tensorflow-cpu" "2.12.1" &[];
    "tensorflow-cpu" "2.13.1" &[];
    "tensorflow-cpu" "2.14.1" &[];
    "tensorflow-cpu" "2.15.1" &[];
    "tensorflow-cpu" "2.16.2" &[];
    "tensorflow-cpu" "2.17.1" &[];
    "tensorflow-cpu" "2.18.1" &[];
    "tensorflow-cpu" "2.19.1" &[];
    "tensorflow-cpu" "2.20.0" &[];
    "tensorflow-cpu" "2.21.0" &[];
    "tflite-runtime" "2.14.0" NUMPY_1;
    "ai-edge-litert" "1.0.0" NUMPY_1;
    "ai-edge-litert" "1.0.1" NUMPY_1;
    "ai-edge-litert" "1.1.0" &[];
    "ai-edge-litert" "1.1.1" &[];
    "ai-edge-litert" "1.1.2" &[];
    "ai-edge-litert" "1.2.0" &[];
    "ai-edge-litert" "1.3.0" &[];
    "ai-edge-litert" "1.4.0" &[];
    "ai-edge-litert" "2.0.2" &[];
    "ai-edge-litert" "2.0.3" &[];
    "ai-edge-litert" "2.1.0" &[];
    "ai-edge-litert" "2.1.1" &[];
    "ai-edge-litert" "2.1.2" &[];
    "ai-edge-litert" "2.1.3" &[];
    "ai-edge-litert" "2.1.4" &[];
    "ai-edge-litert" "2.1.5" &[];
    "ai-edge-litert" "2.1.6" &[];
    "ai-edge-litert" "2.2.0" &[];
    "ai-edge-litert" "2.3.0" &[];
};

impl Runtime {
    /// As its users name it: `ai-edge-litert 2.3.0`.
    pub fn name(&self) -> String {
        format!("{} {}", self.family, self.version)
    }

    /// The venv it is probed in, below the `--venvs` folder.
    pub fn venv(&self, venvs: &Path) -> PathBuf {
        if self.family == "tensorflow-cpu" {
            venvs.join(format!("tf-{}", self.version))
        } else {
            venvs.join(format!("tflite-{}-{}", self.family, self.version))
        }
    }

    fn facts_file(&self) -> String {
        format!("{}-{}.json.gz", self.family, self.version)
    }
}

/// Where the facts live, relative to the workspace root.
const FACTS: &str = "crates/tflite-opver/runtimes";

/// The probe, run inside each runtime's venv, relative to the workspace root. It imports the
/// FlatBuffer writer beside it (`flatbuffer.py`, which `specimens.py` there shares).
const PROBE_SCRIPT: &str = "crates/tflite-opver/interop/runtimes/probe.py";

/// The allocation probe (custom and Flex ops at `allocate_tensors`), which `probe.py` imports
/// and `--part allocation` runs alone, relative to the workspace root.
const ALLOCATION_SCRIPT: &str = "crates/tflite-opver/interop/runtimes/allocation.py";

/// The kernel probe (one-operator models run to `invoke` and compared with the newest runtime),
/// which `--part kernels` runs in every venv, then once more to make the table.
const KERNELS_SCRIPT: &str = "crates/tflite-opver/interop/runtimes/kernels.py";

/// The kernel table, relative to the workspace root.
const KERNELS_FACTS: &str = "crates/tflite-opver/runtimes/kernels.json.gz";

/// The runtime every other one's kernels are compared with: the newest.
const KERNELS_REFERENCE: &str = "ai-edge-litert 2.3.0";

/// `cargo xtask tflite-runtimes`: probes `chosen` (all when empty) into the committed facts;
/// with `part` `allocation`, only their `allocation` section, merged into the facts there; with
/// `kernels`, the kernel table of every runtime (`kernels.json.gz`).
pub fn probe(
    root: &Path,
    venvs: &Path,
    chosen: &[String],
    part: Option<&str>,
) -> Result<(), String> {
    if part == Some("kernels") {
        if !chosen.is_empty() {
            return Err(
                "--part kernels compares every runtime with the newest: probe all of \
                        them (no --runtime)"
                    .to_owned(),
            );
        }
        return probe_kernels(root, venvs);
    }
    let allocation_only = part == Some("allocation");
    for name in chosen {
        if !RUNTIMES.iter().any(|r| &r.name() == name) {
            let known: Vec<String> = RUNTIMES.iter().map(Runtime::name).collect();
            return Err(format!(
                "unknown runtime {name:?}; the covered runtimes are {}",
                known.join(", ")
            ));
        }
    }
    let script = root.join(if allocation_only {
        ALLOCATION_SCRIPT
    } else {
        PROBE_SCRIPT
    });
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    fs::create_dir_all(root.join(FACTS)).map_err(|e| format!("{FACTS}: {e}"))?;
    for runtime in RUNTIMES {
        if !chosen.is_empty() && !chosen.contains(&runtime.name()) {
            continue;
        }
        let venv = runtime.venv(venvs);
        let python = venv::python(&venv);
        if !has_distribution(&python, runtime) {
            let mut requirements = vec![format!("{}=={}", runtime.family, runtime.version)];
            requirements.extend(runtime.pins.iter().map(|pin| pin.to_string()));
            venv::create(&venv, &requirements)?;
        }
        println!("probing {}", runtime.name());
        let out = scratch.path().join("facts.json");
        run(Command::new(&python)
            .arg(&script)
            .arg(&out)
            .arg(runtime.family)
            .arg(runtime.version)
            .env("TF_CPP_MIN_LOG_LEVEL", "3"))?;
        let mut json = fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let target = root.join(FACTS).join(runtime.facts_file());
        if allocation_only {
            json = merge_allocation(root, runtime, &json)?;
        }
        fs::write(&target, gzip(&json)?).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    println!("now run `cargo xtask codegen` to regenerate the runtime tables");
    Ok(())
}

/// `--part kernels`: runs `kernels.py probe` in every runtime's venv (each reads the runtime's
/// committed registrations, to stamp its probes), then `kernels.py table` over what they wrote,
/// gzipped into `KERNELS_FACTS`.
fn probe_kernels(root: &Path, venvs: &Path) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    let script = root.join(KERNELS_SCRIPT);
    let mut outputs = Vec::new();
    for runtime in RUNTIMES {
        let python = venv::python(&runtime.venv(venvs));
        if !has_distribution(&python, runtime) {
            return Err(format!(
                "{}: no venv with it; run `cargo xtask tflite-runtimes --runtime {:?}` first",
                runtime.name(),
                runtime.name()
            ));
        }
        println!("probing the kernels of {}", runtime.name());
        let out = scratch
            .path()
            .join(format!("{}.json", runtime.facts_file()));
        run(Command::new(&python)
            .arg(&script)
            .arg("probe")
            .arg(&out)
            .arg(runtime.family)
            .arg(runtime.version)
            .arg(root.join(FACTS).join(runtime.facts_file()))
            .env("TF_CPP_MIN_LOG_LEVEL", "3"))?;
        outputs.push(out);
    }
    let table = scratch.path().join("kernels.json");
    let reference = RUNTIMES
        .iter()
        .find(|r| r.name() == KERNELS_REFERENCE)
        .ok_or("no reference runtime")?;
    run(Command::new(venv::python(&reference.venv(venvs)))
        .arg(&script)
        .arg("table")
        .arg(&table)
        .arg(KERNELS_REFERENCE)
        .args(&outputs))?;
    let json = fs::read(&table).map_err(|e| format!("{}: {e}", table.display()))?;
    let target = root.join(KERNELS_FACTS);
    fs::write(&target, gzip(&json)?).map_err(|e| format!("{}: {e}", target.display()))?;
    println!("now run `cargo xtask codegen` to regenerate the kernel table");
    Ok(())
}

/// The committed facts of `runtime` with their `allocation` section replaced by the one in
/// `probed` (what `allocation.py` wrote), as `probe.py` writes them: sorted keys, one space of
/// indent per level, a final newline.
fn merge_allocation(root: &Path, runtime: &Runtime, probed: &[u8]) -> Result<Vec<u8>, String> {
    let mut facts = read_facts(root, runtime)?;
    let probed: Value =
        serde_json::from_slice(probed).map_err(|e| format!("allocation probe: {e}"))?;
    let section = probed
        .get("allocation")
        .cloned()
        .ok_or("the allocation probe wrote no `allocation`")?;
    facts
        .as_object_mut()
        .ok_or("the facts are not an object")?
        .insert("allocation".to_owned(), section);
    let mut text = python_json(&facts, 0);
    text.push('\n');
    Ok(text.into_bytes())
}

/// `value` as Python's `json.dump(indent=1, sort_keys=True)` writes it (serde_json's maps are
/// sorted), so that merging a section writes the bytes a full probe would.
fn python_json(value: &Value, depth: usize) -> String {
    let pad = |d: usize| " ".repeat(d);
    match value {
        Value::Array(items) if !items.is_empty() => {
            let inner: Vec<String> = items
                .iter()
                .map(|v| format!("{}{}", pad(depth + 1), python_json(v, depth + 1)))
                .collect();
            format!("[\n{}\n{}]", inner.join(",\n"), pad(depth))
        }
        Value::Object(map) if !map.is_empty() => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| {
                    format!(
                        "{}{}: {}",
                        pad(depth + 1),
                        python_string(k),
                        python_json(v, depth + 1)
                    )
                })
                .collect();
            format!("{{\n{}\n{}}}", inner.join(",\n"), pad(depth))
        }
        Value::String(s) => python_string(s),
        other => other.to_string(),
    }
}

/// A string as Python's `json` writes it (`ensure_ascii`: every non-ASCII character escaped).
fn python_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `allocation` section's fields of one runtime's entry.
fn allocation_entry(rs: &mut String, allocation: &Value) -> Result<(), String> {
    let missing = "no `allocation` facts: run `cargo xtask tflite-runtimes --part allocation`";
    let custom_ops = object(&allocation["custom_ops"], "allocation.custom_ops")
        .map_err(|_| missing.to_owned())?;
    rs.push_str("        custom_ops: &[");
    for (name, versions) in custom_ops {
        let mut mask = 0u64;
        for version in versions.as_array().ok_or("custom op versions")? {
            let version = version
                .as_u64()
                .filter(|&v| v < 64)
                .ok_or(format!("custom op {name}: version {version}"))?;
            mask |= 1 << version;
        }
        let _ = write!(rs, "({name:?}, {mask:#x}), ");
    }
    rs.push_str("],\n        delegate_examines: &[");
    for name in allocation["delegate_examines"]
        .as_array()
        .ok_or("allocation.delegate_examines")?
    {
        let _ = write!(rs, "{:?}, ", name.as_str().ok_or("a name")?);
    }
    rs.push_str("],\n");
    let flex_applied = allocation["flex_applied"]
        .as_bool()
        .ok_or("allocation.flex_applied")?;
    let messages = object(&allocation["messages"], "allocation.messages")?;
    let unresolved = messages
        .get("unresolved_custom")
        .and_then(Value::as_str)
        .ok_or("allocation.messages.unresolved_custom")?;
    let flex = messages.get("flex_unapplied").and_then(Value::as_str);
    if flex.is_some() == flex_applied {
        return Err(
            "allocation: flex_unapplied must be given exactly when Flex is not applied".into(),
        );
    }
    let _ = writeln!(
        rs,
        "        flex_applied: {flex_applied},\n        unresolved_custom: {unresolved:?},\n        \
         flex_unapplied: {:?},",
        flex.unwrap_or_default()
    );
    Ok(())
}

/// Whether the venv's python has the runtime's distribution at its version.
fn has_distribution(python: &Path, runtime: &Runtime) -> bool {
    python.exists()
        && Command::new(python)
            .arg("-c")
            .arg(format!(
                "import importlib.metadata as m, sys; sys.exit(m.version({:?}) != {:?})",
                runtime.family, runtime.version
            ))
            .output()
            .is_ok_and(|output| output.status.success())
}

fn read_facts(root: &Path, runtime: &Runtime) -> Result<Value, String> {
    let path = root.join(FACTS).join(runtime.facts_file());
    let compressed = fs::read(&path).map_err(|e| {
        format!(
            "{}: {e}; run `cargo xtask tflite-runtimes --runtime {:?}`",
            path.display(),
            runtime.name()
        )
    })?;
    let json = gunzip(&compressed, &path)?;
    let facts: Value =
        serde_json::from_slice(&json).map_err(|e| format!("{}: {e}", path.display()))?;
    if facts["family"] != runtime.family || facts["version"] != runtime.version {
        return Err(format!(
            "{}: not the facts of {}",
            path.display(),
            runtime.name()
        ));
    }
    Ok(facts)
}

/// The message kinds every runtime's facts hold, in the generated struct's order.
const MESSAGES: &[&str] = &[
    "not_found",
    "out_of_range",
    "no_custom_code",
    "schema_version",
    "no_subgraphs",
    "no_buffers",
    "no_tensors",
    "unsupported_type",
    "buffer_out_of_range",
    "quantization_no_zero_point",
    "quantization_counts",
    "quantization_dimension",
    "quantization_scales",
    "variable_with_buffer",
    "size_mismatch",
    "elements_overflow",
    "bytes_overflow",
    "string_variable",
    "sparsity_invalid",
];

/// The behaviours every runtime's facts hold, each a `bool` field of the generated struct.
const BEHAVIOURS: &[&str] = &[
    "verifies",
    "larger_buffer_accepted",
    "empty_data_is_constant",
    "negative_dimension_refused",
];

/// Behaviours the crate's model of construction takes for granted: a runtime that differs
/// needs a change there, not only new facts.
const ASSUMED: &[&str] = &[
    "registration_stops_at_first_failure",
    "unresolved_custom_op_constructs",
    "tensor_messages_concatenate",
    "no_subgraphs_vector_crashes",
];

/// The generator `cargo xtask codegen` runs for tflite-opver: module `runtimes`.
pub fn generate(root: &Path) -> Result<(&'static str, Files), String> {
    let facts = RUNTIMES
        .iter()
        .map(|runtime| read_facts(root, runtime))
        .collect::<Result<Vec<_>, _>>()?;

    // One table of builtin names: every runtime's schema names each code it knows alike.
    let mut names: BTreeMap<i64, String> = BTreeMap::new();
    for (runtime, facts) in RUNTIMES.iter().zip(&facts) {
        for (code, name) in object(&facts["names"], "names")? {
            let code: i64 = code.parse().map_err(|_| format!("names: code {code}"))?;
            let name = name.as_str().unwrap_or_default().to_string();
            if let Some(other) = names.insert(code, name.clone())
                && other != name
            {
                return Err(format!(
                    "{}: calls builtin code {code} {name}, another runtime {other}",
                    runtime.name()
                ));
            }
        }
    }
    let max_code = *names.keys().last().ok_or("no builtin names")?;
    if names
        .keys()
        .copied()
        .ne((0..=max_code).filter(|&c| c != 32))
    {
        return Err("the runtimes' names leave a builtin code out".to_string());
    }

    let mut rs = String::new();
    let _ = writeln!(
        rs,
        "{}\n// TensorFlow Lite runtimes: {} of them, probed from their real wheels by `cargo xtask\n\
         // tflite-runtimes` into `{FACTS}/` (see its probe script for how each fact was found).\n",
        facts_header(FACTS, "tflite-runtimes"),
        RUNTIMES.len()
    );
    rs.push_str(
        "/// One runtime's facts.\n\
         pub struct RuntimeFacts {\n\
         \x20   /// The PyPI distribution: `tensorflow-cpu`, `tflite-runtime` or `ai-edge-litert`.\n\
         \x20   pub family: &'static str,\n\
         \x20   /// Its release, as PyPI names it.\n\
         \x20   pub version: &'static str,\n\
         \x20   /// The Python class probed.\n\
         \x20   pub interpreter: &'static str,\n\
         \x20   /// The highest builtin code it knows.\n\
         \x20   pub max_builtin_code: i32,\n\
         \x20   /// Per builtin code (the index), the versions its op resolver registers: bit `v` for\n\
         \x20   /// version `v`.\n\
         \x20   pub registrations: &'static [u64],\n\
         \x20   /// The tensor types it accepts, by schema value.\n\
         \x20   pub types: &'static [TypeFacts],\n",
    );
    for behaviour in BEHAVIOURS {
        let _ = writeln!(rs, "    pub {behaviour}: bool,");
    }
    rs.push_str(
        "    /// The verifier's refusal, when it verifies.\n    pub verifier: &'static str,\n\
         \x20   /// The builtin codes whose operators need their options table, each with the\n\
         \x20   /// refusal of one without (`ParseOpData`).\n\
         \x20   pub options_required: &'static [(i32, &'static str)],\n",
    );
    for message in MESSAGES {
        let _ = writeln!(rs, "    pub {message}: &'static str,");
    }
    rs.push_str(
        "    /// The custom ops its default op resolver registers, each with its versions (bit `v`\n\
         \x20   /// for version `v`), found at `allocate_tensors` (`allocation.py`).\n\
         \x20   pub custom_ops: &'static [(&'static str, u64)],\n\
         \x20   /// Custom op names no resolver of it registers but a default delegate (XNNPACK)\n\
         \x20   /// examines at `allocate_tensors`: a node it accepts runs.\n\
         \x20   pub delegate_examines: &'static [&'static str],\n\
         \x20   /// Whether its interpreter applies the Flex delegate by itself, so that `Flex*`\n\
         \x20   /// custom ops run.\n\
         \x20   pub flex_applied: bool,\n\
         \x20   /// `allocate_tensors`' refusal of a custom op no resolver registers (`{op}`, `{node}`).\n\
         \x20   pub unresolved_custom: &'static str,\n\
         \x20   /// Its refusal of a `Flex*` op when the Flex delegate is not applied; empty when it is.\n\
         \x20   pub flex_unapplied: &'static str,\n",
    );
    rs.push_str(
        "}\n\n/// One tensor type a runtime accepts.\n\
         pub struct TypeFacts {\n\
         \x20   /// The schema's `TensorType` value.\n\
         \x20   pub value: i8,\n\
         \x20   /// Bits per element of a constant's buffer; 0: not checked; `None`: a constant of\n\
         \x20   /// this type is refused (`constant_refusal`).\n\
         \x20   pub bits: Option<u8>,\n\
         \x20   pub read_write_refusal: Option<&'static str>,\n\
         \x20   pub constant_refusal: Option<&'static str>,\n\
         }\n\n",
    );
    let _ = writeln!(
        rs,
        "/// The builtin operators' names in the runtimes' schemas, by code (`CUSTOM`, 32, is\n\
         /// looked up by name and has none here).\n\
         pub static NAMES: [&str; {}] = [",
        max_code + 1
    );
    for code in 0..=max_code {
        let _ = writeln!(rs, "    {:?},", names.get(&code).map_or("", String::as_str));
    }
    rs.push_str("];\n\n/// The runtimes, by family, each oldest first.\npub static RUNTIMES: &[RuntimeFacts] = &[\n");
    for (runtime, facts) in RUNTIMES.iter().zip(&facts) {
        runtime_entry(&mut rs, runtime, facts).map_err(|e| format!("{}: {e}", runtime.name()))?;
    }
    rs.push_str("];\n");
    kernel_table(root, &mut rs)?;

    let mut files = Files::new();
    files.insert("runtimes.rs".to_string(), rs.into_bytes());
    Ok(("runtimes", files))
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a serde_json::Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("{what} is not an object"))
}

fn runtime_entry(rs: &mut String, runtime: &Runtime, facts: &Value) -> Result<(), String> {
    let behaviours = object(&facts["behaviours"], "behaviours")?;
    for assumed in ASSUMED {
        if behaviours.get(*assumed).and_then(Value::as_bool) != Some(true) {
            return Err(format!(
                "behaviour {assumed} is not true: the crate's model of construction assumes it"
            ));
        }
    }
    let max_code = facts["max_builtin_code"]
        .as_i64()
        .ok_or("no max_builtin_code")?;
    let mut masks = vec![0u64; usize::try_from(max_code + 1).map_err(|_| "max code")?];
    for (code, versions) in object(&facts["registrations"], "registrations")? {
        let code: usize = code.parse().map_err(|_| format!("code {code}"))?;
        let slot = masks
            .get_mut(code)
            .ok_or(format!("code {code} above the max"))?;
        for version in versions.as_array().ok_or("versions")? {
            let version = version.as_u64().filter(|&v| v < 64).ok_or(format!(
                "code {code}: version {version} outside 0..64 (widen the bitmask)"
            ))?;
            *slot |= 1 << version;
        }
    }
    let _ = writeln!(
        rs,
        "    RuntimeFacts {{\n        family: {:?},\n        version: {:?},\n        interpreter: {:?},\n        \
         max_builtin_code: {max_code},\n        registrations: &[",
        runtime.family,
        runtime.version,
        facts["interpreter"].as_str().unwrap_or_default()
    );
    for chunk in masks.chunks(8) {
        let row: Vec<String> = chunk.iter().map(|m| format!("{m:#x}")).collect();
        let _ = writeln!(rs, "            {},", row.join(", "));
    }
    rs.push_str("        ],\n        types: &[\n");
    let mut types: Vec<(i64, &Value)> = object(&facts["types"], "types")?
        .iter()
        .map(|(value, entry)| Ok((value.parse().map_err(|_| format!("type {value}"))?, entry)))
        .collect::<Result<_, String>>()?;
    types.sort_by_key(|(value, _)| *value);
    let text = |value: &Value| -> String {
        value
            .as_str()
            .map_or_else(|| "None".to_string(), |s| format!("Some({s:?})"))
    };
    for (value, entry) in types {
        let bits = entry["bits"]
            .as_u64()
            .map_or_else(|| "None".to_string(), |b| format!("Some({b})"));
        let _ = writeln!(
            rs,
            "            TypeFacts {{ value: {value}, bits: {bits}, read_write_refusal: {}, constant_refusal: {} }},",
            text(&entry["read_write_refusal"]),
            text(&entry["constant_refusal"])
        );
    }
    rs.push_str("        ],\n");
    for behaviour in BEHAVIOURS {
        let value = behaviours
            .get(*behaviour)
            .and_then(Value::as_bool)
            .ok_or(format!("no behaviour {behaviour}"))?;
        let _ = writeln!(rs, "        {behaviour}: {value},");
    }
    // An operator that constructs without its options at no version of a registered code: the
    // texts of its failures, which must not depend on the version.
    let mut options_required: BTreeMap<i64, String> = BTreeMap::new();
    for (pair, text) in object(
        &facts["registered_but_construction_failed"],
        "registered_but_construction_failed",
    )? {
        let code: i64 = pair
            .split(' ')
            .next()
            .and_then(|c| c.parse().ok())
            .ok_or(format!("registered_but_construction_failed: {pair}"))?;
        let text = text.as_str().ok_or("a text")?.to_string();
        if let Some(other) = options_required.insert(code, text.clone())
            && other != text
        {
            return Err(format!(
                "code {code} fails in two ways: {other:?}, {text:?}"
            ));
        }
    }
    rs.push_str("        options_required: &[");
    for (code, text) in &options_required {
        let _ = write!(rs, "({code}, {text:?}), ");
    }
    rs.push_str("],\n");
    let messages = object(&facts["messages"], "messages")?;
    let _ = writeln!(
        rs,
        "        verifier: {:?},",
        messages
            .get("verifier")
            .and_then(Value::as_str)
            .unwrap_or_default()
    );
    for message in MESSAGES {
        let template = messages
            .get(*message)
            .and_then(Value::as_str)
            .ok_or(format!("no message {message}"))?;
        let _ = writeln!(rs, "        {message}: {template:?},");
    }
    allocation_entry(rs, &facts["allocation"])?;
    rs.push_str("    },\n");
    Ok(())
}

/// The kernel table (`KERNELS_FACTS`, made by `--part kernels`): every probe, and how each
/// runtime (in `RUNTIMES`' order) met it, with its text in `KERNEL_TEXTS`.
fn kernel_table(root: &Path, rs: &mut String) -> Result<(), String> {
    let path = root.join(KERNELS_FACTS);
    let compressed = fs::read(&path).map_err(|e| {
        format!(
            "{}: {e}; run `cargo xtask tflite-runtimes --part kernels`",
            path.display()
        )
    })?;
    let facts: Value = serde_json::from_slice(&gunzip(&compressed, &path)?)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let reference = facts["reference"].as_str().ok_or("kernels: no reference")?;
    let tolerance = facts["tolerance"].as_str().ok_or("kernels: no tolerance")?;
    let _ = write!(
        rs,
        "\n/// One tensor of a kernel probe.\n\
         pub struct ProbeTensor {{\n\
         \x20   /// The schema's `TensorType` value.\n    pub type_value: i8,\n\
         \x20   /// A constant (weights, axes, shapes, paddings) or a variable (LSTM states).\n\
         \x20   pub constant: bool,\n\
         \x20   /// Its quantization scale (the probe's own); 0 when not quantized.\n\
         \x20   pub scale: f64,\n}}\n\n\
         /// One probe: a model of one builtin operator, its inputs set from a seeded generator.\n\
         pub struct KernelProbe {{\n\
         \x20   pub id: &'static str,\n    pub builtin_code: i32,\n\
         \x20   /// What else it stands for (`broadcast5`, `approximate`, `no_bias`...); empty for\n\
         \x20   /// the plain probe.\n    pub form: &'static str,\n\
         \x20   /// `None`: an optional input left out (-1).\n\
         \x20   pub inputs: &'static [Option<ProbeTensor>],\n\
         \x20   pub outputs: &'static [ProbeTensor],\n\
         \x20   /// Per runtime, in `RUNTIMES`' order, one letter: `o` it ran to the reference's outputs,\n\
         \x20   /// `n` the builtin is not registered, `p` `allocate_tensors()` raised, `i` `invoke()`\n\
         \x20   /// raised, `s` the process died, `w` it ran to other outputs.\n\
         \x20   pub outcomes: &'static str,\n\
         \x20   /// Per runtime, its text's index in `KERNEL_TEXTS` (0: none).\n\
         \x20   pub texts: &'static [u16],\n}}\n\n\
         /// The runtime the kernel probes compare every runtime with.\n\
         pub static KERNEL_REFERENCE: &str = {reference:?};\n\
         /// When two outputs are equal.\n\
         pub static KERNEL_TOLERANCE: &str = {tolerance:?};\n\n"
    );
    let names: Vec<String> = RUNTIMES.iter().map(Runtime::name).collect();
    let mut texts: Vec<String> = vec![String::new()];
    let mut text_index = |text: String| -> Result<u16, String> {
        if let Some(i) = texts.iter().position(|t| *t == text) {
            return Ok(i as u16);
        }
        texts.push(text);
        u16::try_from(texts.len() - 1).map_err(|_| "too many kernel texts".to_owned())
    };
    let tensor = |t: &Value| -> Result<String, String> {
        let kind = t["type"].as_str().ok_or("kernels: a tensor type")?;
        let value = match kind {
            "float32" => 0,
            "int32" => 2,
            "uint8" => 3,
            "int64" => 4,
            "bool" => 6,
            "int16" => 7,
            "int8" => 9,
            other => return Err(format!("kernels: tensor type {other}")),
        };
        let scale = match t["quant"].as_array() {
            Some(q) => q[0].as_f64().ok_or("kernels: a scale")?,
            None => 0.0,
        };
        Ok(format!(
            "ProbeTensor {{ type_value: {value}, constant: {}, scale: {scale:?} }}",
            t["const"].as_bool().unwrap_or(false)
        ))
    };
    let probes = facts["probes"].as_array().ok_or("kernels: no probes")?;
    let mut body = String::new();
    for probe in probes {
        let id = probe["id"].as_str().ok_or("kernels: a probe id")?;
        let mut inputs = Vec::new();
        for input in probe["inputs"].as_array().ok_or("kernels: inputs")? {
            inputs.push(if input.is_null() {
                "None".to_owned()
            } else {
                format!("Some({})", tensor(input)?)
            });
        }
        let outputs = probe["outputs"]
            .as_array()
            .ok_or("kernels: outputs")?
            .iter()
            .map(tensor)
            .collect::<Result<Vec<_>, _>>()?;
        let mut outcomes = Vec::new();
        let mut letters = String::new();
        for name in &names {
            let outcome = &probe["runtimes"][name.as_str()];
            let stage = outcome["stage"]
                .as_str()
                .ok_or(format!("kernels: {id}: no outcome for {name}"))?;
            let error = outcome["error"].as_str().unwrap_or_default();
            let (kind, text) = match stage {
                "ok" => ('o', String::new()),
                "construct" => ('n', String::new()),
                "prepare" => ('p', error.to_owned()),
                "invoke" => ('i', error.to_owned()),
                "signal" => (
                    's',
                    match outcome["signal"].as_i64() {
                        Some(6) => "the process aborted (SIGABRT)".to_owned(),
                        Some(11) => "the process faulted (SIGSEGV)".to_owned(),
                        Some(n) => format!("the process died of signal {n}"),
                        None => "the process did not finish in 60 s".to_owned(),
                    },
                ),
                "wrong" => (
                    'w',
                    format!(
                        "outputs differ from {reference}'s in {} of {} elements (largest \
                         difference {})",
                        outcome["elements_differing"],
                        outcome["elements"],
                        outcome["max_difference"]
                    ),
                ),
                other => return Err(format!("kernels: {id}: stage {other}")),
            };
            letters.push(kind);
            outcomes.push(text_index(text)?.to_string());
        }
        let _ = writeln!(
            body,
            "    KernelProbe {{\n        id: {id:?},\n        builtin_code: {},\n        form: {:?},\n        \
             inputs: &[{}],\n        outputs: &[{}],\n        outcomes: {letters:?},\n        texts: &[{}],\n    }},",
            probe["builtin_code"],
            probe["name"].as_str().unwrap_or_default(),
            inputs.join(", "),
            outputs.join(", "),
            outcomes.join(", ")
        );
    }
    let _ = writeln!(
        rs,
        "/// Every kernel probe, in `kernels.py`'s order.\npub static KERNEL_PROBES: &[KernelProbe] = &[\n{body}];\n\n\
         /// The texts of the kernel outcomes: the runtime's own (`allocate_tensors()`, `invoke()`),\n\
         /// or what was seen (a signal, outputs that differ); index 0 is empty.\n\
         pub static KERNEL_TEXTS: &[&str] = &["
    );
    for text in &texts {
        let _ = writeln!(rs, "    {text:?},");
    }
    rs.push_str("];\n");
    Ok(())
}
