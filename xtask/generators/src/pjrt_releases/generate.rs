//! `src/generated/pjrt.rs` from the header facts: every `struct_size`-versioned PJRT struct
//! declared with `versioned_struct!`, each member with the API version whose header first
//! reaches it, each struct's `*_STRUCT_SIZE` per API version, the `PJRT_Api` slots, the
//! extension types, and where XLA broke the append-only rule.

use std::fmt::Write as _;
use std::path::Path;

use super::{FACTS, HEADERS};

#[derive(Clone, Debug, PartialEq, Eq)]
struct Member {
    name: String,
    offset: u64,
    size: u64,
    c: String,
    rust: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Struct {
    name: String,
    struct_size: Option<u64>,
    members: Vec<Member>,
}

/// One API version's header.
struct Point {
    minor: u64,
    major: u64,
    releases: Vec<String>,
    /// Changes between two headers that both say this version.
    unbumped: Vec<String>,
    structs: Vec<Struct>,
    extension_types: Vec<(String, u64)>,
}

fn read_points(root: &Path) -> Result<Vec<Point>, String> {
    let mut points: Vec<Point> = Vec::new();
    for (release, _) in HEADERS {
        let path = root.join(FACTS).join(format!("header-{release}.json.gz"));
        let v = crate::se_abi_releases::read_gz(&path)?;
        let bad = |what: &str| format!("{}: {what}", path.display());
        let major = v["pjrt_api_version"][0]
            .as_u64()
            .ok_or_else(|| bad("no version"))?;
        let minor = v["pjrt_api_version"][1]
            .as_u64()
            .ok_or_else(|| bad("no version"))?;
        let mut structs = Vec::new();
        for s in v["structs"].as_array().ok_or_else(|| bad("no structs"))? {
            let mut members = Vec::new();
            for m in s["members"].as_array().ok_or_else(|| bad("no members"))? {
                let text = |k: &str| m[k].as_str().map(str::to_string).ok_or_else(|| bad(k));
                members.push(Member {
                    name: text("name")?,
                    offset: m["offset"].as_u64().ok_or_else(|| bad("offset"))?,
                    size: m["size"].as_u64().ok_or_else(|| bad("size"))?,
                    c: text("c")?,
                    rust: text("rust")?,
                });
            }
            structs.push(Struct {
                name: s["name"].as_str().ok_or_else(|| bad("name"))?.to_string(),
                struct_size: s["struct_size"].as_u64(),
                members,
            });
        }
        let extension_types = v["extension_types"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| Some((e[0].as_str()?.to_string(), e[1].as_u64()?)))
                    .collect()
            })
            .unwrap_or_default();
        match points.last_mut() {
            Some(p) if p.minor == minor => {
                // Two headers with one version: what the later one changed without a bump.
                for s in &structs {
                    match p.structs.iter().find(|o| o.name == s.name) {
                        None => p.unbumped.push(format!(
                            "TF {release}'s header adds `{}` without a new minor",
                            s.name
                        )),
                        Some(o) if o != s => p.unbumped.push(format!(
                            "TF {release}'s header changes `{}` without a new minor",
                            s.name
                        )),
                        Some(_) => {}
                    }
                }
                p.structs = structs;
                p.releases.push(release.to_string());
            }
            _ => points.push(Point {
                minor,
                major,
                releases: vec![release.to_string()],
                unbumped: Vec::new(),
                structs,
                extension_types,
            }),
        }
    }
    Ok(points)
}

/// A struct's versions (each a distinct `*_STRUCT_SIZE`, first minor, last minor, layout) and
/// the changes that were not appends (`minor`, words) and those that kept every byte
/// (renames, re-spelled types).
struct History {
    versions: Vec<(u64, u64, Struct)>,
    breaks: Vec<(u64, String)>,
    renames: Vec<(u64, String)>,
    /// The first version of the newest era (after the last break).
    era_start: usize,
}

/// The members a `struct_size` reaches.
fn reached(s: &Struct) -> Vec<&Member> {
    let size = s.struct_size.unwrap_or(0);
    s.members
        .iter()
        .filter(|m| m.offset + m.size <= size)
        .collect()
}

fn history(name: &str, points: &[Point]) -> History {
    let mut h = History {
        versions: Vec::new(),
        breaks: Vec::new(),
        renames: Vec::new(),
        era_start: 0,
    };
    for p in points {
        let Some(this) = p.structs.iter().find(|s| s.name == name) else {
            continue;
        };
        match h.versions.last_mut() {
            None => h.versions.push((p.minor, p.minor, this.clone())),
            Some((_, _, prev)) => {
                let (old, new) = (reached(prev), reached(this));
                let mut what = Vec::new();
                let moved: Vec<&&Member> = old
                    .iter()
                    .filter(|o| new.iter().any(|m| m.name == o.name && m.offset != o.offset))
                    .collect();
                let old_end = old.last().map_or(0, |m| m.offset + m.size);
                let inserted: Vec<String> = new
                    .iter()
                    .filter(|m| m.offset < old_end && !old.iter().any(|o| o.name == m.name))
                    .map(|m| format!("`{}`", m.name))
                    .collect();
                if !moved.is_empty() {
                    what.push(format!(
                        "inserted {} before existing members, moving {} of them ({})",
                        if inserted.is_empty() {
                            "members".to_string()
                        } else {
                            inserted.join(", ")
                        },
                        moved.len(),
                        moved
                            .iter()
                            .take(3)
                            .map(|o| format!("`{}`", o.name))
                            .chain((moved.len() > 3).then(|| "...".to_string()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                for o in &old {
                    if moved.iter().any(|m| m.name == o.name) {
                        continue;
                    }
                    match new.iter().find(|m| m.offset == o.offset) {
                        None => what.push(format!("removed `{}` (offset {})", o.name, o.offset)),
                        Some(m) if m.size != o.size => what.push(format!(
                            "resized `{}` from {} to {} bytes",
                            o.name, o.size, m.size
                        )),
                        Some(m) if (m.name != o.name || m.rust != o.rust) && moved.is_empty() => {
                            h.renames.push((
                                p.minor,
                                format!(
                                    "`{} {}` became `{} {}` (offset {}, same size)",
                                    o.c, o.name, m.c, m.name, o.offset
                                ),
                            ))
                        }
                        Some(_) => {}
                    }
                }
                if this.struct_size < prev.struct_size {
                    what.push(format!(
                        "shrank its struct_size from {} to {}",
                        prev.struct_size.unwrap_or(0),
                        this.struct_size.unwrap_or(0)
                    ));
                }
                let broke = !what.is_empty();
                if broke {
                    h.breaks.push((p.minor, what.join(", ")));
                }
                let same_size = prev.struct_size == this.struct_size;
                if same_size {
                    h.versions.last_mut().expect("present").1 = p.minor;
                    h.versions.last_mut().expect("present").2 = this.clone();
                } else {
                    h.versions.push((p.minor, p.minor, this.clone()));
                }
                if broke {
                    h.era_start = h.versions.len() - 1;
                }
            }
        }
    }
    h
}

fn ident(name: &str) -> String {
    match name {
        "type" | "fn" | "struct" | "enum" | "impl" | "move" | "ref" | "match" | "priv" => {
            format!("r#{name}")
        }
        other => other.to_string(),
    }
}

fn span(first: u64, last: u64) -> String {
    if first == last {
        format!("0.{first}")
    } else {
        format!("0.{first} to 0.{last}")
    }
}

/// The generator `cargo xtask codegen` runs for se-abi's `pjrt` module.
pub fn generate(root: &Path) -> Result<String, String> {
    let points = read_points(root)?;
    let newest = points.last().ok_or("no PJRT header facts")?;
    let oldest = &points[0];
    let mut rs = String::new();
    let _ = writeln!(
        rs,
        "{}\n// XLA's PJRT C API structs (`xla/pjrt/c/pjrt_c_api.h`), from the headers TensorFlow's wheels\n\
         // ship, PJRT {}.{} to {}.{} (`{FACTS}/`, made by `cargo xtask pjrt-releases`).\n\n\
         #[allow(unused_imports)]\nuse core::ffi::{{c_char, c_void}};\n\n\
         use crate::pjrt::{{Blob, JaxRelease, Measured, VersionRule}};\nuse crate::versioned_struct;\n",
        crate::generated::facts_header(FACTS, "pjrt-releases"),
        oldest.major,
        oldest.minor,
        newest.major,
        newest.minor
    );
    let mut sizes_table = String::new();
    let mut breaks_table = String::new();
    let mut renames_table = String::new();
    let mut skipped = Vec::new();
    for st in &newest.structs {
        let Some(_) = st.struct_size else {
            skipped.push(st.name.clone());
            continue;
        };
        if st.members.first().map(|m| m.name.as_str()) != Some("struct_size") {
            skipped.push(st.name.clone());
            continue;
        }
        let h = history(&st.name, &points);
        // Declared from the newest layout; each member since the first version reaching it.
        let newest_version = &h.versions.last().expect("present").2;
        let declared: Vec<&Member> = reached(newest_version).into_iter().skip(1).collect();
        let beyond: Vec<&Member> = newest_version
            .members
            .iter()
            .filter(|m| m.offset + m.size > newest_version.struct_size.unwrap_or(0))
            .collect();
        let mut doc = vec![format!(
            "`{}`, as `pjrt_c_api.h` declares it (PJRT {}.{}).",
            st.name, newest.major, newest.minor
        )];
        doc.push(String::new());
        let by_version: Vec<String> = h
            .versions
            .iter()
            .map(|(a, b, s)| format!("{} in {}", s.struct_size.unwrap_or(0), span(*a, *b)))
            .collect();
        doc.push(format!(
            "`{}_STRUCT_SIZE` by PJRT API version: {}.",
            st.name,
            by_version.join("; ")
        ));
        for (minor, what) in &h.breaks {
            doc.push(String::new());
            doc.push(format!(
                "**XLA broke the append-only rule here in 0.{minor}**: it {what}."
            ));
            let _ = writeln!(breaks_table, "    ({:?}, {minor}, {:?}),", st.name, what);
        }
        for (minor, what) in &h.renames {
            let _ = writeln!(renames_table, "    ({:?}, {minor}, {:?}),", st.name, what);
        }
        for m in &beyond {
            doc.push(String::new());
            doc.push(format!(
                "`{}` is declared after the member that ends `{}_STRUCT_SIZE`, so no \
                 `struct_size` reaches it and it is not declared here.",
                m.name, st.name
            ));
        }
        // Declared: the versions since the last break; the sizes before it are refused.
        let era = &h.versions[h.era_start..];
        let sizes: Vec<String> = era
            .iter()
            .map(|(_, _, s)| s.struct_size.unwrap_or(0).to_string())
            .collect();
        let incompatible: Vec<String> = h.versions[..h.era_start]
            .iter()
            .map(|(_, _, s)| s.struct_size.unwrap_or(0).to_string())
            .filter(|size| !sizes.contains(size))
            .collect();
        let _ = writeln!(
            sizes_table,
            "    ({:?}, &[{}]),",
            st.name,
            h.versions
                .iter()
                .map(|(a, _, s)| format!("({a}, {})", s.struct_size.unwrap_or(0)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        rs.push_str("versioned_struct! {\n");
        for line in &doc {
            if line.is_empty() {
                rs.push_str("    ///\n");
            } else {
                let _ = writeln!(rs, "    /// {line}");
            }
        }
        let _ = writeln!(
            rs,
            "    #[abi(size = {}_STRUCT_SIZE, sizes = [{}], header = none{})]\n    pub struct {} {{",
            st.name,
            sizes.join(", "),
            if incompatible.is_empty() {
                String::new()
            } else {
                format!(", incompatible = [{}]", incompatible.join(", "))
            },
            st.name
        );
        for m in declared {
            let version = era
                .iter()
                .position(|(_, _, s)| s.struct_size.unwrap_or(0) >= m.offset + m.size)
                .expect("the newest reaches it");
            let first = era[version].0;
            let kind = if m.rust.starts_with('*') || m.rust.starts_with("Option<") {
                "nonzero"
            } else {
                "value"
            };
            let _ = writeln!(rs, "        /// C: `{} {}`.", m.c, m.name);
            let _ = writeln!(
                rs,
                "        ///\n        /// Since PJRT 0.{first}{} (version {}).",
                if version == 0 && h.era_start == 0 && first == oldest.minor {
                    " or earlier"
                } else {
                    ""
                },
                version + 1
            );
            let _ = writeln!(
                rs,
                "        {}: {} =\n            {kind}(since {}, at {}..{}),",
                ident(&m.name),
                m.rust,
                version + 1,
                m.offset,
                m.offset + m.size
            );
        }
        rs.push_str("    }\n}\n\n");
    }
    let _ = writeln!(
        rs,
        "/// The PJRT API versions read, oldest first: `(major, minor, TensorFlow releases whose \
         wheel ships that header)`.\npub const HEADERS: &[(u32, u32, &[&str])] = &["
    );
    for p in &points {
        let _ = writeln!(
            rs,
            "    ({}, {}, &[{}]),",
            p.major,
            p.minor,
            p.releases
                .iter()
                .map(|r| format!("{r:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    rs.push_str("];\n\n");
    let _ = writeln!(
        rs,
        "/// Each struct's `*_STRUCT_SIZE`, from the first API minor that has it: `(struct, \
         [(minor, size)])`, the size holding until the next entry.\npub const STRUCT_SIZES: \
         &[(&str, &[(u32, usize)])] = &[\n{sizes_table}];\n"
    );
    let _ = writeln!(
        rs,
        "/// Where XLA broke the append-only rule: `(struct, minor, what it did)`.\npub const \
         APPEND_ONLY_BREAKS: &[(&str, u32, &str)] = &[\n{breaks_table}];\n"
    );
    rs.push_str(
        "/// Changes between two headers that report the same API version: `(minor, what)`.\n\
         pub const UNBUMPED_CHANGES: &[(u32, &str)] = &[\n",
    );
    for p in &points {
        for what in &p.unbumped {
            let _ = writeln!(rs, "    ({}, {what:?}),", p.minor);
        }
    }
    rs.push_str("];\n\n");
    let _ = writeln!(
        rs,
        "/// Renames and re-spelled types that kept every byte (the header allows them in a \
         minor version): `(struct, minor, what changed)`.\npub const RENAMES: &[(&str, u32, \
         &str)] = &[\n{renames_table}];\n"
    );
    // The PJRT_Api function slots, with the minor that first has each.
    let api_history = history("PJRT_Api", &points);
    rs.push_str(
        "/// The function slots of `PJRT_Api`, in order: `(name, offset, first API minor whose \
         header has it)`.\npub const API_SLOTS: &[(&str, usize, u32)] = &[\n",
    );
    let newest_api = newest
        .structs
        .iter()
        .find(|s| s.name == "PJRT_Api")
        .ok_or("no PJRT_Api")?;
    for m in &newest_api.members {
        if !m.rust.starts_with("Option<") {
            continue;
        }
        let first = api_history
            .versions
            .iter()
            .find(|(_, _, s)| s.struct_size.unwrap_or(0) >= m.offset + m.size)
            .map_or(newest.minor, |v| v.0);
        let _ = writeln!(rs, "    ({:?}, {}, {first}),", m.name, m.offset);
    }
    rs.push_str("];\n\n");
    rs.push_str(
        "/// `PJRT_Extension_Type`'s values in the newest header: `(enumerator, value)`.\npub const \
         EXTENSION_TYPES: &[(&str, u32)] = &[\n",
    );
    for (name, value) in &newest.extension_types {
        let _ = writeln!(rs, "    ({name:?}, {value}),");
    }
    rs.push_str("];\n\n");
    let _ = writeln!(
        rs,
        "/// Structs of the newest header not declared above (no `struct_size` first, or no \
         `*_STRUCT_SIZE`).\npub const NOT_VERSIONED: &[&str] = &[{}];",
        skipped
            .iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    rs.push('\n');
    rs.push_str(&super::jax::table(root, &super::jax::releases(root)?)?);
    Ok(rs)
}
