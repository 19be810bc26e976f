//! `se-abi`: which TensorFlow releases load a PluggableDevice plugin.
//!
//! ```text
//! se-abi plugin-check PLUGIN.so [--run [--tensorflow DIR] [--timeout SECONDS]] [--release R]... [--json]
//! se-abi pjrt-check PLUGIN.so [--run [--timeout SECONDS]] [--compat 0|1] [--json]
//! ```
//!
//! Exit status: 0 no release checked refuses the plugin, 1 at least one refuses it, 2 the input
//! could not be read or the usage is wrong. Every message on stderr starts with `se-abi: `.

mod children;
mod host;
mod input;
mod pjrt;
mod tf_status;

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use se_abi::plugin::{HostOutcome, Plugin, Refusal, Verdict};
use se_abi::tensorflow::{TF_RELEASES, TfRelease};
use serde_json::{Value, json};

/// The binary's name, which starts every message it writes to stderr.
const TOOL: &str = "se-abi";

#[derive(Parser)]
#[command(
    name = TOOL,
    version,
    about = "StreamExecutor C API plugins: which TensorFlow releases load this plugin, and why not",
    after_help = "Exit status: 0 no release checked refuses the plugin, 1 at least one refuses \
                  it, 2 unreadable input or bad usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// For each TensorFlow release 2.12 to 2.21: does this plugin load through
    /// `load_pluggable_device_library`, and if not, why, in the release's words.
    PluginCheck(CheckArgs),
    /// For each measured JAX release (jax == jaxlib, 0.4.31 to 0.12): does it load this PJRT
    /// plugin (`register_plugin`, then `jax.devices`), and if not, why, in the release's words.
    PjrtCheck(PjrtArgs),
    /// Loads a PJRT plugin and calls its `GetPjrtApi` only (the child process of
    /// `pjrt-check --run`; not for direct use).
    #[command(name = "__pjrt-api", hide = true)]
    PjrtApi { plugin: PathBuf, channel: PathBuf },
    /// Runs the plugin's `SE_InitPlugin` in an emulated host of one release (the child process
    /// of `plugin-check --run`; not for direct use).
    #[command(name = "__emulate-host", hide = true)]
    EmulateHost {
        plugin: PathBuf,
        #[arg(value_parser = release)]
        release: String,
        channel: PathBuf,
        #[arg(long)]
        tensorflow: Option<PathBuf>,
        #[arg(long)]
        linked: Vec<String>,
    },
}

#[derive(Args)]
struct CheckArgs {
    /// The plugin's shared library (`.so`).
    plugin: PathBuf,
    /// Also run the plugin's `SE_InitPlugin` in an emulated host of each release (a child
    /// process per release) and apply that release's checks. This EXECUTES THE PLUGIN.
    #[arg(long)]
    run: bool,
    /// An installed TensorFlow (its `tensorflow` folder in `site-packages`): with `--run`, a
    /// plugin that links TensorFlow's libraries runs against that release's own.
    #[arg(long, value_name = "DIR", requires = "run")]
    tensorflow: Option<PathBuf>,
    /// How long each emulated host may run before it is stopped (with `--run`).
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0, requires = "run")]
    timeout: f64,
    /// Only these releases (repeatable; default: all ten).
    #[arg(long = "release", value_name = "RELEASE", value_parser = release)]
    releases: Vec<String>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct PjrtArgs {
    /// The plugin's shared library (`.so`).
    plugin: pjrt::PluginPath,
    /// Also load the plugin in a child process and call its `GetPjrtApi` (only that) to read
    /// its version, struct sizes, NULL slots and extension chain. This EXECUTES PLUGIN CODE.
    #[arg(long)]
    run: bool,
    /// Answer as if `ENABLE_PJRT_COMPATIBILITY` were set to this (default: unset).
    #[arg(long, value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1))]
    compat: Option<u8>,
    /// How long the child may take (with `--run`).
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0, requires = "run")]
    timeout: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// A release se-abi has facts of.
fn release(text: &str) -> Result<String, String> {
    match TF_RELEASES.iter().find(|r| r.release == text) {
        Some(r) => Ok(r.release.to_string()),
        None => Err(format!(
            "unknown release; the releases se-abi knows are {}",
            known_releases()
        )),
    }
}

fn known_releases() -> String {
    TF_RELEASES
        .iter()
        .map(|r| r.release)
        .collect::<Vec<_>>()
        .join(", ")
}

fn find_release(name: &str) -> Option<&'static TfRelease> {
    TF_RELEASES.iter().find(|r| r.release == name)
}

/// What a run concluded; the exit code follows from it.
enum Outcome {
    /// Exit 0: no release checked refuses the plugin.
    NoneRefuses,
    /// Exit 1: at least one refuses it.
    Refused,
}

/// Why a run could not conclude: exit 2.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// The input is not a file the tool can read, or not a plugin.
    #[error(transparent)]
    Input(#[from] input::InputError),
    /// The plugin could not be read as one.
    #[error(transparent)]
    Plugin(#[from] se_abi::Error),
    /// `--tensorflow` does not name an installed TensorFlow se-abi knows.
    #[error("--tensorflow {}: {why}", path.display())]
    TensorFlow { path: PathBuf, why: String },
    /// The emulated hosts could not be started.
    #[error("cannot run the emulated hosts")]
    Host(#[source] io::Error),
    /// Writing the output failed.
    #[error("cannot write the output")]
    Output(#[source] io::Error),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::PluginCheck(args) => {
            let json = args.json;
            let path = args.plugin.clone();
            match plugin_check(&args) {
                Ok(Outcome::NoneRefuses) => ExitCode::SUCCESS,
                Ok(Outcome::Refused) => ExitCode::from(1),
                Err(error) => {
                    eprintln!("{TOOL}: {}", chain(&error));
                    if json {
                        let out = json!({
                            "plugin": path.display().to_string(),
                            "unreadable": true,
                            "error": chain(&error),
                        });
                        println!("{out}");
                    }
                    ExitCode::from(2)
                }
            }
        }
        Command::PjrtCheck(args) => {
            match pjrt::check(&args.plugin, args.run, args.compat, args.json, args.timeout) {
                Ok(Outcome::NoneRefuses) => ExitCode::SUCCESS,
                Ok(Outcome::Refused) => ExitCode::from(1),
                Err(error) => {
                    eprintln!("{TOOL}: {}", chain(&error));
                    if args.json {
                        let out = json!({
                            "plugin": args.plugin.display().to_string(),
                            "unreadable": true,
                            "error": chain(&error),
                        });
                        println!("{out}");
                    }
                    ExitCode::from(2)
                }
            }
        }
        Command::PjrtApi { plugin, channel } => pjrt::child(&plugin, &channel),
        Command::EmulateHost {
            plugin,
            release,
            channel,
            tensorflow,
            linked,
        } => match find_release(&release) {
            Some(release) => host::run(&plugin, release, &channel, tensorflow.as_deref(), &linked),
            None => ExitCode::from(2),
        },
    }
}

/// An error and its `source()` chain on one line, joined with ": ". A cause whose text its
/// parent already ends with (an error that displays its own source) is not repeated.
///
/// The same function as in the other three tools' `outcome.rs` (`xtask/tests/alike.rs` checks).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut previous = text.clone();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !previous.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        previous = cause_text;
        source = cause.source();
    }
    text
}

/// The release of the TensorFlow installed at `dir` (its `tensorflow` folder): the version of
/// the distribution beside it whose `RECORD` lists its `libtensorflow_framework.so.2`
/// (`tensorflow_cpu-2.21.0.dist-info`, `tensorflow-2.21.0.dist-info`, ...).
fn installed_release(dir: &Path) -> Result<&'static TfRelease, CliError> {
    let fail = |why: String| CliError::TensorFlow {
        path: dir.to_path_buf(),
        why,
    };
    if !dir.join("libtensorflow_framework.so.2").is_file() {
        return Err(fail(
            "no libtensorflow_framework.so.2 in it: name the `tensorflow` folder of an installed \
             TensorFlow (site-packages/tensorflow)"
                .to_string(),
        ));
    }
    let parent = dir.parent().unwrap_or(dir);
    let folder = dir
        .file_name()
        .map_or("tensorflow".into(), |n| n.to_string_lossy().into_owned());
    let owner = format!("{folder}/libtensorflow_framework.so.2,");
    let entries = std::fs::read_dir(parent).map_err(|e| fail(e.to_string()))?;
    let mut versions: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".dist-info"))
        .filter(|n| {
            std::fs::read_to_string(parent.join(n).join("RECORD"))
                .is_ok_and(|record| record.lines().any(|l| l.starts_with(&owner)))
        })
        .filter_map(|n| {
            let stem = n.strip_suffix(".dist-info")?;
            Some(stem.rsplit_once('-')?.1.to_string())
        })
        .collect();
    versions.sort();
    versions.dedup();
    match versions.as_slice() {
        [version] => find_release(version).ok_or_else(|| {
            fail(format!(
                "TensorFlow {version}: se-abi knows {}",
                known_releases()
            ))
        }),
        [] => Err(fail(
            "no distribution beside it lists its libtensorflow_framework.so.2 (a *.dist-info \
             RECORD): cannot tell which release it is"
                .to_string(),
        )),
        _ => Err(fail(format!(
            "several distributions beside it claim it ({})",
            versions.join(", ")
        ))),
    }
}

fn plugin_check(args: &CheckArgs) -> Result<Outcome, CliError> {
    let file = input::open(&args.plugin)?;
    let plugin = Plugin::from_file(&args.plugin, &file)?;
    let tensorflow = match &args.tensorflow {
        Some(dir) => Some((dir.as_path(), installed_release(dir)?)),
        None => None,
    };
    let releases: Vec<&'static TfRelease> = TF_RELEASES
        .iter()
        .filter(|r| args.releases.is_empty() || args.releases.iter().any(|n| n == r.release))
        .collect();
    let mut verdicts: Vec<Verdict> = releases.iter().map(|r| plugin.verdict(r)).collect();
    if args.run {
        // TensorFlow runs the plugin's code only once the library is loaded.
        // The verdicts to run (their indexes), and what each child is asked.
        let mut indexes = Vec::new();
        let mut jobs = Vec::new();
        for (index, (release, verdict)) in releases.iter().zip(&mut verdicts).enumerate() {
            if verdict.loads() == Some(false) {
                continue;
            }
            let linked: Vec<String> = plugin
                .tensorflow_libraries(release)
                .into_iter()
                .map(str::to_string)
                .collect();
            let with_tensorflow = tensorflow.is_some_and(|(_, r)| r.release == release.release);
            if !linked.is_empty() && !with_tensorflow {
                let reason = format!(
                    "it links TensorFlow's {}, so it cannot run without TensorFlow {}: add \
                     --tensorflow DIR, DIR an installed TensorFlow {} (site-packages/tensorflow)",
                    linked.join(", "),
                    release.release,
                    release.release,
                );
                *verdict = verdict
                    .clone()
                    .with_run(HostOutcome::NotRun { reason }, &plugin.entry_points);
                continue;
            }
            indexes.push(index);
            jobs.push(children::Job {
                release: release.release,
                linked: if with_tensorflow { linked } else { Vec::new() },
            });
        }
        let load_path = PathBuf::from(&plugin.load_path);
        let outcomes = children::run_all(
            &load_path,
            &jobs,
            tensorflow.map(|(dir, _)| dir),
            Duration::from_secs_f64(args.timeout.max(0.001)),
        )
        .map_err(CliError::Host)?;
        for (index, outcome) in indexes.into_iter().zip(outcomes) {
            verdicts[index] = verdicts[index]
                .clone()
                .with_run(outcome, &plugin.entry_points);
        }
    }
    let refused = verdicts.iter().any(|v| v.loads() == Some(false));
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let value = to_json(&plugin, &verdicts, args.run, tensorflow);
        writeln!(out, "{value}").map_err(CliError::Output)?;
    } else {
        let text = render(&plugin, &verdicts, args.run);
        out.write_all(text.as_bytes()).map_err(CliError::Output)?;
    }
    Ok(if refused {
        Outcome::Refused
    } else {
        Outcome::NoneRefuses
    })
}

/// `loads` as JSON: true, false or null.
fn loads_json(verdict: &Verdict) -> Value {
    match verdict.loads() {
        Some(loads) => Value::Bool(loads),
        None => Value::Null,
    }
}

fn to_json(
    plugin: &Plugin,
    verdicts: &[Verdict],
    ran: bool,
    tensorflow: Option<(&Path, &TfRelease)>,
) -> Value {
    let releases: Vec<Value> = verdicts
        .iter()
        .map(|verdict| {
            json!({
                "release": verdict.release,
                "loads": loads_json(verdict),
                "reason": verdict.unknown,
                "refusals": verdict.refusals.iter().map(refusal_json).collect::<Vec<_>>(),
                "at_run_time": verdict.at_run_time.iter().map(refusal_json).collect::<Vec<_>>(),
                "devices": verdict.devices.as_ref().map(|d| json!({
                    "device_type": d.device_type,
                    "count": d.count,
                })),
            })
        })
        .collect();
    json!({
        "plugin": plugin.path.display().to_string(),
        "unreadable": false,
        "entry_points": plugin.entry_points,
        "needed": plugin.elf.needed,
        "ran_init": ran,
        "tensorflow": tensorflow.map(|(dir, r)| json!({
            "path": dir.display().to_string(),
            "release": r.release,
        })),
        "releases": releases,
        "loads_in": verdicts.iter().filter(|v| v.loads() == Some(true)).map(|v| v.release).collect::<Vec<_>>(),
        "refused_by": verdicts.iter().filter(|v| v.loads() == Some(false)).map(|v| v.release).collect::<Vec<_>>(),
        "unknown_in": verdicts.iter().filter(|v| v.loads().is_none()).map(|v| v.release).collect::<Vec<_>>(),
    })
}

/// One refusal as JSON.
fn refusal_json(refusal: &Refusal) -> Value {
    json!({
        "kind": refusal.kind(),
        "message": refusal.message(),
        "note": refusal.note(),
        "signal": refusal.signal(),
        "exit_status": refusal.exit_status(),
        "exception": refusal.exception(),
    })
}

/// `text`, with every line after the first indented to column `indent`.
fn indented(text: &str, indent: usize) -> String {
    text.replace('\n', &format!("\n{:indent$}", ""))
}

fn render(plugin: &Plugin, verdicts: &[Verdict], ran: bool) -> String {
    let mut text = format!("plugin {}\n", plugin.path.display());
    if plugin.entry_points.is_empty() {
        text.push_str(
            "entry points: none (TensorFlow loads it, and it registers nothing: no SE_InitPlugin, \
             TF_InitKernel, TF_InitGraph, TF_InitProfiler or TFNPD_InitPlugin)\n",
        );
    } else {
        text.push_str(&format!(
            "entry points: {}\n",
            plugin.entry_points.join(", ")
        ));
    }
    for verdict in verdicts {
        let line = match (verdict.refusals.first(), &verdict.devices) {
            (Some(first), _) => {
                let mut line = format!("refused: {}", indented(&first.message(), 18));
                if let Some(note) = first.note() {
                    line.push_str(&format!("\n          ({note})"));
                }
                let more = verdict.refusals.len() - 1;
                if more > 0 {
                    line.push_str(&format!("\n          and {more} more"));
                }
                line
            }
            (None, devices) => {
                let mut line = match (verdict.unknown.as_deref(), devices) {
                    (Some(why), _) => format!("cannot tell: {why}"),
                    (None, Some(d)) if d.count <= 0 => format!(
                        "loads, but lists no {} device (get_device_count reported {})",
                        d.device_type, d.count
                    ),
                    (None, Some(d)) => format!(
                        "loads: {} {} device{}",
                        d.count,
                        d.device_type,
                        if d.count == 1 { "" } else { "s" }
                    ),
                    (None, None) => "loads (it registers no device)".to_string(),
                };
                for later in &verdict.at_run_time {
                    line.push_str(&format!(
                        "\n          at run time: {}",
                        indented(&later.message(), 23)
                    ));
                }
                if verdict.unknown.is_some()
                    && let Some(d) = devices
                {
                    line.push_str(&format!(
                        "\n          (SE_InitPlugin passed; {} {} device{} listed)",
                        d.count,
                        d.device_type,
                        if d.count == 1 { "" } else { "s" }
                    ));
                }
                line
            }
        };
        text.push_str(&format!("{:<8}  {line}\n", verdict.release));
    }
    let with = |pick: fn(&Verdict) -> bool| -> Vec<&str> {
        verdicts
            .iter()
            .filter(|v| pick(v))
            .map(|v| v.release)
            .collect()
    };
    let loads = with(|v| v.loads() == Some(true));
    let refused = with(|v| v.loads() == Some(false));
    let unknown = with(|v| v.loads().is_none());
    let list = |names: &[&str]| {
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        }
    };
    text.push_str(&format!(
        "of {} releases: loads in {}{}, refused by {}{}, cannot tell for {}{}\n",
        verdicts.len(),
        loads.len(),
        list(&loads),
        refused.len(),
        list(&refused),
        unknown.len(),
        list(&unknown),
    ));
    if !ran && !unknown.is_empty() {
        text.push_str(
            "nothing of the plugin's code was run: add --run to run SE_InitPlugin in an emulated \
             host of each release (this executes the plugin)\n",
        );
    }
    text
}
