//! `dlopen(plugin, RTLD_NOW | RTLD_LOCAL)` in a process that has imported one release of
//! TensorFlow, replayed from the files: the objects the dynamic loader maps, the symbol versions
//! it checks, the symbols it binds, in its order, and the first failure, in its words (glibc's
//! `ld.so`: `_dl_map_object_deps`, `_dl_check_map_versions`, `_dl_relocate_object`, called from
//! `dl_open_worker` in `elf/dl-open.c`).
//!
//! 1. **Map.** Breadth-first from the plugin, each `DT_NEEDED` name is matched against the
//!    objects the process already has (TensorFlow's libraries, by soname) and those mapped so
//!    far, else searched for: `DT_RPATH` (of the object that needs it and up the chain that
//!    loaded it, unless that object has a `DT_RUNPATH`), `LD_LIBRARY_PATH`, `DT_RUNPATH`, then
//!    the system folders. The first name found nowhere ends the load: "NAME: cannot open shared
//!    object file: No such file or directory".
//! 2. **Versions.** Each new object's `DT_VERNEED` entries are checked, object by object in that
//!    order, against the version definitions of the library they name: "LIB: version `V' not
//!    found (required by OBJ)".
//! 3. **Relocation.** The new objects are sorted as glibc sorts them (a depth-first walk of the
//!    dependencies, `_dl_sort_maps_dfs`), and relocated dependencies first; each non-weak
//!    symbol a relocation looks up must be defined in the global scope (the interpreter's
//!    libraries, and from 2.19 TensorFlow's libraries behind `_pywrap_tensorflow_internal.so`)
//!    or among the objects of this load, at the version it asks for: "OBJ: undefined symbol:
//!    NAME" (", version V" for a versioned one). The first failure ends the load.
//!
//! TensorFlow's own libraries are judged from the release facts (their sonames, `DT_NEEDED`,
//! version definitions and every export, `crate::tensorflow::TF_RELEASES` and [`super::exports`]);
//! the plugin's files and the system's libraries are read from disk, once, by [`Files`]. What
//! this cannot see: what another program put in the global scope, the interpreter's own
//! symbols (the CPython API, `Py...`, taken as defined), and the dynamic loader's cache
//! (`/etc/ld.so.cache`; the default folders are searched instead).

use std::collections::BTreeMap;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use super::elf::{ElfInfo, Export, Import};
use super::exports::exporters;
use crate::tensorflow::{TF_RELEASES, TfRelease};

/// Where the loader looks for a library after the run paths: the default folders of glibc's
/// loader on x86-64 Debian and Ubuntu, and the generic ones (`ld.so(8)`).
const SYSTEM_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
    "/usr/local/lib",
];

/// The libraries of the Python interpreter that runs TensorFlow (CPython 3.11, linked
/// statically with libpython), in the global scope of every process that loads a plugin.
const INTERPRETER_LIBRARIES: &[&str] = &[
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "libutil.so.1",
];

/// Whether `name` is one of CPython's own functions or objects, which the interpreter's
/// executable defines (`Py...`, `_Py...`).
fn is_python_api(name: &str) -> bool {
    name.starts_with("Py") || name.starts_with("_Py")
}

/// The libraries read from disk: the plugin's and the system's, by path (`None`: not an x86-64
/// shared library, or unreadable).
#[derive(Debug, Clone, Default)]
pub(crate) struct Files {
    read: BTreeMap<String, Option<ElfInfo>>,
}

impl Files {
    /// The facts of the library at `path`, read on first use.
    pub(crate) fn read(&mut self, path: &str) -> Option<&ElfInfo> {
        self.read
            .entry(path.to_string())
            .or_insert_with(|| ElfInfo::read(Path::new(path)).ok())
            .as_ref()
    }

    /// Records the facts of the library at `path`, read already.
    pub(crate) fn insert(&mut self, path: &str, info: ElfInfo) {
        self.read.insert(path.to_string(), Some(info));
    }

    /// The facts of a library already read.
    pub(crate) fn get(&self, path: &str) -> Option<&ElfInfo> {
        self.read.get(path).and_then(Option::as_ref)
    }

    /// Reads `path` and every library its `DT_NEEDED` names lead to on disk (TensorFlow's
    /// libraries are not on disk here, and are judged from the release facts instead).
    pub(crate) fn read_closure(&mut self, path: &str) {
        let mut queue = vec![(path.to_string(), Vec::<String>::new())];
        while let Some((at, chain)) = queue.pop() {
            let Some(info) = self.read(&at).cloned() else {
                continue;
            };
            let mut chain = chain;
            chain.push(at.clone());
            for name in &info.needed {
                for (candidate, _) in candidates(name, &info, &at, &chain, self) {
                    if self.read.contains_key(&candidate) {
                        if self.get(&candidate).is_some() {
                            break;
                        }
                        continue;
                    }
                    if self.read(&candidate).is_some() {
                        queue.push((candidate, chain.clone()));
                        break;
                    }
                }
            }
        }
    }

    /// Reads the interpreter's libraries and the system libraries TensorFlow's libraries need,
    /// in every release.
    pub(crate) fn read_system(&mut self) {
        let mut names: Vec<&str> = INTERPRETER_LIBRARIES.to_vec();
        for release in TF_RELEASES {
            for library in release.libraries {
                for name in library.needed {
                    if !release.libraries.iter().any(|l| l.soname == Some(*name)) {
                        names.push(name);
                    }
                }
            }
        }
        names.sort_unstable();
        names.dedup();
        for name in names {
            if let Some(path) = system_path(name, self) {
                self.read_closure(&path);
            }
        }
    }
}

/// `$ORIGIN` of an object: the folder of the path it was loaded by, as written.
fn origin(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) => "/",
        Some(at) => &path[..at],
        None => ".",
    }
}

/// A run path's folders with `$ORIGIN` expanded for the object at `path`.
fn expand(dirs: &[String], path: &str) -> Vec<String> {
    dirs.iter().map(|dir| expand_one(dir, path)).collect()
}

/// One run-path folder with `$ORIGIN` expanded for the object at `path`.
pub(crate) fn expand_one(dir: &str, path: &str) -> String {
    let origin = origin(path);
    dir.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
}

fn join(dir: &str, name: &str) -> String {
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// Where the loader tries `name` for the object at `path`, in order (`_dl_map_object`), each
/// with whether it comes from a run path of the plugin's (else `LD_LIBRARY_PATH` or a system
/// folder). `chain` is the object and those that loaded it, the object last.
fn candidates(
    name: &str,
    info: &ElfInfo,
    path: &str,
    chain: &[String],
    files: &Files,
) -> Vec<(String, bool)> {
    if name.contains('/') {
        return vec![(name.to_string(), true)];
    }
    let mut dirs: Vec<(String, bool)> = Vec::new();
    if info.runpath.is_empty() {
        // DT_RPATH of the object, then of the objects that loaded it (each ignoring its
        // DT_RPATH when it has a DT_RUNPATH).
        for at in chain.iter().rev() {
            let rpath = files
                .get(at)
                .filter(|i| i.runpath.is_empty())
                .map_or(&[][..], |i| &i.rpath[..]);
            dirs.extend(expand(rpath, at).into_iter().map(|d| (d, true)));
        }
    }
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        let paths = paths.to_string_lossy().into_owned();
        dirs.extend(
            paths
                .split([':', ';'])
                .filter(|d| !d.is_empty())
                .map(|d| (d.to_string(), false)),
        );
    }
    dirs.extend(expand(&info.runpath, path).into_iter().map(|d| (d, true)));
    dirs.extend(SYSTEM_DIRS.iter().map(|d| (d.to_string(), false)));
    dirs.into_iter()
        .map(|(dir, own)| (join(&dir, name), own))
        .collect()
}

/// Where a system library is: the first default folder that has it.
fn system_path(name: &str, files: &mut Files) -> Option<String> {
    SYSTEM_DIRS
        .iter()
        .map(|dir| join(dir, name))
        .find(|path| files.read(path).is_some())
}

/// Why the loader refuses the plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LoadFailure {
    /// A needed library is found nowhere.
    NoLibrary {
        /// The `DT_NEEDED` name.
        name: String,
        /// The object that needs it.
        needed_by: String,
    },
    /// A version an object requires is not defined by the library it names.
    NoVersion {
        /// The version.
        version: String,
        /// The library that lacks it.
        library: String,
        /// The object that requires it.
        required_by: String,
    },
    /// A symbol a relocation looks up is defined nowhere in scope.
    UndefinedSymbol {
        /// The symbol.
        symbol: String,
        /// The version the reference asks for.
        version: Option<String>,
        /// The object whose relocation looks it up.
        imported_by: String,
        /// Whether a library of the release exports it, out of the object's scope.
        exported_elsewhere: bool,
    },
}

/// One object of the load.
#[derive(Debug, Clone)]
enum Object {
    /// A library of the release (its index in the release's `libraries`), already loaded.
    Tf(usize),
    /// A library on disk, by path; `checked` when it is the plugin's (the plugin itself, or
    /// found through a run path of the plugin's), not a system library.
    Disk { path: String, checked: bool },
}

#[derive(Debug, Clone)]
struct Node {
    object: Object,
    /// The names it was asked for by (its soname too).
    names: Vec<String>,
    /// Its `DT_NEEDED` objects, in order.
    needed: Vec<usize>,
    /// The node that needed it first (its loader), if any.
    loader: Option<usize>,
}

/// A load being replayed in one release.
pub(crate) struct Load<'a> {
    release: &'static TfRelease,
    index: usize,
    files: &'a Files,
    /// The dependency search list (breadth-first), starting with the loaded library.
    nodes: Vec<Node>,
    /// The global scope: the interpreter's libraries and the release's global libraries, with
    /// everything they need; and, for a library the plugin loads at run time, the libraries the
    /// plugin may have loaded before it.
    global: Vec<Node>,
}

impl<'a> Load<'a> {
    /// Replays `dlopen(path)` in `release`: the objects of the load, or why it fails.
    pub(crate) fn open(
        release: &'static TfRelease,
        files: &'a Files,
        path: &str,
    ) -> Result<Load<'a>, LoadFailure> {
        Load::open_beside(release, files, path, &[])
    }

    /// Like [`Load::open`], with the libraries at `loaded` (and what they need) in scope too.
    fn open_beside(
        release: &'static TfRelease,
        files: &'a Files,
        path: &str,
        loaded: &[&str],
    ) -> Result<Load<'a>, LoadFailure> {
        // By name: `TF_RELEASES` is a constant, and two uses of it need not share an address.
        let index = TF_RELEASES
            .iter()
            .position(|r| r.release == release.release)
            .unwrap_or(0);
        let mut load = Load {
            release,
            index,
            files,
            nodes: Vec::new(),
            global: Vec::new(),
        };
        load.global = load.global_scope();
        for other in loaded {
            if *other == path {
                continue;
            }
            let mut beside = Load {
                release,
                index,
                files,
                nodes: Vec::new(),
                global: Vec::new(),
            };
            beside.nodes.push(Node {
                object: Object::Disk {
                    path: other.to_string(),
                    checked: false,
                },
                names: vec![other.to_string()],
                needed: Vec::new(),
                loader: None,
            });
            // What it needs, as far as it is found (a library it lacks is its own affair).
            let _ = beside.map();
            load.global.append(&mut beside.nodes);
        }
        let plugin = Node {
            object: Object::Disk {
                path: path.to_string(),
                checked: true,
            },
            names: vec![path.to_string()],
            needed: Vec::new(),
            loader: None,
        };
        load.nodes.push(plugin);
        load.map()?;
        load.check_versions()?;
        load.relocate()?;
        Ok(load)
    }

    /// The path (or, for TensorFlow's, the path below `site-packages`) of node `i`.
    fn name_of(&self, node: &Node) -> String {
        match &node.object {
            Object::Tf(l) => self.release.libraries[*l].path.to_string(),
            Object::Disk { path, .. } => path.clone(),
        }
    }

    /// The files of the plugin this load maps (the plugin first), each with its facts.
    pub(crate) fn plugin_files(&self) -> impl Iterator<Item = (&str, &ElfInfo)> {
        self.nodes.iter().filter_map(|node| match &node.object {
            Object::Disk {
                path,
                checked: true,
            } => self.files.get(path).map(|info| (path.as_str(), info)),
            _ => None,
        })
    }

    /// The release's libraries this load binds the plugin to (its `DT_NEEDED` closure).
    pub(crate) fn tf_libraries(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().filter_map(|node| match node.object {
            Object::Tf(l) => Some(l),
            Object::Disk { .. } => None,
        })
    }

    fn global_scope(&self) -> Vec<Node> {
        let mut scope: Vec<Node> = Vec::new();
        let add = |scope: &mut Vec<Node>, object: Object, name: &str| {
            let known = scope.iter().any(|n| match (&n.object, &object) {
                (Object::Tf(a), Object::Tf(b)) => a == b,
                (Object::Disk { path: a, .. }, Object::Disk { path: b, .. }) => a == b,
                _ => false,
            });
            if !known {
                scope.push(Node {
                    object,
                    names: vec![name.to_string()],
                    needed: Vec::new(),
                    loader: None,
                });
            }
        };
        let mut names: Vec<String> = INTERPRETER_LIBRARIES
            .iter()
            .map(|n| n.to_string())
            .collect();
        for (l, library) in self.release.libraries.iter().enumerate() {
            if library.global {
                add(&mut scope, Object::Tf(l), library.path);
                names.extend(library.needed.iter().map(|n| n.to_string()));
            }
        }
        // Everything the global libraries need: TensorFlow's by soname, the system's on disk.
        let mut at = 0;
        while at < names.len() {
            let name = names[at].clone();
            at += 1;
            if let Some(l) = self.tf_by_soname(&name) {
                let before = scope.len();
                add(&mut scope, Object::Tf(l), &name);
                if scope.len() > before {
                    names.extend(
                        self.release.libraries[l]
                            .needed
                            .iter()
                            .map(|n| n.to_string()),
                    );
                }
            } else if let Some(path) = SYSTEM_DIRS
                .iter()
                .map(|dir| join(dir, &name))
                .find(|p| self.files.get(p).is_some())
            {
                let before = scope.len();
                add(
                    &mut scope,
                    Object::Disk {
                        path: path.clone(),
                        checked: false,
                    },
                    &name,
                );
                if scope.len() > before
                    && let Some(info) = self.files.get(&path)
                {
                    names.extend(info.needed.iter().cloned());
                }
            }
        }
        scope
    }

    fn tf_by_soname(&self, name: &str) -> Option<usize> {
        self.release
            .libraries
            .iter()
            .position(|lib| lib.soname == Some(name))
    }

    /// Step 1: the breadth-first dependency list.
    fn map(&mut self) -> Result<(), LoadFailure> {
        let mut i = 0;
        while i < self.nodes.len() {
            let needed: Vec<String> = match &self.nodes[i].object {
                Object::Tf(l) => self.release.libraries[*l]
                    .needed
                    .iter()
                    .map(|n| n.to_string())
                    .collect(),
                Object::Disk { path, .. } => self
                    .files
                    .get(path)
                    .map(|info| info.needed.clone())
                    .unwrap_or_default(),
            };
            for name in needed {
                match self.resolve(&name, i) {
                    Some(j) => self.nodes[i].needed.push(j),
                    // A library TensorFlow's own needs is in the process already.
                    None if matches!(self.nodes[i].object, Object::Tf(_)) => {}
                    None => {
                        return Err(LoadFailure::NoLibrary {
                            name,
                            needed_by: self.name_of(&self.nodes[i]),
                        });
                    }
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// The node `name` (needed by node `from`) is: one already in the list, a library of the
    /// release, or a file found on disk (added to the list).
    fn resolve(&mut self, name: &str, from: usize) -> Option<usize> {
        if let Some(j) = self
            .nodes
            .iter()
            .position(|n| n.names.iter().any(|m| m == name))
        {
            return Some(j);
        }
        if let Some(l) = self.tf_by_soname(name) {
            return Some(self.push(Object::Tf(l), name, from));
        }
        let (info, path) = match &self.nodes[from].object {
            Object::Tf(_) => (None, String::new()),
            Object::Disk { path, .. } => (self.files.get(path), path.clone()),
        };
        let default = ElfInfo::default();
        let info = info.unwrap_or(&default);
        let mut chain = Vec::new();
        let mut at = Some(from);
        while let Some(k) = at {
            if let Object::Disk { path, .. } = &self.nodes[k].object {
                chain.push(path.clone());
            }
            at = self.nodes[k].loader;
        }
        chain.reverse();
        for (candidate, checked) in candidates(name, info, &path, &chain, self.files) {
            let Some(found) = self.files.get(&candidate) else {
                continue;
            };
            // The same file by another name (a soname, or another run path).
            if let Some(j) = self
                .nodes
                .iter()
                .position(|n| matches!(&n.object, Object::Disk { path, .. } if *path == candidate))
            {
                self.nodes[j].names.push(name.to_string());
                return Some(j);
            }
            let soname = found.soname.clone();
            let j = self.push(
                Object::Disk {
                    path: candidate,
                    checked,
                },
                name,
                from,
            );
            self.nodes[j].names.extend(soname);
            return Some(j);
        }
        None
    }

    fn push(&mut self, object: Object, name: &str, from: usize) -> usize {
        self.nodes.push(Node {
            object,
            names: vec![name.to_string()],
            needed: Vec::new(),
            loader: Some(from),
        });
        self.nodes.len() - 1
    }

    /// The version names the library of `node` defines (empty: it has no version information,
    /// and the loader checks nothing against it).
    fn versions_of(&self, node: &Node) -> Vec<&str> {
        match &node.object {
            Object::Tf(l) => self.release.libraries[*l].version_definitions.to_vec(),
            Object::Disk { path, .. } => self
                .files
                .get(path)
                .map(|info| {
                    info.version_definitions
                        .iter()
                        .map(|v| v.0.as_str())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Step 2: every version each new object requires.
    fn check_versions(&self) -> Result<(), LoadFailure> {
        for node in &self.nodes {
            let Object::Disk {
                path,
                checked: true,
            } = &node.object
            else {
                continue;
            };
            let Some(info) = self.files.get(path) else {
                continue;
            };
            for need in &info.version_needs {
                let Some(target) = self
                    .nodes
                    .iter()
                    .chain(&self.global)
                    .find(|n| n.names.contains(&need.file))
                else {
                    continue;
                };
                let defined = self.versions_of(target);
                if defined.is_empty() {
                    continue;
                }
                for (version, weak) in &need.versions {
                    if !weak && !defined.contains(&version.0.as_str()) {
                        return Err(LoadFailure::NoVersion {
                            version: version.0.clone(),
                            library: self.name_of(target),
                            required_by: path.clone(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The order glibc relocates the objects of the list in: the reverse of its depth-first
    /// sort of them (`_dl_sort_maps_dfs`, `elf/dl-sort-maps.c`), which puts each object before
    /// those it needs, the loaded library first.
    fn relocation_order(&self) -> Vec<usize> {
        let count = self.nodes.len();
        let mut visited = vec![false; count];
        let mut order = Vec::with_capacity(count);
        // From the last object to the first, a post-order walk of each one's dependencies
        // (iterative: a chain of libraries is as deep as the files make it).
        for start in (0..count).rev() {
            if visited[start] {
                continue;
            }
            visited[start] = true;
            let mut stack = vec![(start, 0usize)];
            while let Some((node, next)) = stack.last_mut() {
                let node = *node;
                if let Some(&dep) = self.nodes[node].needed.get(*next) {
                    *next += 1;
                    if !visited[dep] {
                        visited[dep] = true;
                        stack.push((dep, 0));
                    }
                } else {
                    order.push(node);
                    stack.pop();
                }
            }
        }
        // `order` is the post-order: the sort is its reverse (with the loaded library moved
        // first), and relocation runs that backwards, so from the end of the sort.
        order.reverse();
        if let Some(at) = order.iter().position(|&n| n == 0) {
            let first = order.remove(at);
            order.insert(0, first);
        }
        order.reverse();
        order
    }

    /// Step 3: every symbol each new object's relocations look up.
    fn relocate(&self) -> Result<(), LoadFailure> {
        for i in self.relocation_order() {
            let Object::Disk {
                path,
                checked: true,
            } = &self.nodes[i].object
            else {
                continue;
            };
            let Some(info) = self.files.get(path) else {
                continue;
            };
            if let Some(import) = self.first_undefined(info) {
                return Err(LoadFailure::UndefinedSymbol {
                    symbol: import.name.clone(),
                    version: import.version.as_ref().map(|v| v.0.clone()),
                    imported_by: path.clone(),
                    exported_elsewhere: self.release_exports(&import.name),
                });
            }
        }
        Ok(())
    }

    /// The first non-weak import of `info` that nothing in scope defines.
    pub(crate) fn first_undefined<'i>(&self, info: &'i ElfInfo) -> Option<&'i Import> {
        info.imports
            .iter()
            .find(|import| !import.weak && !is_python_api(&import.name) && !self.defines(import))
    }

    /// Whether an object in scope (the global scope, then this load's list) defines `import`.
    pub(crate) fn defines(&self, import: &Import) -> bool {
        // The libraries on disk first: a plugin's imports are mostly the C library's, and
        // TensorFlow's exports are decoded only when one is not.
        let scope = || self.global.iter().chain(&self.nodes);
        let on_disk = scope().any(|node| match &node.object {
            Object::Disk { path, .. } => self
                .files
                .get(path)
                .is_some_and(|info| defined_in(&info.exports, import)),
            Object::Tf(_) => false,
        });
        on_disk
            || exporters(&import.name).any(|e| {
                e.release == self.index
                    && scope().any(|node| matches!(node.object, Object::Tf(l) if l == e.library))
                    && version_matches(import, e.version, e.hidden)
            })
    }

    /// Whether any library of this release exports `name`, in scope or not.
    fn release_exports(&self, name: &str) -> bool {
        exporters(name).any(|e| e.release == self.index)
    }

    /// Replays, after this load, the plugin's own `dlopen` of the library at `path` (a library
    /// beside it that it may load at run time): its scope is the global scope, its own
    /// dependencies, and the libraries of this load and `beside` (the other libraries beside
    /// the plugin, which it may have loaded first, into the global scope). `None` if it loads,
    /// or fails for a reason of its own (a library it needs that this machine lacks): only a
    /// symbol TensorFlow's libraries export in some release is reported, the release being the
    /// reason it is missing.
    pub(crate) fn run_time_failure(&self, path: &str, beside: &[&str]) -> Option<LoadFailure> {
        let mut loaded: Vec<&str> = self.plugin_files().map(|(p, _)| p).collect();
        loaded.extend(beside.iter().copied());
        let failure = Load::open_beside(self.release, self.files, path, &loaded).err()?;
        match &failure {
            LoadFailure::UndefinedSymbol {
                symbol, version, ..
            } if exporters(symbol).next().is_some()
                || version.as_deref().is_some_and(|v| {
                    TF_RELEASES
                        .iter()
                        .flat_map(|r| r.libraries)
                        .any(|l| l.version_definitions.contains(&v))
                }) =>
            {
                Some(failure)
            }
            _ => None,
        }
    }
}

/// glibc's `check_match` for versions: an unversioned reference binds to a default (not hidden)
/// definition; a versioned one to a definition of that version, or to an unversioned one.
fn version_matches(import: &Import, version: Option<&str>, hidden: bool) -> bool {
    match &import.version {
        None => !hidden,
        Some(want) => version == Some(want.0.as_str()) || (version.is_none() && !hidden),
    }
}

/// Whether `exports` (sorted by name) has a definition `import` binds to.
fn defined_in(exports: &[Export], import: &Import) -> bool {
    let at = exports.partition_point(|e| e.name.as_str() < import.name.as_str());
    exports[at..]
        .iter()
        .take_while(|e| e.name == import.name)
        .any(|e| version_matches(import, e.version.as_ref().map(|v| v.0.as_str()), e.hidden))
}
