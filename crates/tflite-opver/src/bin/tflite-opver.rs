//! `tflite-opver`: inspect, check and re-stamp `.tflite` models.
//!
//! Exit codes: 0 ok (or the model runs), 1 the model does not run on the given runtime,
//! 2 unreadable input or bad usage.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;
use tflite_opver::{Model, OpVersion, OperatorKind, Resolver, RuntimeVersion, StampMode, stamp};

#[derive(Parser)]
#[command(
    name = "tflite-opver",
    version,
    about = "TensorFlow Lite op versions: inspect, check and re-stamp .tflite models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Operator codes with stored and required versions, custom ops, minimum runtime.
    Inspect {
        /// The .tflite model.
        model: PathBuf,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Will the model run on a TFLite release? Lists every operator code it lacks.
    Check {
        /// The .tflite model.
        model: PathBuf,
        /// The TFLite runtime release, e.g. 2.3.0.
        #[arg(long)]
        runtime: String,
        /// A custom op the runtime has (any version); repeatable.
        #[arg(long = "custom", value_name = "NAME")]
        customs: Vec<String>,
    },
    /// Re-stamp operator code versions and the min_runtime_version metadata.
    Stamp {
        /// The .tflite model.
        model: PathBuf,
        /// Where to write the re-stamped model.
        #[arg(short, long)]
        output: PathBuf,
        /// Set each code to exactly what its operators need (may lower versions), instead of
        /// only raising like TensorFlow's UpdateOpVersion.
        #[arg(long)]
        minimize: bool,
    },
}

/// A failure to report, with its exit code.
struct Failure {
    code: u8,
    message: String,
}

fn bad_input(message: String) -> Failure {
    Failure { code: 2, message }
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))
}

fn open<'a>(path: &Path, bytes: &'a [u8]) -> Result<Model<'a>, Failure> {
    Model::from_bytes(bytes).map_err(|e| bad_input(format!("{}: {e}", path.display())))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect { model, json } => inspect(&model, json),
        Command::Check {
            model,
            runtime,
            customs,
        } => check(&model, &runtime, &customs),
        Command::Stamp {
            model,
            output,
            minimize,
        } => restamp(&model, &output, minimize),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn code_name(kind: OperatorKind<'_>, builtin_code: i32) -> String {
    match kind {
        OperatorKind::Builtin(op) => op
            .name()
            .map_or_else(|| builtin_code.to_string(), str::to_owned),
        OperatorKind::Custom(name) => name.to_owned(),
    }
}

fn inspect(path: &Path, as_json: bool) -> Result<(), Failure> {
    let bytes = read(path)?;
    let model = open(path, &bytes)?;
    let required = model.required_versions();
    let stored_runtime = model.stored_min_runtime_version();
    let required_runtime = model
        .required_min_runtime_version()
        .map(|v| v.to_string())
        .unwrap_or_default();
    if as_json {
        let codes: Vec<_> = model
            .operator_codes()
            .iter()
            .zip(&required)
            .map(|(code, required)| {
                json!({
                    "name": code.builtin.name().map_or_else(|| code.builtin.code().to_string(), str::to_owned),
                    "builtin_code": code.builtin.code(),
                    "custom_code": code.custom_code,
                    "stored_version": code.version.get(),
                    "required_version": required.get(),
                })
            })
            .collect();
        let out = json!({
            "file": path.display().to_string(),
            "schema_version": model.schema_version(),
            "subgraphs": model.subgraph_count(),
            "operators": model.operator_count(),
            "operator_codes": codes,
            "min_runtime_version": { "stored": stored_runtime, "required": required_runtime },
        });
        println!("{out:#}");
        return Ok(());
    }
    println!(
        "{}: schema v{}, {} subgraph(s), {} operator(s), {} operator code(s)",
        path.display(),
        model.schema_version(),
        model.subgraph_count(),
        model.operator_count(),
        model.operator_codes().len()
    );
    println!("  #  operator                           code  stored  required");
    for (i, (code, required)) in model.operator_codes().iter().zip(&required).enumerate() {
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
        println!(
            "{i:>3}  {name:<34} {:>4}  {stored:<7} v{}{note}",
            code.builtin.code(),
            required.get()
        );
    }
    println!(
        "min_runtime_version: stored {}, required {}",
        stored_runtime.map_or_else(|| "(none)".to_owned(), |s| format!("{s:?}")),
        if required_runtime.is_empty() {
            "(none)".to_owned()
        } else {
            format!("{required_runtime:?}")
        }
    );
    Ok(())
}

fn check(path: &Path, runtime: &str, customs: &[String]) -> Result<(), Failure> {
    let runtime = RuntimeVersion::parse(runtime).map_err(|e| bad_input(e.to_string()))?;
    let bytes = read(path)?;
    let model = open(path, &bytes)?;
    let mut resolver = Resolver::for_runtime(&runtime);
    for name in customs {
        resolver
            .add_custom(name, OpVersion::new(i32::MIN), OpVersion::new(i32::MAX), ())
            .map_err(|e| bad_input(e.to_string()))?;
    }
    let stored: Vec<_> = model
        .operator_codes()
        .iter()
        .map(|c| (c.kind(), c.version))
        .collect();
    match resolver.check(&stored) {
        Ok(()) => {
            println!("{}: runs on TFLite {runtime}", path.display());
            Ok(())
        }
        Err(error) => {
            // Would a minimized model run? Then re-stamping is the fix.
            let required = model.required_versions();
            let minimized: Vec<_> = model
                .operator_codes()
                .iter()
                .zip(&required)
                .map(|(c, v)| (c.kind(), *v))
                .collect();
            let hint = if resolver.check(&minimized).is_ok() {
                format!(
                    "\nhint: its versions are stamped higher than its operators need; \
                     `tflite-opver stamp {} -o OUT --minimize` gives a model that runs on TFLite {runtime}",
                    path.display()
                )
            } else {
                String::new()
            };
            Err(Failure {
                code: 1,
                message: format!(
                    "{} does not run on TFLite {runtime}: {error}{hint}",
                    path.display()
                ),
            })
        }
    }
}

fn restamp(path: &Path, output: &Path, minimize: bool) -> Result<(), Failure> {
    let bytes = read(path)?;
    open(path, &bytes)?;
    let mode = if minimize {
        StampMode::Minimize
    } else {
        StampMode::Raise
    };
    let stamped = stamp(&bytes, mode).map_err(|e| bad_input(format!("{}: {e}", path.display())))?;
    std::fs::write(output, &stamped.bytes)
        .map_err(|e| bad_input(format!("cannot write {}: {e}", output.display())))?;
    let model = Model::from_bytes(&stamped.bytes)
        .map_err(|e| bad_input(format!("re-reading {}: {e}", output.display())))?;
    for change in &stamped.changes {
        let code = model.operator_codes()[change.code];
        println!(
            "{}: v{} -> v{}",
            code_name(code.kind(), code.builtin.code()),
            change.from,
            change.to
        );
    }
    println!(
        "min_runtime_version: {} -> {:?}",
        stamped
            .min_runtime_before
            .as_deref()
            .map_or_else(|| "(none)".to_owned(), |s| format!("{s:?}")),
        stamped.min_runtime_after
    );
    println!(
        "wrote {} ({} operator code(s) changed{})",
        output.display(),
        stamped.changes.len(),
        if stamped.extended {
            ", fields added"
        } else {
            ""
        }
    );
    Ok(())
}
