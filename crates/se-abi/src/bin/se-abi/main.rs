//! `se-abi`: which TensorFlow releases load a PluggableDevice plugin.
//!
//! ```text
//! se-abi plugin-check PLUGIN.so [--run] [--release R]... [--json]
//! ```
//!
//! Exit status: 0 every release checked loads the plugin, 1 at least one refuses it, 2 the input
//! could not be read or the usage is wrong. Every message on stderr starts with `se-abi: `.

mod input;

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use se_abi::plugin::{HostOutcome, Plugin, Refusal, Verdict};
use se_abi::tensorflow::TF_RELEASES;
use serde_json::{Value, json};

/// The binary's name, which starts every message it writes to stderr.
const TOOL: &str = "se-abi";

/// How long one emulated host may run the plugin's `SE_InitPlugin` before it is stopped.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Parser)]
#[command(
    name = TOOL,
    version,
    about = "StreamExecutor C API plugins: which TensorFlow releases load this plugin, and why not",
    after_help = "Exit status: 0 every release checked loads the plugin, 1 at least one refuses \
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
    /// Runs the plugin's `SE_InitPlugin` in an emulated host of one release (the child process
    /// of `plugin-check --run`; not for direct use).
    #[command(name = "__emulate-host", hide = true)]
    EmulateHost { plugin: PathBuf, release: String },
}

#[derive(Args)]
struct CheckArgs {
    /// The plugin's shared library (`.so`).
    plugin: PathBuf,
    /// Also run the plugin's `SE_InitPlugin` in an emulated host of each release (a child
    /// process per release) and apply that release's validation. This EXECUTES THE PLUGIN.
    #[arg(long)]
    run: bool,
    /// Only these releases (repeatable; default: all ten).
    #[arg(long = "release", value_name = "RELEASE", value_parser = release)]
    releases: Vec<String>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

/// A release se-abi has facts of.
fn release(text: &str) -> Result<String, String> {
    match TF_RELEASES.iter().find(|r| r.release == text) {
        Some(r) => Ok(r.release.to_string()),
        None => Err(format!(
            "unknown release; the releases se-abi knows are {}",
            TF_RELEASES
                .iter()
                .map(|r| r.release)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// What a run concluded; the exit code follows from it.
enum Outcome {
    /// Exit 0: every release checked loads the plugin.
    Accepted,
    /// Exit 1: at least one refuses it.
    Rejected,
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
    /// The emulated host could not be started.
    #[error("cannot run the emulated host: {0}")]
    Host(String),
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
                Ok(Outcome::Accepted) => ExitCode::SUCCESS,
                Ok(Outcome::Rejected) => ExitCode::from(1),
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
        Command::EmulateHost { plugin, release } => {
            // SAFETY: `emulate` runs the plugin's code in this process (see its `# Safety`).
            // This is the child process `plugin-check --run` starts for it, at the user's
            // request, on the plugin the user named: whatever the plugin does, it does to this
            // process alone, which the parent watches, stops after a time limit, and judges by
            // its exit.
            let outcome = unsafe { se_abi::plugin::emulate(&plugin, &release) };
            let out = match outcome {
                Ok(HostOutcome::Accepted) => json!({"outcome": "accepted"}),
                Ok(HostOutcome::Refused { message }) => {
                    json!({"outcome": "refused", "message": message})
                }
                Ok(HostOutcome::NotRun { reason }) => {
                    json!({"outcome": "not-run", "message": reason})
                }
                Ok(HostOutcome::NoDeviceModule) => json!({"outcome": "no-device-module"}),
                Err(e) => json!({"outcome": "not-run", "message": e.to_string()}),
            };
            println!("{out}");
            // The plugin stays loaded; leave without running its destructors' surprises twice.
            let _ = io::stdout().flush();
            ExitCode::SUCCESS
        }
    }
}

/// An error and its sources, joined with `: `.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// What the emulated host of one release said.
#[derive(Debug, Clone)]
enum Run {
    Accepted,
    Skipped(String),
    NoDeviceModule,
    Refused(String),
}

impl Run {
    fn key(&self) -> &'static str {
        match self {
            Run::Accepted => "accepted",
            Run::Skipped(_) => "not-run",
            Run::NoDeviceModule => "no-device-module",
            Run::Refused(_) => "refused",
        }
    }
}

fn plugin_check(args: &CheckArgs) -> Result<Outcome, CliError> {
    input::check_input(&args.plugin)?;
    let plugin = Plugin::open(&args.plugin)?;
    let mut rows: Vec<(Verdict, Option<Run>)> = Vec::new();
    for release in TF_RELEASES {
        if !args.releases.is_empty() && !args.releases.iter().any(|r| r == release.release) {
            continue;
        }
        let mut verdict = plugin.verdict(release);
        // TensorFlow runs `SE_InitPlugin` only once the library is loaded.
        let run = if args.run && verdict.loads() && !plugin.entry_points.contains(&"SE_InitPlugin")
        {
            Some(Run::NoDeviceModule)
        } else if args.run && verdict.loads() {
            let run = emulate_in_child(&args.plugin, release.release)?;
            if let Run::Refused(message) = &run {
                verdict.refusals.push(Refusal::Init {
                    message: message.clone(),
                });
            }
            Some(run)
        } else {
            None
        };
        rows.push((verdict, run));
    }
    let refused = rows.iter().any(|(v, _)| !v.loads());
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let releases: Vec<Value> = rows
            .iter()
            .map(|(verdict, run)| {
                let refusals: Vec<Value> = verdict
                    .refusals
                    .iter()
                    .map(|r| json!({"kind": r.kind(), "message": r.message()}))
                    .collect();
                json!({
                    "release": verdict.release,
                    "loads": verdict.loads(),
                    "refusals": refusals,
                    "init": run.as_ref().map(Run::key),
                    "init_message": run.as_ref().and_then(|r| match r {
                        Run::Skipped(m) | Run::Refused(m) => Some(m.clone()),
                        _ => None,
                    }),
                })
            })
            .collect();
        let value = json!({
            "plugin": args.plugin.display().to_string(),
            "unreadable": false,
            "entry_points": plugin.entry_points,
            "needed": plugin.elf.needed,
            "ran_init": args.run,
            "releases": releases,
            "loads_in": rows.iter().filter(|(v, _)| v.loads()).map(|(v, _)| v.release).collect::<Vec<_>>(),
        });
        writeln!(out, "{value}").map_err(CliError::Output)?;
    } else {
        let text = render(&plugin, &rows, args.run);
        out.write_all(text.as_bytes()).map_err(CliError::Output)?;
    }
    Ok(if refused {
        Outcome::Rejected
    } else {
        Outcome::Accepted
    })
}

fn render(plugin: &Plugin, rows: &[(Verdict, Option<Run>)], ran: bool) -> String {
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
    for (verdict, run) in rows {
        match verdict.refusals.first() {
            None => {
                let note = match run {
                    Some(Run::Accepted) => " (SE_InitPlugin ran and passed its validation)",
                    Some(Run::NoDeviceModule) => " (no SE_InitPlugin to run)",
                    Some(Run::Skipped(_)) => {
                        " (SE_InitPlugin not run: the plugin cannot load without TensorFlow)"
                    }
                    _ => "",
                };
                text.push_str(&format!("{:<8} loads{note}\n", verdict.release));
            }
            Some(first) => {
                text.push_str(&format!(
                    "{:<8} refused: {}\n",
                    verdict.release,
                    first.message()
                ));
                let more = verdict.refusals.len() - 1;
                if more > 0 {
                    text.push_str(&format!("{:<8}   and {more} more of the same kinds\n", ""));
                }
            }
        }
    }
    let loads: Vec<&str> = rows
        .iter()
        .filter(|(v, _)| v.loads())
        .map(|(v, _)| v.release)
        .collect();
    text.push_str(&format!(
        "loads in {} of {} releases{}\n",
        loads.len(),
        rows.len(),
        if loads.is_empty() {
            String::new()
        } else {
            format!(": {}", loads.join(", "))
        }
    ));
    if !ran && plugin.entry_points.contains(&"SE_InitPlugin") {
        text.push_str(
            "SE_InitPlugin was not run: add --run to run it in an emulated host of each release \
             (this executes the plugin)\n",
        );
    }
    text
}

/// Runs `se-abi __emulate-host PLUGIN RELEASE` and reads what it says; a crash or a hang of the
/// plugin ends the child, not this process.
fn emulate_in_child(plugin: &Path, release: &str) -> Result<Run, CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::Host(e.to_string()))?;
    let mut child = Process::new(exe)
        .arg("__emulate-host")
        .arg(plugin)
        .arg(release)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| CliError::Host(e.to_string()))?;
    let started = Instant::now();
    let status = loop {
        match child
            .try_wait()
            .map_err(|e| CliError::Host(e.to_string()))?
        {
            Some(status) => break status,
            None if started.elapsed() > RUN_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Run::Refused(format!(
                    "SE_InitPlugin did not return within {} s",
                    RUN_TIMEOUT.as_secs()
                )));
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let mut stdout = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        use std::io::Read as _;
        let _ = pipe.read_to_string(&mut stdout);
    }
    if !status.success() {
        use std::os::unix::process::ExitStatusExt as _;
        let how = match status.signal() {
            Some(6) => "aborted (SIGABRT)".to_string(),
            Some(11) => "crashed (SIGSEGV)".to_string(),
            Some(signal) => format!("was killed by signal {signal}"),
            None => format!("exited with {status}"),
        };
        return Ok(Run::Refused(format!(
            "SE_InitPlugin {how} in an emulated host of TensorFlow {release}"
        )));
    }
    let value: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .map_err(|e| CliError::Host(format!("the emulated host said something else: {e}")))?;
    let message = value["message"].as_str().unwrap_or_default().to_string();
    Ok(match value["outcome"].as_str() {
        Some("accepted") => Run::Accepted,
        Some("refused") => Run::Refused(message),
        Some("no-device-module") => Run::NoDeviceModule,
        _ => Run::Skipped(message),
    })
}
