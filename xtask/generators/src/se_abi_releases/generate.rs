//! The code `cargo xtask codegen` writes for se-abi from the release facts ([`generate`]):
//! `src/generated/tensorflow.rs`, its `versioned_struct!` declarations, each release's struct
//! sizes, and (from `release_tables`) the libraries, load checks and exports of the
//! installable releases.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use super::FACTS;
use super::history::{FactStruct, histories, read_layouts};

/// se-abi's words for the structs and members: `(struct, member)` to `(kind, doc)`.
/// `(struct, member)` to `(kind, doc)`; the member is empty for the struct's own doc.
type MemberDocs = BTreeMap<(String, String), (String, String)>;

fn read_member_docs(root: &Path) -> Result<MemberDocs, String> {
    let path = root.join(FACTS).join("members.tsv");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut docs = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [st, member, kind, doc] = fields[..] else {
            return Err(format!(
                "{}:{}: expected 4 tab-separated fields",
                path.display(),
                number + 1
            ));
        };
        docs.insert(
            (st.to_string(), member.to_string()),
            (kind.to_string(), doc.to_string()),
        );
    }
    Ok(docs)
}

/// A Rust identifier for a C member name (`type` is a keyword).
fn ident(name: &str) -> String {
    match name {
        "type" | "fn" | "struct" | "enum" | "impl" | "move" | "ref" | "match" => {
            format!("r#{name}")
        }
        other => other.to_string(),
    }
}

/// `2.9.3` as `2.9`.
fn minor(release: &str) -> &str {
    match release.match_indices('.').nth(1) {
        Some((i, _)) => &release[..i],
        None => release,
    }
}

/// The releases `first ..= last` in words.
fn span(first: &str, last: &str) -> String {
    if first == last {
        format!("TF {}", minor(first))
    } else {
        format!("TF {} to {}", minor(first), minor(last))
    }
}

/// The generator `cargo xtask codegen` runs for se-abi: `src/generated/tensorflow.rs`, every
/// StreamExecutor C API struct declared with `versioned_struct!` from the release facts, and
/// each release's struct sizes.
pub fn generate(root: &Path) -> Result<(&'static str, crate::generated::Files), String> {
    let layouts = read_layouts(root)?;
    let docs = read_member_docs(root)?;
    let histories = histories(&layouts)?;
    let first = &layouts[0].release;
    let last = &layouts[layouts.len() - 1].release;
    let mut rs = String::new();
    let _ = writeln!(
        rs,
        "{}\n// TensorFlow's StreamExecutor C API structs, from the layouts of releases {first} to \
         {last}\n// (`{FACTS}/`, made by `cargo xtask se-abi-releases` from the real wheels) and \
         se-abi's\n// words for them (`{FACTS}/members.tsv`).\n\n\
         #[allow(unused_imports)]\nuse core::ffi::{{c_char, c_int, c_uint, c_void}};\n\n\
         // TensorFlow's typedefs (`TF_Bool`, `SP_Stream`, ...), declared by hand beside this \
         module.\n#[allow(unused_imports)]\nuse crate::tensorflow::*;\nuse crate::versioned_struct;\n",
        crate::generated::facts_header(FACTS, "se-abi-releases")
    );
    let doc_of = |st: &str, member: &str| -> Result<&(String, String), String> {
        docs.get(&(st.to_string(), member.to_string()))
            .ok_or_else(|| {
                format!("{FACTS}/members.tsv has no line for `{st}` member `{member}`: add one")
            })
    };
    let mut legacy = String::new();
    for history in &histories {
        let era = history.eras.last().expect("never empty");
        let (doc_kind, struct_doc) = doc_of(&history.name, "")?;
        let _ = doc_kind;
        let sizes: Vec<String> = era
            .iter()
            .map(|(a, b, l)| format!("{} in {}", l.struct_size.unwrap_or(0), span(a, b)))
            .collect();
        let mut doc = vec![struct_doc.clone(), String::new()];
        doc.push(format!("`struct_size` by release: {}.", sizes.join("; ")));
        let incompatible: Vec<u64> = history.eras[..history.eras.len() - 1]
            .iter()
            .flat_map(|e| e.iter().filter_map(|(_, _, l)| l.struct_size))
            .collect();
        for (release, what) in &history.breaks {
            doc.push(String::new());
            doc.push(format!(
                "**TensorFlow broke its append-only rule here in {}**: it {what}. A struct of an \
                 earlier layout (`struct_size` {}) is refused as incompatible; \
                 [`{}`]({}::{}) declares it.",
                minor(release),
                incompatible
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                history.name,
                legacy_module(
                    &history.eras[0][0].0,
                    &history.eras[0].last().expect("never empty").1
                ),
                history.name,
            ));
        }
        rs.push_str(&declaration(
            &history.name,
            &doc,
            era,
            &incompatible,
            &docs,
        )?);
        for old_era in &history.eras[..history.eras.len() - 1] {
            let (a, b) = (&old_era[0].0, &old_era.last().expect("never empty").1);
            let module = legacy_module(a, b);
            let mut doc = vec![
                format!(
                    "`{}` as {} laid it out, before TensorFlow changed it in a way that is not an \
                     append (see [`super::{}`]).",
                    history.name,
                    span(a, b),
                    history.name
                ),
                String::new(),
            ];
            doc.push(format!(
                "`struct_size` by release: {}.",
                old_era
                    .iter()
                    .map(|(a, b, l)| format!("{} in {}", l.struct_size.unwrap_or(0), span(a, b)))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
            let _ = writeln!(
                legacy,
                "/// Structs as the releases {} laid them out, where a later release changed them in a \
                 way that is not an append.\npub mod {module} {{\n    use super::*;\n",
                span(a, b)
            );
            for line in declaration(&history.name, &doc, old_era, &[], &docs)?.lines() {
                if line.is_empty() {
                    legacy.push('\n');
                } else {
                    let _ = writeln!(legacy, "    {line}");
                }
            }
            legacy.push_str("}\n\n");
        }
    }
    rs.push_str(&legacy);

    // Each release's sizes, for hosts emulating a release (`se-abi plugin-check --run`).
    rs.push_str(
        "/// The `*_STRUCT_SIZE` of every struct in every release, oldest release first: what that\n\
         /// release's TensorFlow sets in the structs it allocates for a plugin.\n\
         pub const RELEASE_STRUCT_SIZES: &[(&str, &[(&str, usize)])] = &[\n",
    );
    for layout in &layouts {
        let sizes: Vec<String> = layout
            .structs
            .iter()
            .filter_map(|s| Some(format!("(\"{}\", {})", s.name, s.struct_size?)))
            .collect();
        let _ = writeln!(
            rs,
            "    (\n        \"{}\",\n        &[{}],\n    ),",
            layout.release,
            sizes.join(", ")
        );
    }
    rs.push_str("];\n\n");
    rs.push_str("/// TensorFlow's breaks of the append-only rule in these releases: `(struct, release, what it did)`.\n");
    rs.push_str("pub const APPEND_ONLY_BREAKS: &[(&str, &str, &str)] = &[\n");
    for history in &histories {
        for (release, what) in &history.breaks {
            let _ = writeln!(rs, "    ({:?}, {:?}, {:?}),", history.name, release, what);
        }
    }
    rs.push_str("];\n");

    let (tables, exports) = super::release_tables::release_tables(root)?;
    rs.push_str(&tables);

    let mut files = crate::generated::Files::new();
    files.insert("tensorflow.rs".to_string(), rs.into_bytes());
    files.insert("tensorflow_exports.bin".to_string(), exports);
    // XLA's PJRT C API, from the headers TensorFlow's wheels ship (`cargo xtask pjrt-releases`).
    files.insert(
        "pjrt.rs".to_string(),
        crate::pjrt_releases::generate(root)?.into_bytes(),
    );
    Ok(("tensorflow", files))
}

fn legacy_module(first: &str, last: &str) -> String {
    format!(
        "tf_{}_to_{}",
        minor(first).replace('.', "_"),
        minor(last).replace('.', "_")
    )
}

/// One `versioned_struct!` of the versions of one era.
fn declaration(
    name: &str,
    doc: &[String],
    era: &[(String, String, FactStruct)],
    incompatible: &[u64],
    docs: &MemberDocs,
) -> Result<String, String> {
    let newest = &era.last().expect("never empty").2;
    let size_macro = newest
        .size_macro
        .clone()
        .ok_or_else(|| format!("{name} has no *_STRUCT_SIZE macro"))?;
    let header = match newest.members.get(1).map(|m| m.name.as_str()) {
        Some("ext") => match docs
            .get(&(name.to_string(), "ext".to_string()))
            .map(|d| d.0.as_str())
        {
            Some("free") => "ext",
            Some("reserved") => "next",
            _ => {
                return Err(format!(
                    "members.tsv: `{name}` `ext` must be `free` or `reserved`"
                ));
            }
        },
        _ => "none",
    };
    let sizes: Vec<String> = era
        .iter()
        .map(|(_, _, l)| l.struct_size.unwrap_or(0).to_string())
        .collect();
    let mut out = String::from("versioned_struct! {\n");
    for line in doc {
        if line.is_empty() {
            out.push_str("    ///\n");
        } else {
            let _ = writeln!(out, "    /// {line}");
        }
    }
    let mut abi = format!("size = {size_macro}, sizes = [{}]", sizes.join(", "));
    if header != "next" {
        let _ = write!(abi, ", header = {header}");
    }
    if !incompatible.is_empty() {
        let list: Vec<String> = incompatible.iter().map(u64::to_string).collect();
        let _ = write!(abi, ", incompatible = [{}]", list.join(", "));
    }
    let _ = writeln!(out, "    #[abi({abi})]\n    pub struct {name} {{");
    let skip = if header == "none" { 1 } else { 2 };
    for member in &newest.members[skip..] {
        let since = era
            .iter()
            .position(|(_, _, l)| l.members.iter().any(|m| m.name == member.name))
            .expect("present in the newest")
            + 1;
        let (kind, text) = docs
            .get(&(name.to_string(), member.name.clone()))
            .ok_or_else(|| {
                format!(
                    "{FACTS}/members.tsv has no line for `{name}` member `{}`: add one",
                    member.name
                )
            })?;
        if kind != "value" && kind != "nonzero" {
            return Err(format!(
                "members.tsv: `{name}` `{}`: kind must be value or nonzero",
                member.name
            ));
        }
        let _ = writeln!(out, "        /// {text}");
        if since > 1 {
            let (first, _, _) = &era[since - 1];
            let _ = writeln!(
                out,
                "        ///\n        /// Since TF {} (version {since}).",
                minor(first)
            );
        }
        let _ = writeln!(
            out,
            "        {}: {} =\n            {kind}(since {since}, at {}..{}),",
            ident(&member.name),
            member.declared,
            member.offset,
            member.offset + member.size
        );
    }
    out.push_str("    }\n}\n\n");
    Ok(out)
}
