//! Which TensorFlow releases load a plugin, and why the others refuse it.
//!
//! `tf.experimental.load_pluggable_device_library` (`TF_LoadPluggableDeviceLibrary`) opens the
//! plugin with `dlopen(RTLD_NOW | RTLD_LOCAL)`, then looks up its entry points and runs them.
//! From the plugin's files alone (with the release facts se-abi carries), a release's verdict
//! is decided up to the first of these:
//!
//! 1. **`dlopen`**, replayed by [`super::loader`]: every library the plugin needs is found,
//!    every symbol version it requires is defined, and every symbol it imports, C or C++, at
//!    the version it asks for, is defined by a library in its scope. TensorFlow loads its own
//!    libraries with `RTLD_LOCAL` up to 2.18, so there a plugin sees only those it links; from
//!    2.19 on, those behind `_pywrap_tensorflow_internal.so` are global. A failure here is the
//!    loader's error, which TensorFlow raises as `NotFoundError`.
//! 2. **A library beside the plugin that it may load at run time** (in its run path, not
//!    linked): replayed the same way once the plugin is loaded; a symbol it takes from
//!    TensorFlow that the release lacks makes it fail when the plugin loads it.
//! 3. **What TensorFlow then runs**: the library's initializers, `SE_InitPlugin` and
//!    TensorFlow's checks of what it filled in, and the other entry points. A file read cannot
//!    know what they do, so without a run the verdict is `None` ([`Verdict::loads`]), with the
//!    reason; [`emulate`](super::emulate) runs `SE_InitPlugin` against the release's checks
//!    ([`Verdict::with_run`] folds its outcome in).

use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use super::elf::ElfInfo;
use super::host::HostOutcome;
use super::loader::{Files, Load, LoadFailure};
use crate::error::Error;
use crate::tensorflow::{TF_RELEASES, TfRelease};

/// The functions `RegisterPluggableDevicePlugin` looks up in a plugin, in its order; all are
/// optional (`tensorflow/core/common_runtime/pluggable_device/pluggable_device_plugin_init.cc`).
pub const ENTRY_POINTS: &[&str] = &[
    "SE_InitPlugin",
    "TFNPD_InitPlugin",
    "TF_InitKernel",
    "TF_InitGraph",
    "TF_InitProfiler",
];

/// Why a release refuses a plugin. [`Refusal::message`] is what the release says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A library the plugin needs (directly or through another) is found nowhere.
    MissingLibrary {
        /// The `DT_NEEDED` name.
        name: String,
        /// The library that needs it.
        needed_by: String,
    },
    /// A symbol version a library of the plugin's requires is not defined by the library it
    /// names.
    MissingVersion {
        /// The version.
        version: String,
        /// The library that lacks it (TensorFlow's named by its path below `site-packages`).
        library: String,
        /// The library that requires it.
        required_by: String,
    },
    /// A symbol a library imports is defined by no library in its scope, at that version.
    MissingSymbol {
        /// The symbol.
        symbol: String,
        /// The version the reference asks for.
        version: Option<String>,
        /// The library that imports it.
        imported_by: String,
        /// Whether that library is one the plugin may load at run time, rather than one loaded
        /// with it.
        at_run_time: bool,
        /// Whether a library of the release exports it (the plugin just does not see it: it
        /// does not link that library, and up to 2.18 none is in the global scope).
        exported_elsewhere: bool,
    },
    /// TensorFlow aborts the process (`SIGABRT`) with this fatal log line (a `TF_CHECK_OK` of
    /// the plugin's registration, or of its platform's).
    Abort {
        /// The line, from after its `file.cc:LINE] ` prefix.
        message: String,
    },
    /// The process is killed by a signal TensorFlow does not raise itself (it calls a NULL
    /// function of the plugin's, or the plugin's code crashes).
    Crash {
        /// The signal (`SIGSEGV`).
        signal: String,
        /// What happened.
        message: String,
    },
    /// The plugin's code ends the process itself (C's `exit`) while TensorFlow loads it: the
    /// load never returns, and the program ends with this status.
    Exits {
        /// The exit status.
        status: i32,
        /// What happened.
        message: String,
    },
    /// `load_pluggable_device_library` raises an exception of its own (not the loader's).
    Raises {
        /// Its Python class (`NotFoundError`).
        class: String,
        /// Its text.
        message: String,
    },
}

impl Refusal {
    fn from_load(failure: LoadFailure, at_run_time: bool) -> Refusal {
        match failure {
            LoadFailure::NoLibrary { name, needed_by } => {
                Refusal::MissingLibrary { name, needed_by }
            }
            LoadFailure::NoVersion {
                version,
                library,
                required_by,
            } => Refusal::MissingVersion {
                version,
                library,
                required_by,
            },
            LoadFailure::UndefinedSymbol {
                symbol,
                version,
                imported_by,
                exported_elsewhere,
            } => Refusal::MissingSymbol {
                exported_elsewhere,
                symbol,
                version,
                imported_by,
                at_run_time,
            },
        }
    }

    /// A short name for the kind of refusal (the `--json` output's `kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Refusal::MissingLibrary { .. } => "missing-library",
            Refusal::MissingVersion { .. } => "missing-version",
            Refusal::MissingSymbol {
                at_run_time: false, ..
            } => "missing-symbol",
            Refusal::MissingSymbol {
                at_run_time: true, ..
            } => "missing-symbol-at-run-time",
            Refusal::Abort { .. } => "abort",
            Refusal::Crash { .. } => "crash",
            Refusal::Exits { .. } => "exit",
            Refusal::Raises { .. } => "raises",
        }
    }

    /// What the release says, in its words: the dynamic loader's error (which TensorFlow
    /// raises), its fatal log line, or the exception's text. Paths are as the loader was given
    /// them; TensorFlow's own libraries are named by their path below `site-packages`.
    pub fn message(&self) -> String {
        match self {
            Refusal::MissingLibrary { name, .. } => {
                format!("{name}: cannot open shared object file: No such file or directory")
            }
            Refusal::MissingVersion {
                version,
                library,
                required_by,
            } => format!("{library}: version `{version}' not found (required by {required_by})"),
            Refusal::MissingSymbol {
                symbol,
                version,
                imported_by,
                ..
            } => match version {
                Some(version) => {
                    format!("{imported_by}: undefined symbol: {symbol}, version {version}")
                }
                None => format!("{imported_by}: undefined symbol: {symbol}"),
            },
            Refusal::Abort { message }
            | Refusal::Crash { message, .. }
            | Refusal::Exits { message, .. }
            | Refusal::Raises { message, .. } => message.clone(),
        }
    }

    /// What se-abi knows of why, beyond the release's words.
    pub fn note(&self) -> Option<String> {
        match self {
            Refusal::MissingLibrary { needed_by, .. } => Some(format!("needed by {needed_by}")),
            Refusal::MissingSymbol {
                at_run_time,
                exported_elsewhere,
                ..
            } => {
                let mut text = if *exported_elsewhere {
                    String::from(
                        "the release exports it, but not where the library looks: it does not \
                         link the library that has it, and that library is not in the global scope",
                    )
                } else {
                    String::from("the release does not export it")
                };
                if *at_run_time {
                    text.push_str(
                        "; a library beside the plugin, which it may load at run time, imports it",
                    );
                }
                Some(text)
            }
            Refusal::Abort { .. } => Some("TensorFlow aborts the process: SIGABRT".to_string()),
            _ => None,
        }
    }

    /// The signal that ends the process, for a refusal that ends it.
    pub fn signal(&self) -> Option<&str> {
        match self {
            Refusal::Abort { .. } => Some("SIGABRT"),
            Refusal::Crash { signal, .. } => Some(signal),
            _ => None,
        }
    }

    /// The status the process exits with, for a plugin that ends it itself.
    pub fn exit_status(&self) -> Option<i32> {
        match self {
            Refusal::Exits { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The Python exception `load_pluggable_device_library` raises, for a refusal it raises.
    pub fn exception(&self) -> Option<&str> {
        match self {
            Refusal::Raises { class, .. } => Some(class),
            Refusal::MissingLibrary { .. }
            | Refusal::MissingVersion { .. }
            | Refusal::MissingSymbol {
                at_run_time: false, ..
            } => Some("NotFoundError"),
            _ => None,
        }
    }
}

/// The devices a release lists once it has loaded the plugin (`get_device_count`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Devices {
    /// The platform's device type (`SP_Platform::type`).
    pub device_type: String,
    /// How many (`get_device_count`; 0 after an error, which TensorFlow only logs).
    pub count: i32,
}

/// One release's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The release.
    pub release: &'static str,
    /// Why it refuses the plugin; the first is what it says. Empty when it does not.
    pub refusals: Vec<Refusal>,
    /// Why se-abi cannot tell whether it loads, when it cannot (nothing refused it, but not
    /// everything TensorFlow does was replayed).
    pub unknown: Option<String>,
    /// The devices it lists after the load, when `SE_InitPlugin` ran.
    pub devices: Option<Devices>,
    /// What the release's loader would say of each library beside the plugin that nothing
    /// links but the plugin's files name (so the plugin may `dlopen` it at run time, as Intel's
    /// picks its AVX2 or AVX-512 build), where that library would fail to load. Not refusals:
    /// whether the plugin loads it, and what it does when that fails, is its own code, so a
    /// verdict with any of these is at most unknown.
    pub at_run_time: Vec<Refusal>,
}

impl Verdict {
    /// Whether the release loads the plugin: `Some(false)` when it refuses it, `Some(true)` when
    /// everything TensorFlow does at load was replayed and accepted it, `None` otherwise
    /// ([`Verdict::unknown`] says why).
    pub fn loads(&self) -> Option<bool> {
        if !self.refusals.is_empty() {
            Some(false)
        } else if self.unknown.is_some() {
            None
        } else {
            Some(true)
        }
    }

    /// Why a run that accepted the plugin still cannot tell: a library it may load later
    /// ([`Verdict::at_run_time`]) would fail to load.
    fn run_time_doubt(&self) -> Option<String> {
        (!self.at_run_time.is_empty()).then(|| {
            format!(
                "{} beside the plugin, which it may load at run time, would fail to load                  (at_run_time); whether it does is the plugin's code",
                libraries(self.at_run_time.len())
            )
        })
    }

    /// This verdict with what an emulated host of the release found when it ran the plugin
    /// ([`emulate`](super::emulate)): its refusal, or its acceptance, or why it could not run.
    /// `modules` are the plugin's entry points, whose others than `SE_InitPlugin` are not
    /// replayed.
    pub fn with_run(mut self, outcome: HostOutcome, modules: &[&str]) -> Verdict {
        let unreplayed: Vec<&str> = modules
            .iter()
            .copied()
            .filter(|m| *m != "SE_InitPlugin")
            .collect();
        let unreplayed = (!unreplayed.is_empty()).then(|| {
            format!(
                "{} not replayed: {} through TensorFlow's own functions",
                unreplayed.join(", "),
                if unreplayed.len() == 1 {
                    "it registers what it brings"
                } else {
                    "they register what they bring"
                }
            )
        });
        match outcome {
            HostOutcome::NotRun { reason } => self.unknown = Some(reason),
            HostOutcome::NoDeviceModule => self.unknown = unreplayed.or(self.run_time_doubt()),
            HostOutcome::Accepted {
                device_type,
                devices,
            } => {
                self.devices = Some(Devices {
                    device_type,
                    count: devices,
                });
                self.unknown = unreplayed.or(self.run_time_doubt());
            }
            HostOutcome::Refused(refusal) => {
                self.refusals.push(refusal);
                self.unknown = None;
            }
        }
        self
    }
}

/// A plugin file, read: its loading facts, those of the libraries it brings, and its entry
/// points.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// The plugin's path, as given.
    pub path: PathBuf,
    /// The path the loader is given (the plugin's, made absolute, not resolved: `$ORIGIN` and
    /// the loader's messages follow it as written).
    pub load_path: String,
    /// Its loading facts.
    pub elf: ElfInfo,
    /// The entry points it exports, of [`ENTRY_POINTS`] (TensorFlow looks them up through the
    /// plugin's handle, so a library it needs may provide one).
    pub entry_points: Vec<&'static str>,
    /// The libraries read from disk: the plugin's and the system's.
    files: Files,
    /// Libraries in the plugin's own folders (run paths relative to `$ORIGIN`) that nothing
    /// links but the plugin names (their file name is a string in the files it loads with): it
    /// may load them at run time.
    companions: Vec<String>,
}

impl Plugin {
    /// Reads the plugin at `path`, the libraries it needs, the libraries beside it that it may
    /// load, and the system libraries the releases' loads involve.
    pub fn open(path: &Path) -> Result<Plugin, Error> {
        let file = std::fs::File::open(path).map_err(|e| Error::PluginUnreadable {
            path: path.to_path_buf(),
            kind: e.kind(),
        })?;
        Plugin::from_file(path, &file)
    }

    /// Like [`Plugin::open`], from a file already open (`path` names it, and is where the
    /// loader would be given it).
    pub fn from_file(path: &Path, file: &std::fs::File) -> Result<Plugin, Error> {
        let elf = ElfInfo::read_file(path, file)?;
        let load_path = std::path::absolute(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .to_string_lossy()
            .into_owned();
        let mut files = Files::default();
        files.read_system();
        // The plugin as read from the open file, then what it needs.
        files.insert(&load_path, elf.clone());
        files.read_closure(&load_path);
        // The plugin's own folders: its run paths that start at `$ORIGIN`, and theirs.
        let mut folders: Vec<String> = Vec::new();
        let mut closure: Vec<String> = vec![load_path.clone()];
        let mut at = 0;
        while at < closure.len() {
            let path = closure[at].clone();
            at += 1;
            let Some(info) = files.get(&path).cloned() else {
                continue;
            };
            for dir in info.runpath.iter().chain(&info.rpath) {
                if !dir.starts_with("$ORIGIN") && !dir.starts_with("${ORIGIN}") {
                    continue;
                }
                let folder = super::loader::expand_one(dir, &path);
                if !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
            for name in &info.needed {
                for folder in &folders {
                    let candidate = format!("{}/{name}", folder.trim_end_matches('/'));
                    if files.get(&candidate).is_some() && !closure.contains(&candidate) {
                        closure.push(candidate);
                    }
                }
            }
        }
        // Libraries in those folders that nothing links, and that the plugin's files name.
        let mut candidates: Vec<String> = Vec::new();
        for folder in &folders {
            let Ok(entries) = std::fs::read_dir(folder) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".so") || n.contains(".so."))
                .collect();
            names.sort();
            for name in names {
                let candidate = format!("{}/{name}", folder.trim_end_matches('/'));
                if !closure.contains(&candidate) && !candidates.contains(&candidate) {
                    candidates.push(candidate);
                }
            }
        }
        let mut companions: Vec<String> = Vec::new();
        let names: Vec<&str> = candidates
            .iter()
            .map(|c| c.rsplit('/').next().unwrap_or(c))
            .collect();
        let mut named = vec![false; candidates.len()];
        for namer in closure.iter().filter(|_| !candidates.is_empty()) {
            let found = super::elf::names_in(Path::new(namer), &names);
            named.iter_mut().zip(found).for_each(|(n, f)| *n |= f);
        }
        for (companion, named) in candidates.iter().zip(named) {
            if !named {
                continue;
            }
            files.read_closure(companion);
            if files.get(companion).is_some() {
                companions.push(companion.clone());
            }
        }
        companions.sort();
        let entry_points = ENTRY_POINTS
            .iter()
            .copied()
            .filter(|name| {
                closure.iter().any(|p| {
                    files
                        .get(p)
                        .is_some_and(|info| info.exports.iter().any(|e| e.name == *name))
                })
            })
            .collect();
        Ok(Plugin {
            path: path.to_path_buf(),
            load_path,
            elf,
            entry_points,
            files,
            companions,
        })
    }

    /// The verdict of every installable release, oldest first, from the files alone.
    pub fn verdicts(&self) -> Vec<Verdict> {
        TF_RELEASES.iter().map(|r| self.verdict(r)).collect()
    }

    /// The verdict of one release from the files alone: a refusal the files prove, or `None`
    /// ([`Verdict::loads`]) with what was not run.
    pub fn verdict(&self, release: &'static TfRelease) -> Verdict {
        let mut verdict = Verdict {
            release: release.release,
            refusals: Vec::new(),
            unknown: None,
            devices: None,
            at_run_time: Vec::new(),
        };
        let load = match Load::open(release, &self.files, &self.load_path) {
            Ok(load) => load,
            Err(failure) => {
                verdict.refusals.push(Refusal::from_load(failure, false));
                return verdict;
            }
        };
        let mapped: Vec<&str> = load.plugin_files().map(|(p, _)| p).collect();
        let beside: Vec<&str> = self
            .companions
            .iter()
            .map(String::as_str)
            .filter(|c| !mapped.contains(c))
            .collect();
        for companion in &beside {
            if let Some(failure) = load.run_time_failure(companion, &beside) {
                verdict.at_run_time.push(Refusal::from_load(failure, true));
            }
        }
        if verdict.refusals.is_empty() {
            let what = if self.entry_points.contains(&"SE_InitPlugin") {
                "SE_InitPlugin's validation"
            } else {
                "the plugin's code (its initializers, and the entry points TensorFlow calls)"
            };
            let how = if load.tf_libraries().next().is_some() {
                "add --run, with --tensorflow DIR: it links TensorFlow's libraries"
            } else {
                "add --run"
            };
            let mut reason = format!("{what} not run; {how}");
            if let Some(doubt) = verdict.run_time_doubt() {
                reason = format!("{reason}; and {doubt}");
            }
            verdict.unknown = Some(reason);
        }
        verdict
    }

    /// The libraries of `release` the plugin links (its `DT_NEEDED` closure reaches them), by
    /// path below `site-packages`: an emulated host without TensorFlow cannot load it.
    pub fn tensorflow_libraries(&self, release: &'static TfRelease) -> Vec<&'static str> {
        match Load::open(release, &self.files, &self.load_path) {
            Ok(load) => load
                .tf_libraries()
                .map(|l| release.libraries[l].path)
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// "1 library" / "2 libraries".
fn libraries(count: usize) -> String {
    if count == 1 {
        "1 library".to_string()
    } else {
        format!("{count} libraries")
    }
}
