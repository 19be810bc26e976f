//! The committed snapshots, one JSON file per declared struct
//! (`crates/se-abi/abi/<group>/<struct>.json`): their paths, their JSON, reading and writing them.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::compare::normalize_type;
use super::{MemberLayout, StructLayout};

/// The snapshot file of a struct.
fn snapshot_path(dir: &Path, layout: &StructLayout) -> PathBuf {
    dir.join(&layout.group)
        .join(format!("{}.json", layout.name))
}

pub(super) fn to_json(layout: &StructLayout) -> Value {
    let members: Vec<Value> = layout
        .members
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "type": m.ty,
                "resolved": m.resolved,
                "offset": m.offset,
                "size": m.size,
                "align": m.align,
                "since": m.since,
                "deprecated": m.deprecated,
            })
        })
        .collect();
    json!({ "struct": layout.name, "group": layout.group, "members": members })
}

pub(super) fn from_json(value: &Value, path: &Path) -> Result<StructLayout, String> {
    let bad = |what: &str| format!("snapshot {}: {what}", path.display());
    let text = |v: &Value, key: &str| -> Result<String, String> {
        v.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("`{key}` is not a string")))
    };
    let number = |v: &Value, key: &str| -> Result<u64, String> {
        v.get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| bad(&format!("`{key}` is not a number")))
    };
    let members = value
        .get("members")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`members` is not an array"))?
        .iter()
        .map(|m| {
            Ok(MemberLayout {
                name: text(m, "name")?,
                ty: normalize_type(&text(m, "type")?),
                resolved: text(m, "resolved")?,
                offset: number(m, "offset")?,
                size: number(m, "size")?,
                align: number(m, "align")?,
                since: number(m, "since")?,
                deprecated: match m.get("deprecated") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(number(m, "deprecated")?),
                },
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(StructLayout {
        group: text(value, "group")?,
        name: text(value, "struct")?,
        members,
    })
}

/// Every snapshot below `dir`.
pub(super) fn read_snapshots(dir: &Path) -> Result<Vec<StructLayout>, String> {
    let mut snapshots = Vec::new();
    if !dir.is_dir() {
        return Ok(snapshots);
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        let path = entry.path();
        if path.extension().is_some_and(|ext| ext == "json") {
            let text = fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| format!("snapshot {} is not JSON: {e}", path.display()))?;
            let layout = from_json(&value, path)?;
            if snapshot_path(dir, &layout) != path {
                return Err(format!(
                    "snapshot {} holds `{}` of group `{}`: it belongs in {}",
                    path.display(),
                    layout.name,
                    layout.group,
                    snapshot_path(dir, &layout).display()
                ));
            }
            snapshots.push(layout);
        }
    }
    Ok(snapshots)
}

/// Writes one snapshot per declaration and removes the snapshots of structs no longer declared.
pub(super) fn write_snapshots(
    dir: &Path,
    old: &[StructLayout],
    declared: &[StructLayout],
) -> Result<(), String> {
    for layout in declared {
        let path = snapshot_path(dir, layout);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let mut text = serde_json::to_string_pretty(&to_json(layout))
            .map_err(|e| format!("cannot serialize {}: {e}", path.display()))?;
        text.push('\n');
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    for gone in old
        .iter()
        .filter(|o| !declared.iter().any(|d| d.key() == o.key()))
    {
        let path = snapshot_path(dir, gone);
        fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        if let Some(parent) = path.parent() {
            // Only succeeds if the group is now empty.
            let _ = fs::remove_dir(parent);
        }
    }
    Ok(())
}
