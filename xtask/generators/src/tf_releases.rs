//! TensorFlow release facts for graphdef-versions: dumped from real wheels, turned into tables.
//!
//! - `cargo xtask tf-releases [--venvs DIR] [--release R]...` installs each release's
//!   `tensorflow-cpu` wheel into a scratch venv (`DIR/tf-<R>`, reused when it already imports
//!   tensorflow) and runs `tf_releases_dump.py` there, which writes
//!   `crates/graphdef-versions/releases/<R>/ops.pb.gz` (every registered OpDef, from
//!   `TF_GetAllOpList`, in name order) and `constants.json` (the version macros of the wheel's
//!   `version.h`). Those dumps are committed: they are the source data.
//! - `cargo xtask codegen` turns the committed dumps into `src/generated/tf_releases.rs` and
//!   `tf_releases.bin` ([`generate`]): every distinct OpDef once with its name, and per release
//!   its constants and the list of its OpDefs. `--check` fails when they are stale, like any generated code.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::generated::{Files, facts_header};
use crate::gz::gunzip;
use crate::venv::{self, run};

/// The releases covered, oldest first: one patch release of each minor version from 2.12 to
/// 2.21, all of which install on CPython 3.11.
pub const RELEASES: &[&str] = &[
    "2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1", "2.20.0",
    "2.21.0",
];

/// Where the dumps live, relative to the workspace root.
const DUMPS: &str = "crates/graphdef-versions/releases";

/// The dump script, run inside each release's venv, relative to the workspace root.
const DUMP_SCRIPT: &str = "crates/graphdef-versions/interop/releases/dump.py";

/// `cargo xtask tf-releases`: dumps `releases` (all when empty) into the committed source data.
pub fn dump(root: &Path, venvs: &Path, releases: &[String]) -> Result<(), String> {
    let chosen: Vec<&str> = if releases.is_empty() {
        RELEASES.to_vec()
    } else {
        for release in releases {
            if !RELEASES.contains(&release.as_str()) {
                return Err(format!(
                    "unknown release {release}; the covered releases are {}",
                    RELEASES.join(", ")
                ));
            }
        }
        releases.iter().map(String::as_str).collect()
    };
    let script = root.join(DUMP_SCRIPT);
    for release in chosen {
        let venv = venvs.join(format!("tf-{release}"));
        venv::ensure_tensorflow(&venv, release)?;
        let out = root.join(DUMPS).join(release);
        run(Command::new(venv::python(&venv))
            .arg(&script)
            .arg(&out)
            .env("TF_CPP_MIN_LOG_LEVEL", "3"))?;
    }
    println!("now run `cargo xtask codegen` to regenerate the release tables");
    Ok(())
}

/// One release's dump, read back.
struct Dump {
    release: String,
    git_version: String,
    macros: BTreeMap<String, i64>,
    /// Serialized OpDefs, in file (name) order.
    ops: Vec<Vec<u8>>,
}

/// The generator `cargo xtask codegen` runs for graphdef-versions: module `tf_releases`.
pub fn generate(root: &Path) -> Result<(&'static str, Files), String> {
    let dumps = RELEASES
        .iter()
        .map(|release| read_dump(&root.join(DUMPS).join(release), release))
        .collect::<Result<Vec<_>, _>>()?;

    // Every distinct OpDef once, in (name, bytes) order so that the table does not depend on the
    // order of the releases.
    let mut distinct: BTreeMap<(String, Vec<u8>), usize> = BTreeMap::new();
    for dump in &dumps {
        for op in &dump.ops {
            distinct.insert((op_name(op)?, op.clone()), 0);
        }
    }
    let mut bin = Vec::new();
    let mut ranges = Vec::new();
    for (index, ((_, bytes), slot)) in distinct.iter_mut().enumerate() {
        *slot = index;
        let start = bin.len();
        bin.extend_from_slice(bytes);
        ranges.push((start, bytes.len()));
    }
    if distinct.len() > usize::from(u16::MAX) {
        return Err("more than 65535 distinct OpDefs: widen the index type".to_string());
    }

    let mut rs = String::new();
    let _ = writeln!(
        rs,
        "{}\n// TensorFlow releases {} to {}: version constants and registered ops, from the\n\
         // dumps in `{DUMPS}/` (made by `cargo xtask tf-releases` from the real wheels).\n",
        facts_header(DUMPS, "tf-releases"),
        RELEASES[0],
        RELEASES[RELEASES.len() - 1]
    );
    rs.push_str(
        "/// One release's facts.\n\
         pub struct ReleaseFacts {\n\
         \x20   /// The release, as `tf.__version__` names it.\n\
         \x20   pub release: &'static str,\n\
         \x20   /// `tf.version.GIT_VERSION` of the wheel.\n\
         \x20   pub git_version: &'static str,\n\
         \x20   /// `TF_GRAPH_DEF_VERSION`, `_MIN_PRODUCER`, `_MIN_CONSUMER`.\n\
         \x20   pub graph_def: [i32; 3],\n\
         \x20   /// `TF_CHECKPOINT_VERSION`, `_MIN_PRODUCER`, `_MIN_CONSUMER`.\n\
         \x20   pub checkpoint: [i32; 3],\n\
         \x20   /// Its registered ops: indices into [`OP_DEF_RANGES`], in op-name order.\n\
         \x20   pub ops: &'static [u16],\n\
         }\n\n",
    );
    let _ = writeln!(
        rs,
        "/// Every distinct serialized OpDef of the releases, back to back ({} OpDefs, {} bytes).",
        ranges.len(),
        bin.len()
    );
    rs.push_str("pub static OP_DEFS: &[u8] = include_bytes!(\"tf_releases.bin\");\n\n");
    rs.push_str("/// Each OpDef's name (its field 1), in op-name order: a lookup by name decodes only the\n/// OpDef it finds.\n");
    let _ = writeln!(
        rs,
        "pub static OP_DEF_NAMES: [&str; {}] = [",
        distinct.len()
    );
    for chunk in distinct.keys().collect::<Vec<_>>().chunks(4) {
        let row: Vec<String> = chunk.iter().map(|(name, _)| format!("{name:?}")).collect();
        let _ = writeln!(rs, "    {},", row.join(", "));
    }
    rs.push_str("];\n\n");
    rs.push_str("/// Where each OpDef is in [`OP_DEFS`]: `(start, length)`, in op-name order.\n");
    let _ = writeln!(
        rs,
        "pub static OP_DEF_RANGES: [(u32, u32); {}] = [",
        ranges.len()
    );
    for chunk in ranges.chunks(6) {
        let row: Vec<String> = chunk.iter().map(|(s, l)| format!("({s}, {l})")).collect();
        let _ = writeln!(rs, "    {},", row.join(", "));
    }
    rs.push_str(
        "];\n\n/// The releases, oldest first.\npub static RELEASES: &[ReleaseFacts] = &[\n",
    );
    for dump in &dumps {
        let macro_value = |name: &str| -> Result<i64, String> {
            dump.macros
                .get(name)
                .copied()
                .ok_or_else(|| format!("{}: constants.json lacks {name}", dump.release))
        };
        let _ = writeln!(
            rs,
            "    ReleaseFacts {{\n        release: {:?},\n        git_version: {:?},\n        \
             graph_def: [{}, {}, {}],\n        checkpoint: [{}, {}, {}],\n        ops: &[",
            dump.release,
            dump.git_version,
            macro_value("TF_GRAPH_DEF_VERSION")?,
            macro_value("TF_GRAPH_DEF_VERSION_MIN_PRODUCER")?,
            macro_value("TF_GRAPH_DEF_VERSION_MIN_CONSUMER")?,
            macro_value("TF_CHECKPOINT_VERSION")?,
            macro_value("TF_CHECKPOINT_VERSION_MIN_PRODUCER")?,
            macro_value("TF_CHECKPOINT_VERSION_MIN_CONSUMER")?,
        );
        let mut indices = Vec::with_capacity(dump.ops.len());
        for op in &dump.ops {
            indices.push(distinct[&(op_name(op)?, op.clone())]);
        }
        indices.sort_unstable();
        for chunk in indices.chunks(16) {
            let row: Vec<String> = chunk.iter().map(ToString::to_string).collect();
            let _ = writeln!(rs, "            {},", row.join(", "));
        }
        rs.push_str("        ],\n    },\n");
    }
    rs.push_str("];\n");

    let mut files = Files::new();
    files.insert("tf_releases.rs".to_string(), rs.into_bytes());
    files.insert("tf_releases.bin".to_string(), bin);
    Ok(("tf_releases", files))
}

fn read_dump(dir: &Path, release: &str) -> Result<Dump, String> {
    let path = |name: &str| -> PathBuf { dir.join(name) };
    let constants = fs::read_to_string(path("constants.json")).map_err(|e| {
        format!(
            "{}: {e}; run `cargo xtask tf-releases --release {release}`",
            path("constants.json").display()
        )
    })?;
    let constants: serde_json::Value = serde_json::from_str(&constants)
        .map_err(|e| format!("{}: {e}", path("constants.json").display()))?;
    if constants["tf_version"] != release {
        return Err(format!("{}: not a dump of {release}", dir.display()));
    }
    let macros = constants["version_h_macros"]
        .as_object()
        .ok_or_else(|| format!("{}: no version_h_macros", dir.display()))?
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), value.as_i64()?)))
        .collect();
    let compressed =
        fs::read(path("ops.pb.gz")).map_err(|e| format!("{}: {e}", path("ops.pb.gz").display()))?;
    let op_list = gunzip(&compressed, &path("ops.pb.gz"))?;
    let ops = split_op_list(&op_list).map_err(|e| format!("{}: {e}", dir.display()))?;
    if constants["op_count"].as_u64() != Some(ops.len() as u64) {
        return Err(format!(
            "{}: op_count disagrees with ops.pb.gz",
            dir.display()
        ));
    }
    Ok(Dump {
        release: release.to_string(),
        git_version: constants["git_version"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        macros,
        ops,
    })
}

/// The OpDefs of a serialized OpList: the payload of each field-1 record.
fn split_op_list(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut ops = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != 0x0a {
            return Err(format!("OpList: unexpected tag {} at byte {at}", bytes[at]));
        }
        at += 1;
        let (len, next) = varint(bytes, at)?;
        let end = next
            .checked_add(len)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| format!("OpList: record at byte {at} runs past the end"))?;
        ops.push(bytes[next..end].to_vec());
        at = end;
    }
    Ok(ops)
}

/// An OpDef's name: its field 1, which TensorFlow writes first.
fn op_name(op: &[u8]) -> Result<String, String> {
    if op.first() != Some(&0x0a) {
        return Err("an OpDef does not start with its name".to_string());
    }
    let (len, start) = varint(op, 1)?;
    let name = op
        .get(start..start + len)
        .ok_or_else(|| "an OpDef's name runs past its end".to_string())?;
    String::from_utf8(name.to_vec()).map_err(|_| "an OpDef's name is not UTF-8".to_string())
}

fn varint(bytes: &[u8], mut at: usize) -> Result<(usize, usize), String> {
    let mut value = 0usize;
    for shift in (0..35).step_by(7) {
        let byte = *bytes
            .get(at)
            .ok_or_else(|| format!("varint at byte {at} runs past the end"))?;
        at += 1;
        value |= usize::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok((value, at));
        }
    }
    Err(format!("varint at byte {at} is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_op_list_splits_into_its_op_defs_and_their_names() {
        // OpList { op: [OpDef { name: "A" }, OpDef { name: "Abs" }] }
        let list = [
            0x0a, 0x03, 0x0a, 0x01, b'A', 0x0a, 0x05, 0x0a, 0x03, b'A', b'b', b's',
        ];
        let ops = split_op_list(&list).unwrap();
        assert_eq!(ops.len(), 2);
        assert_eq!(op_name(&ops[0]).unwrap(), "A");
        assert_eq!(op_name(&ops[1]).unwrap(), "Abs");
        assert!(split_op_list(&[0x0a, 0x09, 0x0a]).is_err());
        assert!(split_op_list(&[0x12, 0x00]).is_err());
    }
}
