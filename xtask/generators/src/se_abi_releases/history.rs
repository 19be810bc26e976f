//! The committed release facts read back ([`read_layouts`]) and each struct's history over the
//! releases: its versions, its eras, and where TensorFlow broke the append-only rule.

use std::path::Path;

use serde_json::Value;

use super::{FACTS, RELEASES, read_gz};

/// One member of one release's struct, as the layout dump recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactMember {
    pub name: String,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// The type as se-abi's Rust declaration spells it.
    pub declared: String,
    /// The type resolved through every typedef ([`resolved`](super::c_header::resolved)).
    pub resolved: String,
}

/// One struct of one release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactStruct {
    pub name: String,
    pub sizeof: u64,
    pub size_macro: Option<String>,
    pub struct_size: Option<u64>,
    pub members: Vec<FactMember>,
}

/// One release's layout facts.
#[derive(Clone, Debug)]
pub struct ReleaseLayout {
    pub release: String,
    pub structs: Vec<FactStruct>,
}

/// Every release's committed layout facts, oldest first.
pub fn read_layouts(root: &Path) -> Result<Vec<ReleaseLayout>, String> {
    RELEASES
        .iter()
        .map(|(release, _)| {
            let path = root.join(FACTS).join(release).join("layout.json.gz");
            let value = read_gz(&path)?;
            let bad = |what: &str| format!("{}: {what}", path.display());
            let text = |v: &Value, key: &str| -> Result<String, String> {
                v[key]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| bad(&format!("`{key}` is not a string")))
            };
            let number = |v: &Value, key: &str| -> Result<u64, String> {
                v[key]
                    .as_u64()
                    .ok_or_else(|| bad(&format!("`{key}` is not a number")))
            };
            let mut structs = Vec::new();
            for st in value["structs"]
                .as_array()
                .ok_or_else(|| bad("no structs"))?
            {
                let mut members = Vec::new();
                for m in st["members"].as_array().ok_or_else(|| bad("no members"))? {
                    members.push(FactMember {
                        name: text(m, "name")?,
                        offset: number(m, "offset")?,
                        size: number(m, "size")?,
                        align: number(m, "align")?,
                        declared: text(m, "declared")?,
                        resolved: text(m, "resolved")?,
                    });
                }
                structs.push(FactStruct {
                    name: text(st, "name")?,
                    sizeof: number(st, "sizeof")?,
                    size_macro: st["size_macro"].as_str().map(str::to_string),
                    struct_size: st["struct_size"].as_u64(),
                    members,
                });
            }
            if value["release"] != *release {
                return Err(bad(&format!("not the facts of {release}")));
            }
            Ok(ReleaseLayout {
                release: release.to_string(),
                structs,
            })
        })
        .collect()
}

/// How one struct evolved over the releases: its layouts, grouped into versions (each a prefix
/// of the next, as the append-only rule wants) and eras (a new era starts where a release's
/// layout does not extend the one before: TensorFlow broke its own rule there).
#[derive(Debug)]
pub struct History {
    pub name: String,
    /// Eras, oldest first; each a list of versions, each `(first release, last release,
    /// layout)`.
    pub eras: Vec<Vec<(String, String, FactStruct)>>,
    /// TensorFlow's breaks of the append-only rule: `(release, what changed)`.
    pub breaks: Vec<(String, String)>,
}

/// Whether `old`'s members are exactly the first members of `new` (same name, offset, size
/// and resolved type).
fn extends(old: &FactStruct, new: &FactStruct) -> bool {
    old.members.len() <= new.members.len()
        && old.members.iter().zip(&new.members).all(|(a, b)| {
            (a.name.as_str(), a.offset, a.size, a.resolved.as_str())
                == (b.name.as_str(), b.offset, b.size, b.resolved.as_str())
        })
}

/// What changed from `old` to `new`, in words, for a layout that does not extend the old one.
fn describe_break(old: &FactStruct, new: &FactStruct) -> String {
    let mut parts = Vec::new();
    // New members placed before the last member both layouts share: inserted, not appended.
    let last_shared = new
        .members
        .iter()
        .rposition(|m| old.members.iter().any(|o| o.name == m.name))
        .unwrap_or(0);
    let inserted: Vec<&str> = new.members[..last_shared]
        .iter()
        .filter(|m| !old.members.iter().any(|o| o.name == m.name))
        .map(|m| m.name.as_str())
        .collect();
    if !inserted.is_empty() {
        parts.push(format!("inserted `{}`", inserted.join("`, `")));
    }
    for o in &old.members {
        match new.members.iter().find(|m| m.name == o.name) {
            None => parts.push(format!("removed `{}`", o.name)),
            Some(m) if m.offset != o.offset => parts.push(format!(
                "moved `{}` from offset {} to {}",
                o.name, o.offset, m.offset
            )),
            Some(m) if m.resolved != o.resolved || m.size != o.size => parts.push(format!(
                "re-typed `{}` from `{}` to `{}`",
                o.name, o.resolved, m.resolved
            )),
            Some(_) => {}
        }
    }
    parts.join(", ")
}

/// The history of every struct of the newest release, in its order.
pub fn histories(layouts: &[ReleaseLayout]) -> Result<Vec<History>, String> {
    let newest = layouts.last().ok_or("no release facts")?;
    let mut out = Vec::new();
    for st in &newest.structs {
        let mut history = History {
            name: st.name.clone(),
            eras: vec![Vec::new()],
            breaks: Vec::new(),
        };
        for layout in layouts {
            let Some(this) = layout.structs.iter().find(|s| s.name == st.name) else {
                continue;
            };
            let era = history.eras.last_mut().expect("never empty");
            match era.last_mut() {
                Some((_, last, prev)) if prev == this => *last = layout.release.clone(),
                Some((_, _, prev)) if extends(prev, this) => {
                    era.push((layout.release.clone(), layout.release.clone(), this.clone()))
                }
                Some((_, _, prev)) => {
                    history
                        .breaks
                        .push((layout.release.clone(), describe_break(prev, this)));
                    history.eras.push(vec![(
                        layout.release.clone(),
                        layout.release.clone(),
                        this.clone(),
                    )]);
                }
                None => era.push((layout.release.clone(), layout.release.clone(), this.clone())),
            }
        }
        out.push(history);
    }
    Ok(out)
}
