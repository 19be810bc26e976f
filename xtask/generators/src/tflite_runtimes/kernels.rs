//! The kernel table: one-operator probes run to `invoke` in every runtime and compared with
//! the newest (`--part kernels`), and its generated Rust.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::{FACTS, RUNTIMES, Runtime, has_distribution};
use crate::gz::{gunzip, gzip};
use crate::venv::{self, run};

/// The kernel probe (one-operator models run to `invoke` and compared with the newest runtime),
/// which `--part kernels` runs in every venv, then once more to make the table.
const KERNELS_SCRIPT: &str = "crates/tflite-opver/interop/runtimes/kernels.py";

/// The kernel table, relative to the workspace root.
const KERNELS_FACTS: &str = "crates/tflite-opver/runtimes/kernels.json.gz";

/// The runtime every other one's kernels are compared with: the newest.
const KERNELS_REFERENCE: &str = "ai-edge-litert 2.3.0";

/// `--part kernels`: runs `kernels.py probe` in every runtime's venv (each reads the runtime's
/// committed registrations, to stamp its probes), then `kernels.py table` over what they wrote,
/// gzipped into `KERNELS_FACTS`.
pub(super) fn probe_kernels(root: &Path, venvs: &Path) -> Result<(), String> {
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

/// The kernel table (`KERNELS_FACTS`, made by `--part kernels`): every probe, and how each
/// runtime (in `RUNTIMES`' order) met it, with its text in `KERNEL_TEXTS`.
pub(super) fn kernel_table(root: &Path, rs: &mut String) -> Result<(), String> {
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
