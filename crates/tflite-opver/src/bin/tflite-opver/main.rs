//! `tflite-opver`: inspect, check and re-stamp `.tflite` models.
//!
//! ```text
//! tflite-opver inspect MODEL [--json]
//! tflite-opver check MODEL --runtime VERSION|"RUNTIME NAME" [--custom NAME]... [--json]
//! tflite-opver check MODEL --delegate gpu|nnapi|xnnpack [--json]
//! tflite-opver runtimes MODEL [--require "ai-edge-litert 1.4.0"]... [--json]
//! tflite-opver stamp MODEL -o OUT [--minimize]
//! ```
//!
//! Exit status: 0 done (the model runs), 1 the model does not run on the runtime (or the
//! delegate refuses a node on version grounds; or no runtime loads it, or a `--require`d one
//! refuses it), 2 the input could not be read or the usage is wrong. Every message on stderr
//! starts with `tflite-opver: `.

mod delegate;
mod input;
mod limits;
mod outcome;
mod runtimes;
mod warnings;

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Value, json};
use tflite_opver::{
    Error, MinRuntimeCause, Model, OpVersion, OperatorKind, Resolver, Runtime, RuntimeVersion,
    StampMode, StampWarning, VersionReason, stamp,
};

use crate::input::{Input, read_input};
use crate::outcome::{Outcome, chain, exit_code, print, print_json};

/// The binary's name, which starts every message it writes to stderr.
const TOOL: &str = "tflite-opver";

#[derive(Parser)]
#[command(
    name = TOOL,
    version,
    about = "TensorFlow Lite op versions: inspect, check and re-stamp .tflite models",
    after_help = "Exit status: 0 done (the model runs), 1 the model does not run on the runtime \
                  or the delegate refuses a node on version grounds (runtimes: no runtime \
                  loads it, or a required one refuses it), 2 unreadable input or bad usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Operator codes with stored and required versions, custom ops, minimum runtime.
    Inspect(InspectArgs),
    /// Will the model run on a TFLite release (every operator code it lacks), or which nodes
    /// would a delegate refuse on version grounds?
    Check(CheckArgs),
    /// Which real TensorFlow Lite runtimes (tensorflow-cpu, tflite-runtime, ai-edge-litert)
    /// load the model, and in what words the others refuse it.
    Runtimes(RuntimesArgs),
    /// Re-stamp operator code versions and the min_runtime_version metadata.
    Stamp(StampArgs),
}

#[derive(Args)]
struct RuntimesArgs {
    /// The .tflite model.
    model: PathBuf,
    /// A runtime the deploy needs, as "ai-edge-litert 1.4.0" (repeatable): exit 1 when one
    /// refuses the model.
    #[arg(long = "require", value_name = "RUNTIME", value_parser = Runtime::from_str)]
    required: Vec<Runtime>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct InspectArgs {
    /// The .tflite model.
    model: PathBuf,
    /// Print one JSON object instead of a table (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct CheckArgs {
    /// The .tflite model.
    model: PathBuf,
    /// A TFLite release, dot-separated numbers such as 2.3.0 (TF's op table, and the custom
    /// ops every default resolver registers), or a real runtime as `runtimes` names it,
    /// "tflite-runtime 2.14.0" (exactly the verdict `runtimes` gives it).
    #[arg(long, value_parser = CheckRuntime::parse, required_unless_present = "delegate")]
    runtime: Option<CheckRuntime>,
    /// A custom op the runtime has (any version); repeatable.
    #[arg(long = "custom", value_name = "NAME", conflicts_with = "delegate")]
    customs: Vec<String>,
    /// Instead of a runtime, a TFLite delegate: lists the nodes it refuses on version grounds.
    #[arg(long, value_enum, conflicts_with = "runtime")]
    delegate: Option<delegate::DelegateName>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

/// What `check --runtime` names: a TFLite release, or one of the real runtimes.
#[derive(Clone)]
enum CheckRuntime {
    Release(RuntimeVersion),
    Named(Runtime),
}

impl CheckRuntime {
    fn parse(text: &str) -> Result<Self, String> {
        if let Some(runtime) = Runtime::find(text) {
            return Ok(CheckRuntime::Named(runtime));
        }
        if text.trim().contains(' ') {
            return Err(Error::UnknownRuntime {
                name: text.to_owned(),
            }
            .to_string());
        }
        RuntimeVersion::from_str(text)
            .map(CheckRuntime::Release)
            .map_err(|e| e.to_string())
    }
}

#[derive(Args)]
struct StampArgs {
    /// The .tflite model.
    model: PathBuf,
    /// Where to write the re-stamped model (may be the model itself).
    #[arg(short, long)]
    output: PathBuf,
    /// Set each code to exactly what its operators need (may lower versions), instead of only
    /// raising like TensorFlow's UpdateOpVersion.
    #[arg(long)]
    minimize: bool,
}

/// Why a run could not conclude: exit 2.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// The file could not be opened, inspected or mapped.
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The file is larger than any FlatBuffer: nothing is read.
    #[error(
        "{} is {len} bytes, above the {max} bytes (1 TiB) this tool maps: no TFLite model is \
         that large",
        path.display()
    )]
    TooLarge { path: PathBuf, len: u64, max: u64 },
    /// The path names a directory, a pipe or a device.
    #[error("{} is {what}, not a file: give a .tflite model", path.display())]
    NotAFile { path: PathBuf, what: &'static str },
    /// The bytes are not a model TFLite would load.
    #[error("cannot read {} as a TFLite model", path.display())]
    Input {
        path: PathBuf,
        #[source]
        source: Error,
    },
    /// The model was read, but cannot be re-stamped.
    #[error("cannot re-stamp {}", path.display())]
    Stamp {
        path: PathBuf,
        #[source]
        source: Error,
    },
    /// The re-stamped model could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// `--custom` with a real runtime's name: its resolver is what was probed.
    #[error(
        "--custom adds a custom op to a TFLite release (--runtime 2.14.0); {runtime}'s default \
         op resolver is what was probed from its wheel, so --custom does not apply to it"
    )]
    CustomWithNamedRuntime { runtime: String },
    /// Standard output is closed or full.
    #[error("cannot write to standard output")]
    Output(#[source] io::Error),
}

fn main() -> ExitCode {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    exit_code(run(cli))
}

fn run(cli: Cli) -> Result<Outcome, CliError> {
    match cli.command {
        Command::Inspect(args) => inspect(&args),
        Command::Check(args) => check(&args),
        Command::Runtimes(args) => runtimes(&args),
        Command::Stamp(args) => restamp(&args),
    }
}

/// The command line, with `runtimes --help` listing the names `--require` takes, read from the
/// runtime table when the tool runs (never a list kept by hand).
fn command() -> clap::Command {
    Cli::command().mut_subcommand("runtimes", |runtimes| runtimes.after_help(runtime_names()))
}

/// Every runtime `--require` takes, by family, oldest first.
fn runtime_names() -> String {
    let mut text = String::from(
        "Runtimes --require takes, named as \"FAMILY RELEASE\" (\"ai-edge-litert 1.4.0\"):",
    );
    let mut family = None;
    for runtime in Runtime::all() {
        let this = runtime.family().to_string();
        if family.as_ref() != Some(&this) {
            let _ = write!(text, "\n  {this}:");
            family = Some(this);
        }
        let _ = write!(text, " {}", runtime.version());
    }
    text
}

/// Maps `path` (at most [`MAX_FILE_LEN`] bytes). A `.tflite` model can be hundreds of megabytes
/// of weights, and the tool reads only its tables (operator codes, tensors, operators) and a few
/// metadata bytes: mapping the file lets the kernel hand over the pages that are read, with no
/// buffer allocated and filled first.
fn read_model_file(path: &Path) -> Result<Input, CliError> {
    read_input(path, MAX_FILE_LEN)
}

/// The largest file the tool maps: 1 TiB. A model's FlatBuffer is at most 2 GiB
/// ([`MAX_MODEL_LEN`](tflite_opver::MAX_MODEL_LEN)), but a model over 2 GB keeps its large buffers after the FlatBuffer, at
/// absolute file offsets, and TensorFlow Lite loads such files; so the file itself may be larger.
/// Mapping copies nothing, and the library bounds-checks every offset against the bytes, so the
/// bound only refuses what no real model is.
const MAX_FILE_LEN: u64 = 1 << 40;

/// Reads and validates the model in `bytes`, read from `path`.
fn open<'a>(path: &Path, bytes: &'a [u8]) -> Result<Model<'a>, CliError> {
    Model::from_bytes(bytes).map_err(|source| CliError::Input {
        path: path.to_owned(),
        source,
    })
}

/// With `--json`, a run that cannot conclude still prints one JSON object, naming the error.
fn report_unreadable(path: &Path, as_json: bool, error: CliError) -> CliError {
    if as_json {
        // The error itself is what matters; if stdout is gone too, stderr still says why.
        let _ = print_json(&json!({
            "file": path.display().to_string(),
            "unreadable": true,
            "error": chain(&error),
        }));
    }
    error
}

fn code_name(kind: OperatorKind<'_>, builtin_code: i32) -> String {
    match kind {
        OperatorKind::Builtin(op) => op
            .name()
            .map_or_else(|| builtin_code.to_string(), str::to_owned),
        OperatorKind::Custom(name) => name.to_owned(),
    }
}

fn inspect(args: &InspectArgs) -> Result<Outcome, CliError> {
    let path = &args.model;
    let bytes = read_model_file(path).map_err(|e| report_unreadable(path, args.json, e))?;
    let model = open(path, &bytes).map_err(|e| report_unreadable(path, args.json, e))?;
    let loader = tflite_opver::loader_limits(&model);
    let judged = judge(&model);
    if args.json {
        let mut value = inspect_json(path, &model, &judged);
        value["warnings"] = warnings::warnings_json(&judged.warnings);
        value["verifier_tables"] = json!(loader.tables);
        value["loader_warnings"] = limits::warnings_json(&loader);
        print_json(&value)?;
    } else {
        print(&inspect_text(path, &model, &judged))?;
        warnings::warn(path, &judged.warnings);
        limits::warn(path, &loader);
    }
    Ok(Outcome::Accepted)
}

/// What the tool says beside the codes: each code's required version and its reason, the
/// minimum runtime with the code that forced it, and the stamps that are too low or missing.
/// One pass over the operators.
struct Judged {
    reasons: Vec<VersionReason>,
    cause: Option<MinRuntimeCause>,
    warnings: Vec<StampWarning>,
}

fn judge(model: &Model<'_>) -> Judged {
    let reasons = model.required_version_reasons();
    let required: Vec<_> = reasons.iter().map(VersionReason::version).collect();
    let cause = model.min_runtime_cause_with(&required);
    let warnings = model.stamp_warnings_for(&reasons);
    Judged {
        reasons,
        cause,
        warnings,
    }
}

fn inspect_json(path: &Path, model: &Model<'_>, judged: &Judged) -> Value {
    let Judged { reasons, cause, .. } = judged;
    let codes: Vec<_> = model
        .operator_codes()
        .iter()
        .zip(reasons)
        .map(|(code, reason)| {
            json!({
                "name": code.builtin.name().map_or_else(|| code.builtin.code().to_string(), str::to_owned),
                "builtin_code": code.builtin.code(),
                "custom_code": code.custom_code,
                "stored_version": code.version.get(),
                "required_version": reason.version().get(),
                "reason": reason.to_string(),
            })
        })
        .collect();
    let required_runtime = cause
        .as_ref()
        .map(|c| c.min_runtime.to_string())
        .unwrap_or_default();
    let because = cause.as_ref().map(|c| {
        let code = model.operator_codes()[c.code];
        json!({
            "name": code_name(code.kind(), code.builtin.code()),
            "version": c.version.get(),
        })
    });
    json!({
        "file": path.display().to_string(),
        "unreadable": false,
        "schema_version": model.schema_version(),
        "subgraphs": model.subgraph_count(),
        "operators": model.operator_count(),
        "operator_codes": codes,
        "min_runtime_version": {
            "stored": model.stored_min_runtime_version(),
            "required": required_runtime,
            "because": because,
        },
    })
}

fn inspect_text(path: &Path, model: &Model<'_>, judged: &Judged) -> String {
    let Judged { reasons, cause, .. } = judged;
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        text,
        "{}: schema v{}, {} subgraph(s), {} operator(s), {} operator code(s)",
        path.display(),
        model.schema_version(),
        model.subgraph_count(),
        model.operator_count(),
        model.operator_codes().len()
    );
    let _ = writeln!(
        text,
        "  #  operator                           code  stored  required  why"
    );
    for (i, (code, reason)) in model.operator_codes().iter().zip(reasons).enumerate() {
        let required = &reason.version();
        let name = code_name(code.kind(), code.builtin.code());
        let name = if code.is_custom() {
            format!("{name} (custom)")
        } else {
            name
        };
        let note = if code.is_custom() {
            "  (custom: not judged)"
        } else if *required > code.version {
            "  <- stamped too low"
        } else if *required < code.version {
            "  (higher than needed)"
        } else {
            ""
        };
        let stored = format!("v{}", code.version.get());
        let _ = writeln!(
            text,
            "{i:>3}  {name:<34} {:>4}  {stored:<7} {:<9} {}{note}",
            code.builtin.code(),
            format!("v{}", required.get()),
            reason.rule()
        );
    }
    let quoted =
        |text: Option<String>| text.map_or_else(|| "(none)".to_owned(), |s| format!("{s:?}"));
    let because = cause.as_ref().map_or_else(String::new, |c| {
        let code = model.operator_codes()[c.code];
        format!(
            ", because of {} v{}",
            code_name(code.kind(), code.builtin.code()),
            c.version
        )
    });
    let _ = writeln!(
        text,
        "min_runtime_version: stored {}, required {}{because}",
        quoted(model.stored_min_runtime_version().map(str::to_owned)),
        quoted(cause.as_ref().map(|c| c.min_runtime.to_string())),
    );
    text
}

fn check(args: &CheckArgs) -> Result<Outcome, CliError> {
    let path = &args.model;
    let bytes = read_model_file(path).map_err(|e| report_unreadable(path, args.json, e))?;
    let model = open(path, &bytes).map_err(|e| report_unreadable(path, args.json, e))?;
    let judged = judge(&model);
    let runtime = match (&args.runtime, args.delegate) {
        (_, Some(name)) => {
            return delegate::check(path, &model, name, args.json, &judged.warnings);
        }
        (Some(CheckRuntime::Named(runtime)), None) if !args.customs.is_empty() => {
            return Err(CliError::CustomWithNamedRuntime {
                runtime: runtime.to_string(),
            });
        }
        (Some(CheckRuntime::Named(runtime)), None) => {
            return check_named(path, &model, *runtime, args.json, &judged.warnings);
        }
        (Some(CheckRuntime::Release(runtime)), None) => runtime,
        // clap requires one of the two.
        (None, None) => return Ok(Outcome::Accepted),
    };
    let mut resolver = Resolver::for_runtime(runtime);
    // The custom ops every real runtime's default resolver registers (`AudioSpectrogram`,
    // `Mfcc`...): TFLite's `BuiltinOpResolver` (`tensorflow/lite/core/kernels/register.cc`).
    for (name, versions) in common_custom_ops() {
        for version in versions {
            // A single version is never an empty range.
            let _ = resolver.add_custom(&name, version, version, ());
        }
    }
    for name in &args.customs {
        // Every version of the custom op: the range is never empty, so this cannot fail.
        let _ = resolver.add_custom(name, OpVersion::new(i32::MIN), OpVersion::new(i32::MAX), ());
    }
    let stored: Vec<_> = model
        .operator_codes()
        .iter()
        .map(|c| (c.kind(), c.version))
        .collect();
    let unresolved: Vec<_> = resolver.unresolved(&stored).collect();
    // Would a minimized model run? Then re-stamping is the fix.
    let minimized: Vec<_> = model
        .operator_codes()
        .iter()
        .zip(&judged.reasons)
        .map(|(c, reason)| (c.kind(), reason.version()))
        .collect();
    let runs_when_minimized = resolver.check(&minimized).is_ok();
    let name_of = |i: usize| {
        let code = model.operator_codes()[i];
        (code_name(code.kind(), code.builtin.code()), code.version)
    };
    if args.json {
        let unresolved: Vec<_> = unresolved
            .iter()
            .map(|(i, error)| {
                let (name, version) = name_of(*i);
                json!({
                    "operator_code": i,
                    "name": name,
                    "version": version.get(),
                    "error": error.to_string(),
                })
            })
            .collect();
        print_json(&json!({
            "file": path.display().to_string(),
            "unreadable": false,
            "runtime": runtime.to_string(),
            "runs": unresolved.is_empty(),
            "unresolved": unresolved,
            "runs_when_minimized": runs_when_minimized,
            "warnings": warnings::warnings_json(&judged.warnings),
        }))?;
    } else if unresolved.is_empty() {
        print(&format!("{}: runs on TFLite {runtime}\n", path.display()))?;
        warnings::warn(path, &judged.warnings);
    } else {
        // One line per unresolved code, each starting with the tool's name.
        let file = path.display();
        let mut text = format!(
            "{TOOL}: {file} does not run on TFLite {runtime}: {} operator code(s) cannot be resolved\n",
            unresolved.len()
        );
        for (i, error) in &unresolved {
            let (name, version) = name_of(*i);
            // Writing to a String cannot fail.
            let _ = writeln!(
                text,
                "{TOOL}: {file}: operator code {i} ({name} v{version}): {error}"
            );
        }
        let flex: Vec<String> = Runtime::all()
            .filter(|r| r.applies_flex())
            .map(|r| r.to_string())
            .collect();
        if unresolved
            .iter()
            .any(|(_, e)| matches!(e, tflite_opver::ResolveError::FlexOpNotApplied { .. }))
            && !flex.is_empty()
        {
            let _ = writeln!(
                text,
                "{TOOL}: note: TFLite {runtime} itself has no Flex delegate; the \
                 tf.lite.Interpreter of {} applies one by itself (check --runtime \"NAME\" \
                 judges a real runtime)",
                flex.join(", ")
            );
        }
        if runs_when_minimized {
            let _ = writeln!(
                text,
                "{TOOL}: hint: its versions are stamped higher than its operators need; \
                 `tflite-opver stamp {file} -o OUT --minimize` gives a model that runs on \
                 TFLite {runtime}"
            );
        }
        eprint!("{text}");
        warnings::warn(path, &judged.warnings);
    }
    Ok(if unresolved.is_empty() {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    })
}

/// The custom ops (and versions) the default resolver of every real runtime registers.
fn common_custom_ops() -> Vec<(String, Vec<OpVersion>)> {
    let mut all = Runtime::all();
    let Some(first) = all.next() else {
        return Vec::new();
    };
    let rest: Vec<Runtime> = all.collect();
    first
        .custom_ops()
        .map(|(name, versions)| {
            let kept = versions
                .into_iter()
                .filter(|&v| rest.iter().all(|r| r.registers_custom(name, v)))
                .collect::<Vec<_>>();
            (name.to_owned(), kept)
        })
        .filter(|(_, versions)| !versions.is_empty())
        .collect()
}

/// `check --runtime "NAME"`: exactly the verdict `runtimes` gives that runtime.
fn check_named(
    path: &Path,
    model: &Model<'_>,
    runtime: Runtime,
    as_json: bool,
    warnings: &[StampWarning],
) -> Result<Outcome, CliError> {
    let verdict = runtime.load(model);
    let runs = verdict.runs();
    let kernels = model.kernel_gaps();
    if as_json {
        let mut entry = runtimes::runtime_json(model, &verdict, &kernels);
        if let Value::Object(map) = &mut entry {
            map.insert("file".to_owned(), json!(path.display().to_string()));
            map.insert("unreadable".to_owned(), json!(false));
            map.insert("warnings".to_owned(), warnings::warnings_json(warnings));
        }
        print_json(&entry)?;
    } else if runs == Some(false) {
        let file = path.display();
        let mut text = format!(
            "{TOOL}: {file} does not run on {runtime}: {}\n",
            runtimes::one_line(&verdict)
        );
        for blocking in &verdict.blocking {
            let _ = writeln!(
                text,
                "{TOOL}: {file}: {}",
                runtimes::blocking_text(model, blocking)
            );
        }
        eprint!("{text}");
        warnings::warn(path, warnings);
    } else {
        let mut text = format!(
            "{}: {runtime}: {}\n",
            path.display(),
            runtimes::one_line(&verdict)
        );
        if verdict.loads() {
            for gap in kernels.of(runtime) {
                let _ = writeln!(text, "  {}", runtimes::gap_text(gap));
            }
        }
        print(&text)?;
        warnings::warn(path, warnings);
    }
    Ok(if runs == Some(false) {
        Outcome::Rejected
    } else {
        Outcome::Accepted
    })
}

fn runtimes(args: &RuntimesArgs) -> Result<Outcome, CliError> {
    let path = &args.model;
    let bytes = read_model_file(path).map_err(|e| report_unreadable(path, args.json, e))?;
    let model = open(path, &bytes).map_err(|e| report_unreadable(path, args.json, e))?;
    let warnings = model.stamp_warnings();
    runtimes::judge(path, &model, &args.required, args.json, &warnings)
}

fn restamp(args: &StampArgs) -> Result<Outcome, CliError> {
    let path = &args.model;
    let bytes = read_model_file(path)?;
    let model = open(path, &bytes)?;
    let mode = if args.minimize {
        StampMode::Minimize
    } else {
        StampMode::Raise
    };
    let stamped = stamp(&bytes, mode).map_err(|source| CliError::Stamp {
        path: path.to_owned(),
        source,
    })?;
    // What was wrong with the stamps, said beside each change.
    let found = model.stamp_warnings();
    let mut report = String::new();
    for change in &stamped.changes {
        let code = model.operator_codes()[change.code];
        let why = found
            .iter()
            .find_map(|warning| match warning {
                StampWarning::VersionTooLow { code, reason, .. } if *code == change.code => {
                    Some(format!(" (stored lower than its operators need: {reason})"))
                }
                _ => None,
            })
            .unwrap_or_default();
        // Writing to a String cannot fail.
        let _ = writeln!(
            report,
            "{}: v{} -> v{}{why}",
            code_name(code.kind(), code.builtin.code()),
            change.from,
            change.to
        );
    }
    let runtime_why = found
        .iter()
        .find_map(|warning| match warning {
            StampWarning::NoMetadata { .. } => Some(
                " (added: the model had no metadata vector; added it, the entry and its buffer)",
            ),
            StampWarning::NoMinRuntimeVersion { .. } => {
                Some(" (added: the model's metadata had no min_runtime_version entry)")
            }
            StampWarning::MinRuntimeVersionTooLow { .. } => {
                Some(" (the stored one was lower than its operators need)")
            }
            StampWarning::VersionTooLow { .. } => None,
        })
        .unwrap_or_default();
    // Before writing: which runtimes that construct the model as it is would refuse the
    // re-stamped copy.
    let before = model.runtime_verdicts();
    if let Ok(after) = Model::from_bytes(&stamped.bytes).map(|m| m.runtime_verdicts()) {
        let excluded: Vec<String> = before
            .iter()
            .zip(after.iter())
            .filter(|(b, a)| b.loads() && !a.loads())
            .map(|(b, _)| b.runtime.to_string())
            .collect();
        print(&if excluded.is_empty() {
            "no known runtime that loads the model refuses the re-stamped copy\n".to_owned()
        } else {
            format!(
                "the re-stamped copy is refused by {} known runtime(s) that load the model as \
                 it is: {}\n",
                excluded.len(),
                excluded.join(", ")
            )
        })?;
    }
    // The output may be the input file: unmap it before writing over it.
    drop(model);
    drop(bytes);
    std::fs::write(&args.output, &stamped.bytes).map_err(|source| CliError::Write {
        path: args.output.clone(),
        source,
    })?;
    let _ = writeln!(
        report,
        "min_runtime_version: {} -> {:?}{runtime_why}",
        stamped
            .min_runtime_before
            .as_deref()
            .map_or_else(|| "(none)".to_owned(), |s| format!("{s:?}")),
        stamped.min_runtime_after
    );
    let _ = writeln!(
        report,
        "wrote {} ({} operator code(s) changed{})",
        args.output.display(),
        stamped.changes.len(),
        if stamped.extended {
            ", fields added"
        } else {
            ""
        }
    );
    print(&report)?;
    Ok(Outcome::Accepted)
}
