//! The child process `plugin-check --run` starts for each release: it loads the plugin into
//! itself and runs its `SE_InitPlugin` as that release would ([`se_abi::plugin::emulate`]), and
//! reports on its own channel, a file the parent names, never on standard output (which is the
//! plugin's to write to as it likes):
//!
//! - `step NAME`, before each call into the plugin's code (`dlopen`, `SE_InitPlugin`, ...), so
//!   that the parent can say where a crash happened;
//! - `outcome JSON`, last, with what the host found.
//!
//! Each line is written whole and at once (no buffer the plugin's crash could lose).
//!
//! With `--tensorflow DIR`, the host first loads that TensorFlow's `libtensorflow_framework.so.2`
//! (and the other libraries of it the plugin links), as the release does (`RTLD_GLOBAL` where
//! the release's library is in the global scope, else `RTLD_LOCAL`), and hands the plugin
//! TensorFlow's own statuses.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;

use se_abi::plugin::status::{self, RealStatus};
use se_abi::plugin::{HostOutcome, Refusal, Step, emulate};
use se_abi::tensorflow::TfRelease;
use serde_json::{Value, json};

/// The outcome as the channel carries it.
pub(crate) fn encode(outcome: &HostOutcome) -> Value {
    match outcome {
        HostOutcome::NotRun { reason } => json!({"outcome": "not-run", "message": reason}),
        HostOutcome::NoDeviceModule => json!({"outcome": "no-device-module"}),
        HostOutcome::Accepted {
            device_type,
            devices,
        } => json!({"outcome": "accepted", "device_type": device_type, "devices": devices}),
        HostOutcome::Refused(refusal) => json!({
            "outcome": "refused",
            "kind": refusal.kind(),
            "message": refusal.message(),
            "signal": refusal.signal(),
            "exception": refusal.exception(),
        }),
    }
}

/// The outcome the channel carried, if it is one the host writes.
pub(crate) fn decode(value: &Value) -> Option<HostOutcome> {
    let text = |key: &str| value[key].as_str().unwrap_or_default().to_string();
    Some(match value["outcome"].as_str()? {
        "not-run" => HostOutcome::NotRun {
            reason: text("message"),
        },
        "no-device-module" => HostOutcome::NoDeviceModule,
        "accepted" => HostOutcome::Accepted {
            device_type: text("device_type"),
            devices: i32::try_from(value["devices"].as_i64()?).ok()?,
        },
        "refused" => HostOutcome::Refused(match value["kind"].as_str()? {
            "abort" => Refusal::Abort {
                message: text("message"),
            },
            "crash" => Refusal::Crash {
                signal: text("signal"),
                message: text("message"),
            },
            _ => Refusal::Raises {
                class: text("exception"),
                message: text("message"),
            },
        }),
        _ => return None,
    })
}

/// Loads TensorFlow's libraries from `tensorflow` (its `tensorflow/` folder): the framework,
/// and the others the plugin links (`linked`, paths below `site-packages`), each with the flags
/// the release loads it with. Returns why not, if one fails (a Python extension module cannot be
/// loaded outside Python).
fn load_tensorflow(
    tensorflow: &Path,
    release: &TfRelease,
    linked: &[String],
) -> Result<(), String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_LOCAL, RTLD_NOW};
    let site_packages = tensorflow.parent().unwrap_or(tensorflow);
    let mut paths = vec!["tensorflow/libtensorflow_framework.so.2".to_string()];
    paths.extend(
        linked
            .iter()
            .filter(|p| !paths.contains(p))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let mut framework = None;
    for relative in &paths {
        let global = release
            .libraries
            .iter()
            .any(|l| l.path == relative && l.global);
        let flags = RTLD_NOW | if global { RTLD_GLOBAL } else { RTLD_LOCAL };
        let path = site_packages.join(relative);
        // SAFETY: loading TensorFlow's own library runs its initializers: the user named this
        // TensorFlow to run the plugin against (`--tensorflow`), in this child process.
        let library = unsafe { Library::open(Some(&path), flags) }.map_err(|e| {
            let why = std::error::Error::source(&e).map_or(e.to_string(), ToString::to_string);
            format!("cannot load TensorFlow's {relative} outside Python: {why}")
        })?;
        if framework.is_none() {
            framework = Some(library);
        } else {
            std::mem::forget(library);
        }
    }
    let framework = framework.ok_or("no libtensorflow_framework.so.2")?;
    // SAFETY (each): `function` requires the symbol's real type: those
    // `tensorflow/c/tf_status.h` gives them, as `RealStatus` declares them.
    let real = RealStatus {
        // SAFETY: see above.
        new: unsafe { function(&framework, b"TF_NewStatus\0") }?,
        // SAFETY: see above.
        delete: unsafe { function(&framework, b"TF_DeleteStatus\0") }?,
        // SAFETY: see above.
        set: unsafe { function(&framework, b"TF_SetStatus\0") }?,
        // SAFETY: see above.
        set_payload: unsafe { function(&framework, b"TF_SetPayload\0") }?,
        // SAFETY: see above.
        code: unsafe { function(&framework, b"TF_GetCode\0") }?,
        // SAFETY: see above.
        message: unsafe { function(&framework, b"TF_Message\0") }?,
    };
    status::use_tensorflow(real);
    // TensorFlow's library stays loaded for the life of the process.
    std::mem::forget(framework);
    Ok(())
}

/// The function `name` (NUL-terminated) of `library`.
///
/// # Safety
/// `T` must be the function's real type.
unsafe fn function<T: Copy>(
    library: &libloading::os::unix::Library,
    name: &[u8],
) -> Result<T, String> {
    // SAFETY: `Library::get` requires the symbol's real type: the caller's contract.
    let symbol = unsafe { library.get::<T>(name) }.map_err(|e| e.to_string())?;
    Ok(*symbol)
}

/// `se-abi __emulate-host`: runs the plugin in this process and reports on `channel`.
pub(crate) fn run(
    plugin: &Path,
    release: &TfRelease,
    channel: &Path,
    tensorflow: Option<&Path>,
    linked: &[String],
) -> std::process::ExitCode {
    let Ok(mut out) = File::options().append(true).create(true).open(channel) else {
        return std::process::ExitCode::from(2);
    };
    // The process a plugin runs in must die of a fault as TensorFlow's does: Rust's runtime
    // handles SIGSEGV and SIGBUS (to report a stack overflow), and a signal the plugin raises
    // itself would return from its handler; Python installs none.
    for signal in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: `signal` with `SIG_DFL` installs no handler of ours: it only restores the
        // default action, before any plugin code runs, in this single-threaded child.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
    let mut say = |line: String| {
        // One write per line: what reached the file survives a crash that follows.
        let _ = out.write_all(format!("{line}\n").as_bytes());
    };
    if let Some(tensorflow) = tensorflow
        && let Err(reason) = load_tensorflow(tensorflow, release, linked)
    {
        say(format!(
            "outcome {}",
            encode(&HostOutcome::NotRun { reason })
        ));
        return std::process::ExitCode::SUCCESS;
    }
    let mut step = |step: Step| say(format!("step {}", step.name()));
    // SAFETY: `emulate` runs the plugin's code in this process (see its `# Safety`). This is the
    // child process `plugin-check --run` starts for it, at the user's request, on the plugin the
    // user named: whatever the plugin does, it does to this process alone, which the parent
    // watches, stops at a deadline with everything it started, and judges by this channel.
    let outcome = unsafe { emulate(plugin, release, &mut step) };
    say(format!("outcome {}", encode(&outcome)));
    std::process::ExitCode::SUCCESS
}
