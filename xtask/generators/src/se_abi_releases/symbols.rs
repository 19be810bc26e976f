//! The libraries a release's `import tensorflow` loads, and everything each one exports (ELF,
//! read with the `object` crate): the facts `se-abi plugin-check` resolves a plugin's imports
//! against.
//!
//! Per release, `symbols.json.gz` lists the libraries (path, soname, `DT_NEEDED`, the version
//! names each defines, and whether it is in the process's global scope, where a plugin that does
//! not link it still finds its symbols). The exports of all ten releases share one file,
//! `exports.txt.gz` ([`write_exports`]): most names are exported by several releases, and
//! writing each once keeps the file a quarter of the size of ten separate lists.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::gz::{gunzip, gzip};
use crate::venv::output;

/// Run in the release's venv: the shared libraries of the wheel that `import tensorflow` loads,
/// and whether a global lookup finds TensorFlow's C API (`TF_NewStatus`).
const LOADED_SCRIPT: &str = r#"
import ctypes, json, os
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
root = os.path.dirname(os.path.dirname(tf.__file__))
libs = set()
for line in open("/proc/self/maps"):
    path = line.split()[-1] if len(line.split()) >= 6 else ""
    if ".so" in path and path.startswith(os.path.join(root, "tensorflow") + os.sep):
        libs.add(os.path.relpath(path, root))
try:
    ctypes.CDLL(None).TF_NewStatus
    global_c_api = True
except AttributeError:
    global_c_api = False
print(json.dumps({"release": tf.__version__, "root": root, "libraries": sorted(libs),
                  "global_c_api": global_c_api}))
"#;

/// Run in the release's venv with a JSON object `{library path: [symbols only it exports]}` on
/// stdin: after `import tensorflow`, whether a global lookup (`dlsym(RTLD_DEFAULT)`) of one of
/// a library's own symbols lands inside that library, i.e. whether the library is in the
/// process's global scope (loaded with `RTLD_GLOBAL`, or a dependency of one that was).
const GLOBAL_SCRIPT: &str = r#"
import ctypes, json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
candidates = json.load(sys.stdin)
ranges = {}
for line in open("/proc/self/maps"):
    parts = line.split()
    if len(parts) >= 6:
        low, high = (int(x, 16) for x in parts[0].split("-"))
        old = ranges.get(parts[-1], (low, high))
        ranges[parts[-1]] = (min(old[0], low), max(old[1], high))
dlsym = ctypes.CDLL(None).dlsym
dlsym.restype = ctypes.c_void_p
dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
out = {}
for path, names in candidates.items():
    low, high = ranges[path]
    out[path] = any(low <= (dlsym(None, n.encode()) or 0) < high for n in names)
print(json.dumps(out))
"#;

/// One exported symbol: its name, its version (`@@V` for the default version, `@V` for a hidden
/// one, or `-` for an unversioned symbol).
type Export = (String, String);

/// What one library of a release is and exports.
pub(super) struct Library {
    path: String,
    soname: Option<String>,
    needed: Vec<String>,
    version_definitions: Vec<String>,
    global: bool,
    exports: Vec<Export>,
}

/// The release's libraries, read from its venv.
pub(super) fn libraries_of(venv: &Path, release: &str) -> Result<(Value, Vec<Library>), String> {
    let python = crate::venv::python(venv);
    let text = output(
        Command::new(&python)
            .args(["-c", LOADED_SCRIPT])
            .env("TF_CPP_MIN_LOG_LEVEL", "3"),
    )?;
    let loaded: Value = serde_json::from_str(text.lines().last().unwrap_or_default())
        .map_err(|e| format!("{release}: {e}"))?;
    if loaded["release"] != release {
        return Err(format!("{}: not tensorflow {release}", venv.display()));
    }
    let root = PathBuf::from(loaded["root"].as_str().unwrap_or_default());
    let mut libraries = Vec::new();
    for relative in loaded["libraries"].as_array().into_iter().flatten() {
        let relative = relative.as_str().unwrap_or_default();
        let path = root.join(relative);
        let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let library =
            read_library(relative, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        libraries.push(library);
    }
    // Which libraries a global lookup sees: ask the process, with up to 20 names each library
    // alone exports.
    let mut owners: BTreeMap<&str, usize> = BTreeMap::new();
    for library in &libraries {
        for (name, _) in &library.exports {
            *owners.entry(name.as_str()).or_default() += 1;
        }
    }
    let mut candidates = serde_json::Map::new();
    for library in &libraries {
        let own: Vec<&str> = library
            .exports
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| owners.get(name) == Some(&1))
            .take(20)
            .collect();
        candidates.insert(root.join(&library.path).display().to_string(), json!(own));
    }
    let mut child = Command::new(&python)
        .args(["-c", GLOBAL_SCRIPT])
        .env("TF_CPP_MIN_LOG_LEVEL", "3")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        stdin
            .write_all(Value::Object(candidates).to_string().as_bytes())
            .map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{release}: the global-scope probe failed ({})",
            out.status
        ));
    }
    let global: Value = serde_json::from_slice(
        out.stdout
            .split(|&b| b == b'\n')
            .rfind(|l| !l.is_empty())
            .unwrap_or_default(),
    )
    .map_err(|e| format!("{release}: {e}"))?;
    for library in &mut libraries {
        library.global = global[root.join(&library.path).display().to_string()]
            .as_bool()
            .unwrap_or(false);
    }
    let facts = json!({
        "release": release,
        "global_c_api": loaded["global_c_api"],
        "libraries": libraries.iter().map(|l| json!({
            "path": l.path,
            "soname": l.soname,
            "needed": l.needed,
            "version_definitions": l.version_definitions,
            "global": l.global,
        })).collect::<Vec<_>>(),
    });
    Ok((facts, libraries))
}

/// A library's soname, `DT_NEEDED` names, version definitions and exports: every defined
/// dynamic symbol another object may bind to (global, weak or unique; default or protected
/// visibility), C++ names included, each with its version.
fn read_library(relative: &str, bytes: &[u8]) -> Result<Library, String> {
    use object::read::elf::{Dyn as _, ElfFile64, FileHeader as _};
    use object::{Object as _, ObjectSymbol as _};
    let file = ElfFile64::<object::Endianness>::parse(bytes).map_err(|e| e.to_string())?;
    let endian = file.endian();
    let data = file.data();
    let sections = file
        .elf_header()
        .sections(endian, data)
        .map_err(|e| e.to_string())?;
    let versions = sections.versions(endian, data).map_err(|e| e.to_string())?;
    let mut exports = Vec::new();
    for symbol in file.dynamic_symbols() {
        let elf = symbol.elf_symbol();
        let Ok(name) = symbol.name() else { continue };
        let visible = matches!(
            elf.st_visibility(),
            object::elf::STV_DEFAULT | object::elf::STV_PROTECTED
        );
        if symbol.is_undefined() || !symbol.is_global() || !visible || name.is_empty() {
            continue;
        }
        let version = match &versions {
            None => "-".to_string(),
            Some(table) => {
                let index = table.version_index(endian, symbol.index());
                match table.version(index).map_err(|e| e.to_string())? {
                    None => "-".to_string(),
                    Some(v) => format!(
                        "{}{}",
                        if index.is_hidden() { "@" } else { "@@" },
                        String::from_utf8_lossy(v.name())
                    ),
                }
            }
        };
        exports.push((name.to_string(), version));
    }
    exports.sort();
    exports.dedup();
    let mut soname = None;
    let mut needed = Vec::new();
    if let Ok(Some((dynamic, link))) = sections.dynamic(endian, data)
        && let Ok(strings) = sections.strings(endian, data, link)
    {
        for entry in dynamic {
            let text = || {
                entry
                    .string(endian, strings)
                    .ok()
                    .map(|s| String::from_utf8_lossy(s).into_owned())
            };
            match entry.tag32(endian) {
                Some(object::elf::DT_SONAME) => soname = text(),
                Some(object::elf::DT_NEEDED) => needed.extend(text()),
                _ => {}
            }
        }
    }
    let mut version_definitions = Vec::new();
    if let Some((mut definitions, link)) = sections
        .gnu_verdef(endian, data)
        .map_err(|e| e.to_string())?
    {
        let strings = sections
            .strings(endian, data, link)
            .map_err(|e| e.to_string())?;
        while let Some((definition, mut names)) = definitions.next().map_err(|e| e.to_string())? {
            // The base entry (the library's own name) included: a reference may name it.
            let _ = definition;
            if let Some(name) = names.next().map_err(|e| e.to_string())? {
                version_definitions.push(
                    String::from_utf8_lossy(name.name(endian, strings).map_err(|e| e.to_string())?)
                        .into_owned(),
                );
            }
        }
    }
    Ok(Library {
        path: relative.to_string(),
        soname,
        needed,
        version_definitions,
        global: false,
        exports,
    })
}

/// Where the exports of every release live, relative to the facts folder.
pub(super) const EXPORTS: &str = "exports.txt.gz";

/// Who exports a name: each `(release, library path, version)`.
pub(super) type Exporters = BTreeSet<(String, String, String)>;

/// Every export of every release, by name: `name` to its exporters (what the dump merges).
pub(super) type Exports = BTreeMap<String, Exporters>;

/// `exports.txt.gz` as written: the distinct sets of exporters, and each name with the index of
/// its set (what codegen reads, with no set copied per name).
#[derive(Default)]
pub(super) struct ExportsFile {
    pub(super) sets: Vec<Exporters>,
    pub(super) names: Vec<(String, usize)>,
}

impl ExportsFile {
    /// Each name with its own copy of its set.
    pub(super) fn into_map(self) -> Exports {
        self.names
            .into_iter()
            .map(|(name, set)| (name, self.sets[set].clone()))
            .collect()
    }
}

/// Reads `exports.txt.gz` (empty if there is none yet).
///
/// The file is text: `# ...` comments; `pattern <N> <release> <library> <version> ...` lines,
/// one per distinct set of (release, library, version) triples, giving each set a number; then
/// one `<name> <N>` line per exported name (tab-separated), sorted by name.
pub(super) fn read_exports(facts: &Path) -> Result<ExportsFile, String> {
    let path = facts.join(EXPORTS);
    let Ok(bytes) = fs::read(&path) else {
        return Ok(ExportsFile::default());
    };
    let text = String::from_utf8(gunzip(&bytes, &path)?)
        .map_err(|_| format!("{}: not UTF-8", path.display()))?;
    let mut file = ExportsFile::default();
    for (number, line) in text.lines().enumerate() {
        let bad = || format!("{}:{}: malformed line", path.display(), number + 1);
        if line.starts_with('#') {
            continue;
        }
        if let Some(set) = line.strip_prefix("pattern\t") {
            let fields: Vec<&str> = set.split('\t').skip(1).collect();
            let members = fields
                .chunks(3)
                .map(|c| match c {
                    [r, l, v] => Ok((r.to_string(), l.to_string(), v.to_string())),
                    _ => Err(bad()),
                })
                .collect::<Result<_, _>>()?;
            file.sets.push(members);
        } else if let Some((name, set)) = line.split_once('\t') {
            let set: usize = set.parse().map_err(|_| bad())?;
            if set >= file.sets.len() {
                return Err(bad());
            }
            file.names.push((name.to_string(), set));
        } else {
            return Err(bad());
        }
    }
    Ok(file)
}

/// Replaces `release`'s exports in `exports` with those of `libraries`.
pub(super) fn merge_exports(exports: &mut Exports, release: &str, libraries: &[Library]) {
    for set in exports.values_mut() {
        set.retain(|(r, _, _)| r != release);
    }
    for library in libraries {
        for (name, version) in &library.exports {
            exports.entry(name.clone()).or_default().insert((
                release.to_string(),
                library.path.clone(),
                version.clone(),
            ));
        }
    }
    exports.retain(|_, set| !set.is_empty());
}

/// Writes `exports.txt.gz`.
pub(super) fn write_exports(facts: &Path, exports: &Exports) -> Result<(), String> {
    let mut patterns: BTreeMap<&Exporters, usize> = BTreeMap::new();
    for set in exports.values() {
        let next = patterns.len();
        patterns.entry(set).or_insert(next);
    }
    let mut ordered: Vec<(&Exporters, usize)> = patterns.iter().map(|(s, &i)| (*s, i)).collect();
    ordered.sort_by_key(|&(_, i)| i);
    let mut text = String::from(
        "# Every dynamic symbol TensorFlow's libraries export, per release and library, with its\n\
         # version (@@V default, @V hidden, - none). Made by `cargo xtask se-abi-releases`.\n",
    );
    for (set, index) in ordered {
        text.push_str(&format!("pattern\t{index}"));
        for (release, library, version) in set {
            text.push_str(&format!("\t{release}\t{library}\t{version}"));
        }
        text.push('\n');
    }
    for (name, set) in exports {
        text.push_str(&format!("{name}\t{}\n", patterns[set]));
    }
    let path = facts.join(EXPORTS);
    fs::write(&path, gzip(text.as_bytes())?).map_err(|e| format!("{}: {e}", path.display()))
}
