//! The libraries a release's `import tensorflow` loads and the C symbols each exports (ELF, read
//! with the `object` crate).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

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

pub(super) fn symbols_of(venv: &Path, release: &str) -> Result<Value, String> {
    let text = output(
        Command::new(venv.join("bin/python"))
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
        let (soname, needed, symbols) =
            elf_exports(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        libraries.push(json!({
            "path": relative,
            "soname": soname,
            "needed": needed,
            "c_symbols": symbols,
        }));
    }
    Ok(json!({
        "release": release,
        "global_c_api": loaded["global_c_api"],
        "libraries": libraries,
    }))
}

/// A library's soname, `DT_NEEDED` names and exported C symbols.
type Exports = (Option<String>, Vec<String>, Vec<String>);

/// The soname, the `DT_NEEDED` names and the exported (defined, global or weak,
/// default-visible) C symbols of an ELF shared library; C++ names (`_Z...`) are left out.
fn elf_exports(bytes: &[u8]) -> Result<Exports, String> {
    use object::read::elf::{ElfFile64, FileHeader as _};
    use object::{Object as _, ObjectSymbol as _};
    let file = ElfFile64::<object::Endianness>::parse(bytes).map_err(|e| e.to_string())?;
    let mut names: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| {
            !s.is_undefined() && s.is_global() && !s.name_bytes().unwrap_or_default().is_empty()
        })
        .filter(|s| {
            s.elf_symbol().st_visibility() == object::elf::STV_DEFAULT
                && matches!(
                    s.kind(),
                    object::SymbolKind::Text
                        | object::SymbolKind::Data
                        | object::SymbolKind::Unknown
                )
        })
        .filter_map(|s| s.name().ok().map(str::to_string))
        .filter(|n| !n.starts_with("_Z"))
        .collect();
    names.sort();
    names.dedup();
    let endian = file.endian();
    let mut soname = None;
    let mut needed = Vec::new();
    if let Ok(sections) = file.elf_header().sections(endian, file.data())
        && let Ok(Some((dynamic, link))) = sections.dynamic(endian, file.data())
        && let Ok(strings) = sections.strings(endian, file.data(), link)
    {
        use object::read::elf::Dyn as _;
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
    Ok((soname, needed, names))
}
