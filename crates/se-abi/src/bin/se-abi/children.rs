//! The emulated hosts of `plugin-check --run`: one child process per release, all started at
//! once, each in a process group of its own, watched until it ends or the deadline passes.
//!
//! Nothing a plugin does can hang or fool the parent:
//! - the child's standard streams are not the parent's to read (`/dev/null`): a plugin may write
//!   all it likes, buffered or not, and its output is no part of the verdict;
//! - the child reports on a file of its own (`host.rs`), read when the child has ended;
//! - when the child ends, or at the deadline, its whole process group is killed: what the
//!   plugin forked goes with it, and nothing of it outlives the tool.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use se_abi::plugin::{HostOutcome, Refusal};

use crate::host::decode;

/// One emulated host to start.
pub(crate) struct Job {
    /// The release.
    pub release: &'static str,
    /// The plugin's libraries of TensorFlow's (paths below `site-packages`), for `--tensorflow`.
    pub linked: Vec<String>,
}

/// A scratch folder for the channels, removed when dropped.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new() -> std::io::Result<Scratch> {
        let base = std::env::temp_dir();
        for attempt in 0..100u32 {
            let path = base.join(format!("se-abi-{}-{attempt}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(Scratch(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("no free scratch folder name"))
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Kills the process group `group` (a child and whatever it started).
pub(crate) fn kill_group(group: u32) {
    if let Ok(group) = libc::pid_t::try_from(group) {
        // SAFETY: `killpg` has no memory preconditions: it signals the processes of a group this
        // process created (`process_group(0)` made the child its group's leader).
        unsafe { libc::killpg(group, libc::SIGKILL) };
    }
}

/// The name of signal `number`.
pub(crate) fn signal_name(number: i32) -> String {
    match number {
        libc::SIGABRT => "SIGABRT".to_string(),
        libc::SIGSEGV => "SIGSEGV".to_string(),
        libc::SIGBUS => "SIGBUS".to_string(),
        libc::SIGFPE => "SIGFPE".to_string(),
        libc::SIGILL => "SIGILL".to_string(),
        libc::SIGKILL => "SIGKILL".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        other => format!("signal {other}"),
    }
}

/// What a child's channel says: the last step it reached, and its outcome if it got that far.
fn read_channel(path: &Path) -> (Option<String>, Option<HostOutcome>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut step = None;
    let mut outcome = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("step ") {
            step = Some(name.to_string());
        } else if let Some(json) = line.strip_prefix("outcome ") {
            outcome = serde_json::from_str(json).ok().and_then(|v| decode(&v));
        }
    }
    (step, outcome)
}

/// What the child was running when it ended or was stopped, in words.
fn doing(step: Option<&str>) -> String {
    match step {
        Some("dlopen") | None => "the plugin's initializers (at dlopen)".to_string(),
        Some(function) => format!("the plugin's {function}"),
    }
}

/// Runs every job at once; returns each release's outcome, in the jobs' order.
pub(crate) fn run_all(
    plugin: &Path,
    jobs: &[Job],
    tensorflow: Option<&Path>,
    timeout: Duration,
) -> std::io::Result<Vec<HostOutcome>> {
    let scratch = Scratch::new()?;
    let exe = std::env::current_exe()?;
    let mut running: Vec<(Child, PathBuf, Option<std::process::ExitStatus>)> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let channel = scratch.0.join(format!("{i}.channel"));
        let mut command = Command::new(&exe);
        command
            .arg("__emulate-host")
            .arg(plugin)
            .arg(job.release)
            .arg(&channel);
        if let Some(tensorflow) = tensorflow {
            command.arg("--tensorflow").arg(tensorflow);
            for library in &job.linked {
                command.arg("--linked").arg(library);
            }
        }
        use std::os::unix::process::CommandExt as _;
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(e) => {
                for (child, _, _) in &mut running {
                    kill_group(child.id());
                    let _ = child.wait();
                }
                return Err(e);
            }
        };
        running.push((child, channel, None));
    }
    let started = Instant::now();
    loop {
        let mut waiting = false;
        for (child, _, status) in &mut running {
            if status.is_some() {
                continue;
            }
            match child.try_wait()? {
                Some(exit) => {
                    // Whatever it forked goes with it.
                    kill_group(child.id());
                    *status = Some(exit);
                }
                None => waiting = true,
            }
        }
        if !waiting || started.elapsed() > timeout {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut outcomes = Vec::new();
    for (child, channel, status) in &mut running {
        let (step, outcome) = read_channel(channel);
        let outcome = match (status.as_ref(), outcome) {
            (_, Some(outcome)) => outcome,
            (None, None) => {
                kill_group(child.id());
                let _ = child.wait();
                HostOutcome::NotRun {
                    reason: format!(
                        "{} did not return within {} s (TensorFlow would wait as long as it \
                         takes); the tool stopped it",
                        doing(step.as_deref()),
                        timeout.as_secs_f64(),
                    ),
                }
            }
            (Some(exit), None) => {
                use std::os::unix::process::ExitStatusExt as _;
                HostOutcome::Refused(match (exit.signal(), exit.code()) {
                    (Some(signal), _) => {
                        let signal = signal_name(signal);
                        Refusal::Crash {
                            message: format!(
                                "the process is ended by {signal} in {}",
                                doing(step.as_deref())
                            ),
                            signal,
                        }
                    }
                    (_, code) => {
                        let status = code.unwrap_or(-1);
                        Refusal::Exits {
                            message: format!(
                                "the process exits with status {status} in {}",
                                doing(step.as_deref())
                            ),
                            status,
                        }
                    }
                })
            }
        };
        if status.is_none() {
            kill_group(child.id());
            let _ = child.wait();
        }
        outcomes.push(outcome);
    }
    Ok(outcomes)
}
