//! The `allocation` section of a runtime's facts (custom and Flex ops at `allocate_tensors`):
//! merged into the committed facts by `--part allocation`, and turned into each runtime's
//! entry of the generated table.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::{Runtime, object, read_facts};

/// The committed facts of `runtime` with their `allocation` section replaced by the one in
/// `probed` (what `allocation.py` wrote), as `probe.py` writes them: sorted keys, one space of
/// indent per level, a final newline.
pub(super) fn merge_allocation(
    root: &Path,
    runtime: &Runtime,
    probed: &[u8],
) -> Result<Vec<u8>, String> {
    let mut facts = read_facts(root, runtime)?;
    let probed: Value =
        serde_json::from_slice(probed).map_err(|e| format!("allocation probe: {e}"))?;
    let section = probed
        .get("allocation")
        .cloned()
        .ok_or("the allocation probe wrote no `allocation`")?;
    facts
        .as_object_mut()
        .ok_or("the facts are not an object")?
        .insert("allocation".to_owned(), section);
    let mut text = python_json(&facts, 0);
    text.push('\n');
    Ok(text.into_bytes())
}

/// `value` as Python's `json.dump(indent=1, sort_keys=True)` writes it (serde_json's maps are
/// sorted), so that merging a section writes the bytes a full probe would.
fn python_json(value: &Value, depth: usize) -> String {
    let pad = |d: usize| " ".repeat(d);
    match value {
        Value::Array(items) if !items.is_empty() => {
            let inner: Vec<String> = items
                .iter()
                .map(|v| format!("{}{}", pad(depth + 1), python_json(v, depth + 1)))
                .collect();
            format!("[\n{}\n{}]", inner.join(",\n"), pad(depth))
        }
        Value::Object(map) if !map.is_empty() => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| {
                    format!(
                        "{}{}: {}",
                        pad(depth + 1),
                        python_string(k),
                        python_json(v, depth + 1)
                    )
                })
                .collect();
            format!("{{\n{}\n{}}}", inner.join(",\n"), pad(depth))
        }
        Value::String(s) => python_string(s),
        other => other.to_string(),
    }
}

/// A string as Python's `json` writes it (`ensure_ascii`: every non-ASCII character escaped).
fn python_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `allocation` section's fields of one runtime's entry.
pub(super) fn allocation_entry(rs: &mut String, allocation: &Value) -> Result<(), String> {
    let missing = "no `allocation` facts: run `cargo xtask tflite-runtimes --part allocation`";
    let custom_ops = object(&allocation["custom_ops"], "allocation.custom_ops")
        .map_err(|_| missing.to_owned())?;
    rs.push_str("        custom_ops: &[");
    for (name, versions) in custom_ops {
        let mut mask = 0u64;
        for version in versions.as_array().ok_or("custom op versions")? {
            let version = version
                .as_u64()
                .filter(|&v| v < 64)
                .ok_or(format!("custom op {name}: version {version}"))?;
            mask |= 1 << version;
        }
        let _ = write!(rs, "({name:?}, {mask:#x}), ");
    }
    rs.push_str("],\n        delegate_examines: &[");
    for name in allocation["delegate_examines"]
        .as_array()
        .ok_or("allocation.delegate_examines")?
    {
        let _ = write!(rs, "{:?}, ", name.as_str().ok_or("a name")?);
    }
    rs.push_str("],\n");
    let flex_applied = allocation["flex_applied"]
        .as_bool()
        .ok_or("allocation.flex_applied")?;
    let messages = object(&allocation["messages"], "allocation.messages")?;
    let unresolved = messages
        .get("unresolved_custom")
        .and_then(Value::as_str)
        .ok_or("allocation.messages.unresolved_custom")?;
    let flex = messages.get("flex_unapplied").and_then(Value::as_str);
    if flex.is_some() == flex_applied {
        return Err(
            "allocation: flex_unapplied must be given exactly when Flex is not applied".into(),
        );
    }
    let _ = writeln!(
        rs,
        "        flex_applied: {flex_applied},\n        unresolved_custom: {unresolved:?},\n        \
         flex_unapplied: {:?},",
        flex.unwrap_or_default()
    );
    Ok(())
}
