//! `se-abi pjrt-check PLUGIN.so [--run] [--compat 0|1] [--json]`: which measured JAX releases
//! load a PJRT plugin, and why the others refuse it (`se_abi::pjrt`).
//!
//! With `--run`, a child process (`se-abi __pjrt-api`) loads the plugin and calls its
//! `GetPjrtApi` only, and reports the `PJRT_Api` on a file of its own; the parent waits until
//! it ends or the timeout passes, and kills its process group.

use std::io::Write as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use se_abi::pjrt::{ApiFacts, Compat, PjrtPlugin, Prediction, predict_all};
use serde_json::json;

use crate::children::{Scratch, kill_group, signal_name};
use crate::{CliError, Outcome};

/// What the child found, or why it found nothing.
enum Api {
    Read(ApiFacts),
    /// The child died of a signal (the framework would too: it calls `GetPjrtApi` as well).
    Signal(String),
    /// The plugin could not be loaded or `GetPjrtApi` not called.
    Failed(String),
    /// `dlopen` refused the file (`dlerror`'s text): a needed library is missing on this host.
    Unopenable(String),
}

/// The child: loads the plugin, calls `GetPjrtApi`, writes what it read to `channel`.
pub(crate) fn child(plugin: &Path, channel: &Path) -> ExitCode {
    let text = match se_abi::pjrt::call_get_pjrt_api(plugin) {
        Ok(api) => {
            let mut t = format!(
                "struct_size {}\nversion {} {}\nversion_size {}\n",
                api.struct_size, api.version.0, api.version.1, api.version_struct_size
            );
            for slot in &api.null_slots {
                t.push_str(&format!("null {slot}\n"));
            }
            for (kind, size) in &api.extensions {
                t.push_str(&format!("ext {kind} {size}\n"));
            }
            t.push_str("done\n");
            t
        }
        Err(se_abi::Error::PjrtOpen { reason, .. }) => {
            format!("unopenable {}\n", reason.replace('\n', " "))
        }
        Err(e) => format!("failed {}\n", crate::chain(&e)),
    };
    match std::fs::write(channel, text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}

fn parse(text: &str) -> Option<Api> {
    let mut api = ApiFacts {
        struct_size: 0,
        version: (0, 0),
        version_struct_size: 0,
        null_slots: Vec::new(),
        extensions: Vec::new(),
    };
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["struct_size", n] => api.struct_size = n.parse().ok()?,
            ["version", a, b] => api.version = (a.parse().ok()?, b.parse().ok()?),
            ["version_size", n] => api.version_struct_size = n.parse().ok()?,
            ["null", n] => api.null_slots.push(n.parse().ok()?),
            ["ext", k, s] => api.extensions.push((k.parse().ok()?, s.parse().ok()?)),
            ["done"] => return Some(Api::Read(api)),
            _ => {
                if let Some(why) = line.strip_prefix("unopenable ") {
                    return Some(Api::Unopenable(why.to_string()));
                }
                if let Some(why) = line.strip_prefix("failed ") {
                    return Some(Api::Failed(why.to_string()));
                }
            }
        }
    }
    None
}

fn run_child(plugin: &Path, timeout: Duration) -> Result<Api, CliError> {
    let scratch = Scratch::new().map_err(CliError::Host)?;
    let channel = scratch.path().join("api");
    let exe = std::env::current_exe().map_err(CliError::Host)?;
    let mut child = Command::new(exe)
        .arg("__pjrt-api")
        .arg(plugin)
        .arg(&channel)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(CliError::Host)?;
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait().map_err(CliError::Host)? {
            Some(status) => break Some(status),
            None if Instant::now() >= deadline => break None,
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    // Whatever it forked goes with it.
    kill_group(child.id());
    let _ = child.wait();
    let text = std::fs::read_to_string(&channel).unwrap_or_default();
    Ok(match (status, parse(&text)) {
        (_, Some(api)) => api,
        (Some(status), None) => match status.signal() {
            Some(signal) => Api::Signal(signal_name(signal)),
            None => Api::Failed(format!("the child exited with {status} before reporting")),
        },
        (None, None) => Api::Failed(format!("GetPjrtApi did not return within {timeout:?}")),
    })
}

/// `se-abi pjrt-check`.
pub(crate) fn check(
    plugin_path: &Path,
    run: bool,
    compat: Option<u8>,
    json: bool,
    timeout: f64,
) -> Result<Outcome, CliError> {
    let file = crate::input::open(plugin_path)?;
    drop(file);
    let plugin = PjrtPlugin::open(plugin_path)?;
    let compat = match compat {
        None => Compat::Unset,
        Some(0) => Compat::Off,
        Some(_) => Compat::On,
    };
    let api = if run && plugin.exports_get_pjrt_api {
        Some(run_child(
            plugin_path,
            Duration::from_secs_f64(timeout.max(0.1)),
        )?)
    } else {
        None
    };
    let predictions: Vec<Prediction> = match &api {
        Some(Api::Read(facts)) => predict_all(&plugin, Some(facts), compat),
        Some(Api::Signal(signal)) => predict_all(&plugin, None, compat)
            .into_iter()
            .map(|mut p| {
                p.loads = Some(false);
                p.error = Some(signal.clone());
                p.note = Some("GetPjrtApi itself crashed; the framework calls it too".to_string());
                p
            })
            .collect(),
        // On the host `--run` runs on, jaxlib's `register_plugin` cannot open it either, and
        // says so before any version is read: measured with jax-rocm7-pjrt 0.12.0 (ROCm's
        // libraries absent) on jaxlib 0.4.31 and 0.12.0.1, `INTERNAL: Failed to open <path>:
        // <dlerror>` in both. On a host that has the libraries, the version decides.
        Some(Api::Unopenable(why)) => predict_all(&plugin, None, compat)
            .into_iter()
            .map(|mut p| {
                p.loads = Some(false);
                p.error = Some(format!(
                    "INTERNAL: Failed to open {}: {why}",
                    plugin_path.display()
                ));
                p.note = Some(
                    "on this host; where the libraries it needs are installed, its version decides (run pjrt-check --run there)"
                        .to_string(),
                );
                p
            })
            .collect(),
        Some(Api::Failed(why)) => predict_all(&plugin, None, compat)
            .into_iter()
            .map(|mut p| {
                p.note = Some(format!("the plugin could not be run here: {why}"));
                p
            })
            .collect(),
        None => predict_all(&plugin, None, compat),
    };
    let version = match &api {
        Some(Api::Read(facts)) => Some(format!("{}.{}", facts.version.0, facts.version.1)),
        _ => None,
    };
    let out = if json {
        let releases: Vec<_> = predictions
            .iter()
            .map(|p| {
                json!({
                    "jaxlib": p.jaxlib,
                    "loads": p.loads,
                    "error": p.error,
                    "after_client_create": p.after_client_create,
                    "note": p.note,
                })
            })
            .collect();
        let v = json!({
            "plugin": plugin_path.display().to_string(),
            "pjrt_api_version": version,
            "releases": releases,
        });
        format!("{v}\n")
    } else {
        let mut t = format!(
            "{}: PJRT API version {}\n",
            plugin_path.display(),
            version.as_deref().unwrap_or("unknown without --run")
        );
        if let Some(Api::Read(facts)) = &api {
            t.push_str(&format!(
                "  PJRT_Api struct_size {}, NULL slots {:?}, extensions (type, struct_size) {:?}\n",
                facts.struct_size, facts.null_slots, facts.extensions
            ));
        }
        for p in &predictions {
            let verdict = match p.loads {
                Some(true) => "loads".to_string(),
                Some(false) if p.after_client_create.is_some() => format!(
                    "aborts after client creation ({}), refusing {}",
                    p.error.as_deref().unwrap_or(""),
                    p.after_client_create.unwrap_or("")
                ),
                Some(false) => match p.error.as_deref().unwrap_or("") {
                    signal if signal.starts_with("SIG") => format!("crashes: {signal}"),
                    error => format!("refuses: {error}"),
                },
                None => "cannot tell".to_string(),
            };
            t.push_str(&format!("  jaxlib {}: {verdict}\n", p.jaxlib));
            if let Some(note) = &p.note {
                t.push_str(&format!("    ({note})\n"));
            }
        }
        t
    };
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(CliError::Output)?;
    Ok(if predictions.iter().any(|p| p.loads == Some(false)) {
        Outcome::Refused
    } else {
        Outcome::NoneRefuses
    })
}

/// The path of a plugin, as clap parses it.
pub(crate) type PluginPath = PathBuf;
