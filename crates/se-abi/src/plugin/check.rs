//! Which TensorFlow releases load a plugin, and why the others refuse it, from its files alone.
//!
//! `tf.experimental.load_pluggable_device_library` (`TF_LoadPluggableDeviceLibrary`) opens the
//! plugin with `dlopen(RTLD_NOW | RTLD_LOCAL)`, then looks up its entry points. What decides
//! whether that works in a given release, each from the release facts se-abi carries
//! ([`TF_RELEASES`]):
//!
//! 1. **Every library it needs resolves.** A `DT_NEEDED` name matches a library the release
//!    has loaded by its soname (the loader looks among loaded objects first), or a file in the
//!    plugin's `DT_RUNPATH` / `DT_RPATH` directories (`$ORIGIN` is the plugin's own folder) or
//!    in the system's library folders. `_pywrap_tensorflow_internal.so` has a soname up to 2.18
//!    and none from 2.19 on: a plugin that needs it does not load there.
//! 2. **Every TensorFlow C API function it imports is defined** (with `RTLD_NOW` nothing is left
//!    for later): by a TensorFlow library it needs (directly or through another), or, from 2.19
//!    on, where TensorFlow's libraries are in the global scope, by any library the release has
//!    loaded. Up to 2.18 they are loaded `RTLD_LOCAL`: a plugin that does not link against them
//!    finds none of their symbols. A library beside the plugin (in its `DT_RUNPATH`
//!    directories) that it does not link but may `dlopen` at run time is checked the same way.
//! 3. (With [`emulate`](super::emulate), in a child process: the plugin's `SE_InitPlugin`, run
//!    against structs of the release's sizes, passes that release's validation.)

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use super::elf::ElfInfo;
use crate::error::Error;
use crate::tensorflow::{C_API_SYMBOLS, TF_RELEASES, TfLibrary, TfRelease};

/// The functions `RegisterPluggableDevicePlugin` looks up in a plugin, in its order; all are
/// optional (`tensorflow/core/common_runtime/pluggable_device/pluggable_device_plugin_init.cc`).
pub const ENTRY_POINTS: &[&str] = &[
    "SE_InitPlugin",
    "TFNPD_InitPlugin",
    "TF_InitKernel",
    "TF_InitGraph",
    "TF_InitProfiler",
];

/// Where the loader looks for a `DT_NEEDED` name after the loaded objects and the library's own
/// run path: the default folders of glibc's loader on x86-64 Debian and Ubuntu, and the generic
/// ones (`ld.so(8)`).
const SYSTEM_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
    "/usr/local/lib",
];

/// Whether `name` is one of TensorFlow's C API functions: the families a plugin may import from
/// TensorFlow (`TF_`, `TFE_`, `TSL_`, `TP_`, `SE_`, `TFNPD_`, `TFL_`, `TfLite...`). The release
/// facts record these; other C symbols TensorFlow's libraries export come from libraries bundled
/// into them, and C++ symbols are not recorded (see the crate README for what this cannot know).
pub fn is_c_api(name: &str) -> bool {
    [
        "TF_", "TFE_", "TSL_", "TP_", "SE_", "TFNPD_", "TFL_", "TfLite",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
}

/// Why a release refuses a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A library that must be loaded with the plugin cannot be found.
    MissingLibrary {
        /// The `DT_NEEDED` name.
        name: String,
        /// The library that needs it.
        needed_by: PathBuf,
    },
    /// A TensorFlow C API function a library imports is not defined where it would look.
    MissingSymbol {
        /// The function.
        symbol: String,
        /// The library that imports it.
        imported_by: PathBuf,
        /// Whether that library is one the plugin may load at run time, rather than one loaded
        /// with it.
        at_run_time: bool,
        /// Whether the release exports it at all (then the plugin just cannot see it: it is not
        /// in the global scope up to 2.18, and the plugin does not link TensorFlow's library).
        exported_elsewhere: bool,
    },
    /// The plugin's `SE_InitPlugin`, run in an emulated host of the release, failed the
    /// release's validation, or crashed: TensorFlow aborts the whole process (SIGABRT).
    Init {
        /// TensorFlow's words for it, or the signal.
        message: String,
    },
}

impl Refusal {
    /// A short name for the kind of refusal (the `--json` output's `kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Refusal::MissingLibrary { .. } => "missing-library",
            Refusal::MissingSymbol {
                at_run_time: false, ..
            } => "missing-symbol",
            Refusal::MissingSymbol {
                at_run_time: true, ..
            } => "missing-symbol-at-run-time",
            Refusal::Init { .. } => "init",
        }
    }

    /// What the release says, in the loader's or TensorFlow's words, with what se-abi knows of
    /// why.
    pub fn message(&self) -> String {
        match self {
            Refusal::MissingLibrary { name, needed_by } => format!(
                "{name}: cannot open shared object file: No such file or directory (needed by {})",
                needed_by.display()
            ),
            Refusal::MissingSymbol {
                symbol,
                imported_by,
                at_run_time,
                exported_elsewhere,
            } => {
                let mut text = format!("{}: undefined symbol: {symbol}", imported_by.display());
                if *exported_elsewhere {
                    text.push_str(
                        " (the release exports it, but loads its libraries with RTLD_LOCAL and \
                         the plugin does not link them: a global lookup finds nothing)",
                    );
                } else {
                    text.push_str(" (the release does not export it)");
                }
                if *at_run_time {
                    text.push_str(
                        "; a library beside the plugin, which it may load at run time, imports it",
                    );
                }
                text
            }
            Refusal::Init { message } => message.clone(),
        }
    }
}

/// One release's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The release.
    pub release: &'static str,
    /// Why it refuses the plugin; empty when it loads it.
    pub refusals: Vec<Refusal>,
}

impl Verdict {
    /// Whether the release loads the plugin.
    pub fn loads(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// A plugin file, read: its loading facts, those of the libraries it brings (found beside it),
/// and its entry points.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// The plugin's path.
    pub path: PathBuf,
    /// Its loading facts.
    pub elf: ElfInfo,
    /// The entry points it exports, of [`ENTRY_POINTS`].
    pub entry_points: Vec<&'static str>,
    /// Libraries found on disk (not TensorFlow's), read once: path to facts.
    files: BTreeMap<PathBuf, ElfInfo>,
    /// Libraries beside the plugin that nothing links: it may `dlopen` them at run time.
    companions: Vec<PathBuf>,
}

/// Where a `DT_NEEDED` name resolves in one release.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// A library TensorFlow has loaded (its index in the release's libraries).
    Tf(usize),
    /// A file of the plugin's (read from disk).
    File(PathBuf),
    /// A system library: present, and exporting none of TensorFlow's functions.
    System,
    Missing,
}

impl Plugin {
    /// Reads the plugin at `path` and the libraries beside it that it may load.
    pub fn open(path: &Path) -> Result<Plugin, Error> {
        let elf = ElfInfo::read(path)?;
        let entry_points = ENTRY_POINTS
            .iter()
            .copied()
            .filter(|name| elf.exports.iter().any(|e| e.name == **name))
            .collect();
        let mut plugin = Plugin {
            path: path.to_path_buf(),
            elf,
            entry_points,
            files: BTreeMap::new(),
            companions: Vec::new(),
        };
        // Every library the plugin's run path can reach, read once (whether linked or not).
        let mut queue: VecDeque<(PathBuf, ElfInfo)> = VecDeque::new();
        queue.push_back((plugin.path.clone(), plugin.elf.clone()));
        let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
        seen.insert(plugin.path.clone());
        while let Some((from, info)) = queue.pop_front() {
            for dir in run_dirs(&from, &info) {
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                names.sort();
                for candidate in names {
                    let is_library = candidate
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(".so") || n.contains(".so."));
                    if !is_library || !candidate.is_file() || !seen.insert(candidate.clone()) {
                        continue;
                    }
                    if let Ok(found) = ElfInfo::read(&candidate) {
                        plugin.files.insert(candidate.clone(), found.clone());
                        queue.push_back((candidate, found));
                    }
                }
            }
        }
        // Those that nothing in the plugin's own closure links are its run-time companions
        // (their closure decided per release, in `verdict`).
        let linked = plugin.closure_files(&plugin.path, &plugin.elf);
        plugin.companions = plugin
            .files
            .keys()
            .filter(|p| !linked.contains(*p))
            .cloned()
            .collect();
        Ok(plugin)
    }

    /// The verdict of every installable release, oldest first.
    pub fn verdicts(&self) -> Vec<Verdict> {
        TF_RELEASES.iter().map(|r| self.verdict(r)).collect()
    }

    /// The verdict of one release.
    pub fn verdict(&self, release: &TfRelease) -> Verdict {
        let mut refusals = Vec::new();
        // The plugin, loaded with its closure.
        self.check_library(release, &self.path, &self.elf, false, &mut refusals);
        // A library beside it that it may load at run time: only its TensorFlow imports, and
        // only once the plugin itself loads.
        if refusals.is_empty() {
            for path in &self.companions {
                if let Some(info) = self.files.get(path) {
                    let mut found = Vec::new();
                    self.check_library(release, path, info, true, &mut found);
                    refusals.extend(
                        found
                            .into_iter()
                            .filter(|r| matches!(r, Refusal::MissingSymbol { .. })),
                    );
                }
            }
        }
        Verdict {
            release: release.release,
            refusals,
        }
    }

    /// Checks one library loaded with `dlopen`: its `DT_NEEDED` closure resolves, and every
    /// TensorFlow C API function it and its closure import is defined in their scope.
    fn check_library(
        &self,
        release: &TfRelease,
        path: &Path,
        info: &ElfInfo,
        at_run_time: bool,
        refusals: &mut Vec<Refusal>,
    ) {
        // Breadth-first, as the loader builds a library's local scope.
        let mut scope_files: Vec<(PathBuf, &ElfInfo)> = vec![(path.to_path_buf(), info)];
        let mut tf_libs: BTreeSet<usize> = BTreeSet::new();
        let mut visited: BTreeSet<PathBuf> = BTreeSet::new();
        visited.insert(path.to_path_buf());
        let mut i = 0;
        while i < scope_files.len() {
            let (from, from_info) = scope_files[i].clone();
            for name in &from_info.needed {
                match self.find(release, &from, from_info, name) {
                    Found::Tf(index) => tf_closure(release, index, &mut tf_libs),
                    Found::File(file) => {
                        if visited.insert(file.clone())
                            && let Some(found) = self.files.get(&file)
                        {
                            scope_files.push((file, found));
                        }
                    }
                    Found::System => {}
                    Found::Missing => refusals.push(Refusal::MissingLibrary {
                        name: name.clone(),
                        needed_by: from.clone(),
                    }),
                }
            }
            i += 1;
        }
        if !refusals.is_empty() {
            // The loader stops at the first library it cannot open.
            return;
        }
        let defined_by_files: BTreeSet<&str> = scope_files
            .iter()
            .flat_map(|(_, info)| info.exports.iter().map(|e| e.name.as_str()))
            .collect();
        let visible = |symbol: &str| -> bool {
            let in_lib = |lib: &TfLibrary| {
                lib.c_api
                    .iter()
                    .any(|&k| C_API_SYMBOLS[usize::from(k)] == symbol)
            };
            tf_libs.iter().any(|&k| in_lib(&release.libraries[k]))
                || (release.global_c_api && release.libraries.iter().any(in_lib))
        };
        for (file, info) in &scope_files {
            for import in &info.imports {
                if import.weak
                    || !is_c_api(&import.name)
                    || defined_by_files.contains(import.name.as_str())
                {
                    continue;
                }
                if !visible(&import.name) {
                    let exported_elsewhere = release.libraries.iter().any(|lib| {
                        lib.c_api
                            .iter()
                            .any(|&k| C_API_SYMBOLS[usize::from(k)] == import.name)
                    });
                    refusals.push(Refusal::MissingSymbol {
                        symbol: import.name.clone(),
                        imported_by: file.clone(),
                        at_run_time,
                        exported_elsewhere,
                    });
                }
            }
        }
    }

    /// Where `name`, needed by the library at `from`, resolves in `release`.
    fn find(&self, release: &TfRelease, from: &Path, info: &ElfInfo, name: &str) -> Found {
        // The loader first matches the name against the objects already loaded: TensorFlow's
        // libraries, by soname.
        if let Some(index) = release
            .libraries
            .iter()
            .position(|lib| lib.soname == Some(name))
        {
            return Found::Tf(index);
        }
        if name.contains('/') {
            let path = PathBuf::from(name);
            return if self.files.contains_key(&path) {
                Found::File(path)
            } else if path.exists() {
                Found::System
            } else {
                Found::Missing
            };
        }
        for dir in run_dirs(from, info) {
            let candidate = dir.join(name);
            if self.files.contains_key(&candidate) {
                return Found::File(candidate);
            }
            if candidate.exists() {
                return Found::System;
            }
        }
        if SYSTEM_DIRS
            .iter()
            .any(|dir| Path::new(dir).join(name).exists())
        {
            return Found::System;
        }
        Found::Missing
    }

    /// The files (not TensorFlow's, not the system's) in the `DT_NEEDED` closure of a library,
    /// whatever the release.
    fn closure_files(&self, path: &Path, info: &ElfInfo) -> BTreeSet<PathBuf> {
        let mut out = BTreeSet::new();
        let mut queue = vec![(path.to_path_buf(), info.clone())];
        while let Some((from, from_info)) = queue.pop() {
            for name in &from_info.needed {
                for dir in run_dirs(&from, &from_info) {
                    let candidate = dir.join(name);
                    if let Some(found) = self.files.get(&candidate) {
                        if out.insert(candidate.clone()) {
                            queue.push((candidate, found.clone()));
                        }
                        break;
                    }
                }
            }
        }
        out
    }
}

/// A TensorFlow library and, through their sonames, the TensorFlow libraries it needs.
fn tf_closure(release: &TfRelease, index: usize, out: &mut BTreeSet<usize>) {
    if !out.insert(index) {
        return;
    }
    for name in release.libraries[index].needed {
        if let Some(next) = release
            .libraries
            .iter()
            .position(|lib| lib.soname == Some(*name))
        {
            tf_closure(release, next, out);
        }
    }
}

/// A library's run path with `$ORIGIN` (and `${ORIGIN}`) expanded to its own folder.
fn run_dirs(path: &Path, info: &ElfInfo) -> Vec<PathBuf> {
    let origin = path
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .or_else(|| path.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let origin = origin.to_string_lossy().to_string();
    // The loader ignores DT_RPATH when DT_RUNPATH is present (ld.so(8)).
    let dirs = if info.runpath.is_empty() {
        &info.rpath
    } else {
        &info.runpath
    };
    dirs.iter()
        .map(|dir| {
            let dir = PathBuf::from(
                dir.replace("${ORIGIN}", &origin)
                    .replace("$ORIGIN", &origin),
            );
            dir.canonicalize().unwrap_or(dir)
        })
        .collect()
}
