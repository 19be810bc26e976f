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

mod allocation;
mod kernels;

use allocation::{allocation_entry, merge_allocation};
use kernels::{kernel_table, probe_kernels};

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
