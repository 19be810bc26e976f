//! `pjrt-check`: which measured JAX releases load a PJRT plugin, predicted from what the file
//! says ([`PjrtPlugin::open`]) and, when asked, from what its `GetPjrtApi` returns
//! ([`call_get_pjrt_api`], run in a child process by the CLI), against each release's measured
//! behaviour ([`JAX_RELEASES`](super::JAX_RELEASES)).

use std::ffi::c_void;
use std::format;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::vec::Vec;

use super::{Compat, JaxRelease, Measured, args_size_at};
use crate::Error;
use crate::plugin::ElfInfo;

/// The literal XLA's `pjrt_c_api_helpers.cc` (`StructSizeErrorMsg`) puts after a size
/// refusal; a plugin whose file holds it refuses args shorter than its own header's.
const LATER_VERSION: &str = "The plugin is likely built with a later version than the framework.";
/// What older plugins put there instead (`CheckMatchingStructSizes`).
const CHECK_VERSIONS: &str = ". Check installed software versions.";
/// What newer plugins append to it (`This plugin is built with PJRT API version 0.64.`).
const BUILT_WITH: &str = " This plugin is built with PJRT API version ";

/// How a plugin words its refusal of an args struct shorter than its own header's, read from
/// its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wording {
    /// `Unexpected <struct> size: expected N, got M. The plugin is likely built with a later
    /// version than the framework.`, with ` This plugin is built with PJRT API version X.Y.`
    /// when `with_version`.
    LaterVersion {
        /// Whether the plugin's version follows.
        with_version: bool,
    },
    /// `Unexpected <struct> size: expected N, got M. Check installed software versions.`
    /// (plugins built before XLA's later wording).
    CheckVersions,
    /// The file holds neither literal: the plugin does not check (as the probes), or words it
    /// otherwise.
    None,
}

/// What a plugin's file says without running it.
#[derive(Clone, Debug)]
pub struct PjrtPlugin {
    /// The path as given.
    pub path: PathBuf,
    /// Whether its dynamic symbols define `GetPjrtApi`.
    pub exports_get_pjrt_api: bool,
    /// How it words a size refusal.
    pub wording: Wording,
}

impl PjrtPlugin {
    /// Reads `path` as the dynamic loader would (ELF), and its bytes for XLA's literals.
    pub fn open(path: &Path) -> Result<PjrtPlugin, Error> {
        let info = ElfInfo::read(path).map_err(|e| match e {
            Error::NotAPlugin { path, reason } => Error::NotAPjrtPlugin { path, reason },
            other => other,
        })?;
        let bytes = std::fs::read(path).map_err(|e| Error::PluginUnreadable {
            path: path.to_path_buf(),
            kind: e.kind(),
        })?;
        let has = |needle: &str| contains(&bytes, needle.as_bytes());
        let wording = if has(LATER_VERSION) {
            Wording::LaterVersion {
                with_version: has(BUILT_WITH),
            }
        } else if has(CHECK_VERSIONS) && has(" size: expected ") {
            Wording::CheckVersions
        } else {
            Wording::None
        };
        Ok(PjrtPlugin {
            path: path.to_path_buf(),
            exports_get_pjrt_api: info
                .exports
                .iter()
                .any(|e| e.name == "GetPjrtApi" && !e.hidden),
            wording,
        })
    }
}

/// Whether `needle` (not empty) occurs in `haystack`: each occurrence of its first byte is a
/// candidate (a plain scan; the literals searched are rare).
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let mut from = 0;
    while let Some(i) = haystack[from..].iter().position(|&b| b == first) {
        let at = from + i + 1;
        if haystack.get(at..at + rest.len()) == Some(rest) {
            return true;
        }
        from = at;
    }
    false
}

/// What `GetPjrtApi` returned, read field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiFacts {
    /// `PJRT_Api.struct_size`.
    pub struct_size: usize,
    /// `pjrt_api_version.major_version`, `minor_version`.
    pub version: (i32, i32),
    /// `pjrt_api_version.struct_size`.
    pub version_struct_size: usize,
    /// The slots within `struct_size` that are NULL, by index (0 is `PJRT_Error_Destroy`).
    pub null_slots: Vec<u32>,
    /// The extension chain: `(PJRT_Extension_Type, struct_size)`, in order (at most 64).
    pub extensions: Vec<(u32, usize)>,
}

/// One release's predicted verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The jaxlib release.
    pub jaxlib: &'static str,
    /// Whether it loads the plugin (accepts it and goes on to the device); `None` when that
    /// cannot be told (the version is only known by running `GetPjrtApi`).
    pub loads: Option<bool>,
    /// Its refusal, as the user sees it (after `Unable to initialize backend '<name>': `), or
    /// the signal that kills it.
    pub error: Option<String>,
    /// Why the answer is what it is, when it is not a measured fact.
    pub note: Option<String>,
    /// The args struct the plugin refuses *after* `PJRT_Client_Create` succeeds
    /// (`PJRT_Plugin_Attributes_Args`), when that is what stops the release: a plugin that needs
    /// a device reaches that step only on a machine that has one, so on a machine without it the
    /// same release stops at the missing device instead.
    pub after_client_create: Option<&'static str>,
}

fn fill(template: &str, plugin: (i32, i32), path: &Path, message: &str) -> String {
    template
        .replace("{plugin}", &format!("{}.{}", plugin.0, plugin.1))
        .replace("{plugin_major}", &plugin.0.to_string())
        .replace("{path}", &path.display().to_string())
        .replace("{message}", message)
}

/// What `release` does with `plugin` under `compat`: from the file alone when `api` is `None`,
/// else from what its `GetPjrtApi` returned. Checks go in the order the release makes them
/// (measured): `GetPjrtApi` found, its extensions (one the release reads further than its
/// `struct_size` crashes it, whatever the version), the version, each call of discovery (a NULL
/// slot, the plugin's own refusal of a shorter args struct), up to `PJRT_Client_Create`, where
/// a machine without the device stops.
pub fn predict(
    plugin: &PjrtPlugin,
    api: Option<&ApiFacts>,
    release: &JaxRelease,
    compat: Compat,
) -> Prediction {
    let mut p = Prediction {
        jaxlib: release.jaxlib,
        loads: None,
        error: None,
        note: None,
        after_client_create: None,
    };
    let refuse = |mut p: Prediction, error: String| {
        p.loads = Some(false);
        p.error = Some(error);
        p
    };
    if !plugin.exports_get_pjrt_api {
        let text = fill(release.not_found, (0, 0), &plugin.path, "");
        return refuse(p, text);
    }
    let Some(api) = api else {
        p.note = Some(
            "the PJRT_Api is built when GetPjrtApi runs: its version cannot be read from the file (use --run)"
                .to_string(),
        );
        return p;
    };
    // Extensions are read when the plugin is registered, before its version is checked (a
    // 0.54 plugin crashes 0.5.3 under every setting: jaxlib's custom-call sharding registration
    // calls through the Custom_Partitioner extension past the plugin's struct_size).
    for &(kind, size) in &api.extensions {
        // The release faulted on a probe extension of this type at least as long as this one:
        // it reads further than this struct_size without checking it.
        let measured = release.extensions.iter().find_map(|(k, s, m)| match m {
            Measured::Signal(signal) if *k == kind && size <= *s => Some(*signal),
            _ => None,
        });
        if let Some(signal) = measured {
            p.loads = Some(false);
            p.error = Some(signal.to_string());
            p.note = Some(format!(
                "this release reads extension type {kind} past its struct_size ({size}) without checking it"
            ));
            return p;
        }
    }
    let version = api.version;
    let rule = &release.rules[compat.index()];
    let (fmaj, fmin) = release.framework;
    let (major, minor) = (i64::from(version.0), i64::from(version.1));
    if major != i64::from(fmaj) {
        return refuse(p, fill(rule.major, version, &plugin.path, ""));
    }
    if rule.exact {
        if minor != i64::from(fmin) {
            return refuse(p, fill(rule.mismatch, version, &plugin.path, ""));
        }
    } else if minor < i64::from(rule.min_minor) {
        return refuse(p, fill(rule.too_old, version, &plugin.path, ""));
    } else if minor > i64::from(fmin) && !rule.newer {
        return refuse(p, fill(rule.too_new, version, &plugin.path, ""));
    }
    let plugin_minor = u32::try_from(version.1).unwrap_or(0);
    for &(slot, passed) in release.calls {
        if api.null_slots.contains(&slot) {
            let measured = release.null_slots.iter().find(|(s, _)| *s == slot);
            return match measured {
                Some((_, Measured::Signal(signal))) => {
                    p.loads = Some(false);
                    p.error = Some((*signal).to_string());
                    p
                }
                Some((_, Measured::Refused(t))) => refuse(p, fill(t, version, &plugin.path, "")),
                Some((_, Measured::Loads)) => continue_after(p),
                None => {
                    p.loads = Some(false);
                    p.error = Some("SIGSEGV".to_string());
                    p.note = Some(format!(
                        "slot {slot} is NULL and this release calls it (not measured: a call through NULL)"
                    ));
                    p
                }
            };
        }
        if plugin.wording != Wording::None
            && let Some((name, wanted, exact)) = args_size_at(slot, plugin_minor)
            && passed < wanted
        {
            let message = refusal_text(name, wanted, passed, plugin.wording, version);
            let wrapped = release
                .demands
                .iter()
                .find_map(|(s, m)| match m {
                    Measured::Refused(t) if *s == slot => Some(*t),
                    _ => None,
                })
                .or_else(|| {
                    release.demands.iter().find_map(|(_, m)| match m {
                        Measured::Refused(t) => Some(*t),
                        _ => None,
                    })
                })
                .unwrap_or("{message}");
            let mut out = refuse(p, fill(wrapped, version, &plugin.path, &message));
            if !exact {
                out.note = Some(format!(
                    "{name}'s size at PJRT 0.{plugin_minor} lies between two headers read; {wanted} is the smaller"
                ));
            }
            return out;
        }
        if slot == 10 {
            break;
        }
    }
    if let Some(refused) = after_client_create(plugin, version, release) {
        return refused(p);
    }
    p.loads = Some(true);
    p
}

/// `PJRT_Plugin_Attributes`'s slot in `PJRT_Api`.
const PLUGIN_ATTRIBUTES_SLOT: u32 = 4;

/// The step after a client is created, which the probes cannot reach (they fail
/// `PJRT_Client_Create` as a missing device does): jaxlib's `PjRtCApiClient` constructor
/// (`xla/pjrt/c/pjrt_c_api_client.cc`, `InitAttributes`) calls `PJRT_Plugin_Attributes` with
/// its own header's `PJRT_Plugin_Attributes_Args_STRUCT_SIZE` and treats any error as fatal
/// (`pjrt_c_api_helpers.cc`, `LogFatalIfPjrtError`: glog's `F` line, then `SIGABRT`). A plugin
/// whose header's struct is longer refuses it. Measured with `xla-cpu-pjrt` 0.0.1 (PJRT 0.81,
/// no device needed): jaxlib 0.5.0, 0.5.3 and 0.6.2 abort with `Unexpected
/// PJRT_Plugin_Attributes_Args size: expected 32, got 24` (their frameworks, 0.64 to 0.70,
/// predate the 0.72 header that grew it), 0.7.2 and later load it.
fn after_client_create(
    plugin: &PjrtPlugin,
    version: (i32, i32),
    release: &JaxRelease,
) -> Option<impl FnOnce(Prediction) -> Prediction> {
    if plugin.wording == Wording::None {
        return None;
    }
    let plugin_minor = u32::try_from(version.1).ok()?;
    let (name, wanted, _) = args_size_at(PLUGIN_ATTRIBUTES_SLOT, plugin_minor)?;
    let (_, passed, exact) = args_size_at(PLUGIN_ATTRIBUTES_SLOT, release.framework.1)?;
    if passed >= wanted {
        return None;
    }
    let message = refusal_text(name, wanted, passed, plugin.wording, version);
    Some(move |mut p: Prediction| {
        p.loads = Some(false);
        p.error = Some("SIGABRT".to_string());
        p.after_client_create = Some(name);
        let mut note = format!(
            "after PJRT_Client_Create (a plugin that needs a device gets there only on a machine \
             with one), jaxlib reads the plugin's attributes and the plugin refuses {name}: \
             \"{message}\"; jaxlib aborts on it"
        );
        if !exact {
            note.push_str(&format!(
                "; {name}'s size at this release's PJRT 0.{} lies between two headers read, {passed} is the smaller",
                release.framework.1
            ));
        }
        p.note = Some(note);
        p
    })
}

/// The plugin's refusal of an args struct shorter than its own header's, in its words.
fn refusal_text(
    name: &str,
    wanted: usize,
    passed: usize,
    wording: Wording,
    version: (i32, i32),
) -> String {
    let mut message = format!("Unexpected {name} size: expected {wanted}, got {passed}");
    match wording {
        Wording::LaterVersion { with_version } => {
            message.push_str(&format!(". {LATER_VERSION}"));
            if with_version {
                message.push_str(&format!("{BUILT_WITH}{}.{}.", version.0, version.1));
            }
        }
        _ => message.push_str(CHECK_VERSIONS),
    }
    message
}

fn continue_after(mut p: Prediction) -> Prediction {
    p.loads = Some(true);
    p
}

/// Loads `path` in this process and calls its `GetPjrtApi`, nothing else, and reads the
/// `PJRT_Api` it returns. **This runs the plugin's code** (its initialisers and `GetPjrtApi`):
/// the CLI calls it in a child process.
pub fn call_get_pjrt_api(path: &Path) -> Result<ApiFacts, Error> {
    let load_error = |reason: String| Error::PjrtLoad {
        path: path.to_path_buf(),
        reason,
    };
    // `dlopen` searches the library path for a name without a slash: name the file itself.
    let file = if path.is_absolute() {
        path.to_path_buf()
    } else {
        Path::new(".").join(path)
    };
    // SAFETY: loading a library runs its initialisers, which may do anything; the caller
    // accepts that (this function's documentation), and the CLI runs it in a child process.
    let library = unsafe { libloading::Library::new(&file) }.map_err(|e| {
        // libloading says "dlopen failed" and keeps `dlerror`'s text as the error's source.
        let reason = match std::error::Error::source(&e) {
            Some(source) => source.to_string(),
            None => e.to_string(),
        };
        Error::PjrtOpen {
            path: path.to_path_buf(),
            reason,
        }
    })?;
    // SAFETY: `GetPjrtApi` is declared by XLA's pjrt_c_api.h as `const PJRT_Api* GetPjrtApi()`;
    // the type below is that signature.
    let get: libloading::Symbol<'_, unsafe extern "C" fn() -> *const c_void> =
        unsafe { library.get(b"GetPjrtApi\0") }.map_err(|e| load_error(e.to_string()))?;
    // SAFETY: calling the plugin's entry point with its declared signature; it takes nothing.
    let api = unsafe { get() }.cast::<u8>();
    if api.is_null() {
        return Err(load_error("GetPjrtApi returned NULL".to_string()));
    }
    let word = |offset: usize| -> usize {
        // SAFETY: `api` points to a `PJRT_Api`, whose header (`struct_size`, `extension_start`
        // and the 24-byte `PJRT_Api_Version`) every PJRT version has, and the slots the caller
        // reads stop at its `struct_size`; unaligned reads make no alignment assumption.
        unsafe { api.wrapping_add(offset).cast::<usize>().read_unaligned() }
    };
    let struct_size = word(0);
    let version_struct_size = word(16);
    // SAFETY: `major_version` and `minor_version` are the two `int`s at 32 and 36 of every
    // PJRT_Api (inside its PJRT_Api_Version at 16).
    let major = unsafe { api.wrapping_add(32).cast::<i32>().read_unaligned() };
    // SAFETY: as above.
    let minor = unsafe { api.wrapping_add(36).cast::<i32>().read_unaligned() };
    let mut null_slots = Vec::new();
    let slots = struct_size.saturating_sub(40) / 8;
    for slot in 0..slots.min(4096) {
        if word(40 + slot * 8) == 0 {
            null_slots.push(u32::try_from(slot).unwrap_or(u32::MAX));
        }
    }
    let mut extensions = Vec::new();
    let mut next = word(8) as *const u8;
    while !next.is_null() && extensions.len() < 64 {
        // SAFETY: a non-NULL `extension_start` / `next` points to a `PJRT_Extension_Base`
        // (`struct_size` at 0, `type` at 8, `next` at 16): what the framework reads too.
        let size = unsafe { next.cast::<usize>().read_unaligned() };
        // SAFETY: as above.
        let kind = unsafe { next.wrapping_add(8).cast::<u32>().read_unaligned() };
        // SAFETY: as above.
        let after = unsafe { next.wrapping_add(16).cast::<*const u8>().read_unaligned() };
        extensions.push((kind, size));
        next = after;
    }
    // The plugin stays loaded: the facts came from its memory, and unloading runs its
    // destructors for nothing.
    std::mem::forget(library);
    Ok(ApiFacts {
        struct_size,
        version: (major, minor),
        version_struct_size,
        null_slots,
        extensions,
    })
}

/// Every release's prediction.
pub fn predict_all(plugin: &PjrtPlugin, api: Option<&ApiFacts>, compat: Compat) -> Vec<Prediction> {
    super::JAX_RELEASES
        .iter()
        .map(|r| predict(plugin, api, r, compat))
        .collect()
}
