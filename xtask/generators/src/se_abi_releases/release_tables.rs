//! The tables `se_abi::plugin` judges a plugin with, generated from the facts of the ten
//! installable releases: the libraries each loads (`<release>/symbols.json.gz`), what each
//! checks when it loads a plugin (`<release>/validation.json.gz`), and every symbol their
//! libraries export (`exports.txt.gz`), the last as a binary file of fingerprints.
//!
//! # The exports file
//!
//! Eight hundred thousand names, most of them C++, are too many for Rust source and too long to
//! ship: the crate keeps a 44-bit fingerprint of each name ([`fingerprint`], from the two hash
//! functions of the ELF format itself, which `object` provides) and, per distinct set of
//! exporters (release, library, version), the fingerprints of the names that set exports.
//! `tensorflow_exports.bin` holds, for each set in the order of `TF_EXPORTERS`, its
//! fingerprints sorted, each written as the LEB128 difference from the one before (the first
//! from 0); `TF_EXPORT_COUNTS` gives how many each set has. Codegen fails if two names of
//! different sets share a fingerprint. A name no release exports is taken for an exported one
//! only when its fingerprint equals one of theirs: about once in 20 million lookups.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::symbols::read_exports;
use super::{FACTS, RELEASES, read_gz};

/// A name's 44-bit fingerprint: its GNU hash (32 bits) and the low 12 bits of its SysV ELF hash.
/// `se_abi::plugin` computes the same (`exports.rs`).
pub(super) fn fingerprint(name: &[u8]) -> u64 {
    (u64::from(object::elf::gnu_hash(name)) << 12) | u64::from(object::elf::hash(name) & 0xfff)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(|n| format!("{n:?}")))
        .collect()
}

/// The Rust of the release tables, and the exports file.
pub(super) fn release_tables(root: &Path) -> Result<(String, Vec<u8>), String> {
    let mut releases = Vec::new();
    for (release, python) in RELEASES {
        if python.is_some() {
            continue;
        }
        let dir = root.join(FACTS).join(release);
        releases.push((
            *release,
            read_gz(&dir.join("symbols.json.gz"))?,
            read_gz(&dir.join("validation.json.gz"))?,
        ));
    }
    let mut rs = String::new();
    rs.push_str(
        "/// The releases whose wheels install on CPython 3.11, oldest first.\n\
         pub const TF_RELEASES: &[TfRelease] = &[\n",
    );
    for (release, symbols, validation) in &releases {
        let _ = writeln!(
            rs,
            "    TfRelease {{\n        release: {release:?},\n        global_c_api: {},\n        libraries: &[",
            symbols["global_c_api"].as_bool().unwrap_or(false)
        );
        for library in symbols["libraries"].as_array().into_iter().flatten() {
            let soname = match library["soname"].as_str() {
                Some(s) => format!("Some({s:?})"),
                None => "None".to_string(),
            };
            let _ = writeln!(
                rs,
                "            TfLibrary {{\n                path: {:?},\n                soname: {soname},\n                needed: &[{}],\n                version_definitions: &[{}],\n                global: {},\n            }},",
                library["path"].as_str().unwrap_or_default(),
                strings(&library["needed"]).join(", "),
                strings(&library["version_definitions"]).join(", "),
                library["global"].as_bool().unwrap_or(false),
            );
        }
        rs.push_str("        ],\n        load: LoadRules {\n");
        let check = |name: &str| -> Result<String, String> {
            let st = &validation["structs"][name];
            if st.is_null() {
                return Ok("None".to_string());
            }
            Ok(format!(
                "Some(StructCheck {{ size_macro: {:?}, members: &[{}] }})",
                st["size_macro"].as_str().ok_or("size_macro")?,
                strings(&st["members"]).join(", ")
            ))
        };
        let required = |name: &str| -> Result<String, String> {
            let text = check(name)?;
            text.strip_prefix("Some(")
                .and_then(|t| t.strip_suffix(')'))
                .map(str::to_string)
                .ok_or_else(|| format!("{release} does not check {name}"))
        };
        let _ = writeln!(
            rs,
            "            registration_params: {},\n            platform: {},\n            platform_fns: {},\n            device_fns: {},\n            stream_executor: {},\n            timer_fns: {},\n            unified_memory: &[{}],\n            check_ok: CheckOk::{},\n            register_plugin: {:?},\n            register_platform: {:?},\n        }},\n    }},",
            required("SE_PlatformRegistrationParams")?,
            required("SP_Platform")?,
            required("SP_PlatformFns")?,
            required("SP_DeviceFns")?,
            required("SP_StreamExecutor")?,
            check("SP_TimerFns")?,
            strings(&validation["unified_memory"]).join(", "),
            match validation["check_ok"].as_str() {
                Some("non-ok-status") => "NonOkStatus",
                Some("non-ok-status-newline") => "NonOkStatusNewline",
                Some("check-failed") => "CheckFailed",
                other => return Err(format!("{release}: unknown check_ok {other:?}")),
            },
            validation["register_plugin"].as_str().unwrap_or_default(),
            validation["register_platform"].as_str().unwrap_or_default(),
        );
    }
    rs.push_str("];\n");

    // The exports: each distinct set of exporters, and its names' fingerprints.
    let index_of = |release: &str, path: &str| -> Option<(usize, usize)> {
        let r = releases.iter().position(|(name, _, _)| *name == release)?;
        let l = releases[r].1["libraries"]
            .as_array()?
            .iter()
            .position(|lib| lib["path"] == path)?;
        Some((r, l))
    };
    let exports = read_exports(&root.join(FACTS))?;
    let mut groups: Vec<Vec<u64>> = vec![Vec::new(); exports.sets.len()];
    let mut owner: HashMap<u64, (&str, usize)> = HashMap::with_capacity(exports.names.len());
    for (name, set) in &exports.names {
        let print = fingerprint(name.as_bytes());
        if let Some((other, other_set)) = owner.insert(print, (name, *set))
            && other_set != *set
        {
            return Err(format!(
                "`{name}` and `{other}` share a fingerprint and are exported by different \
                 libraries: widen the fingerprint (xtask/generators/src/se_abi_releases/release_tables.rs \
                 and se-abi's src/plugin/exports.rs)"
            ));
        }
        groups[*set].push(print);
    }
    let mut blob = Vec::new();
    let _ = writeln!(
        rs,
        "\n/// Who exports the names of each set of `tensorflow_exports.bin` ({} names in all): \
         `(release, library, version)`, indices into [`TF_RELEASES`], its `libraries` and \
         [`TF_EXPORT_VERSIONS`].\n\
         #[cfg(feature = \"plugin-check\")]\n\
         pub(crate) const TF_EXPORTERS: &[&[(u8, u8, u8)]] = &[",
        exports.names.len()
    );
    let mut counts = Vec::new();
    let mut versions: Vec<&str> = vec!["-"];
    for (set, prints) in exports.sets.iter().zip(&mut groups) {
        let mut members = Vec::new();
        for (release, path, version) in set.iter() {
            let Some((r, l)) = index_of(release, path) else {
                return Err(format!(
                    "exports.txt.gz names {release} {path}, which symbols.json.gz does not list"
                ));
            };
            let v = match versions.iter().position(|known| known == version) {
                Some(v) => v,
                None => {
                    versions.push(version);
                    versions.len() - 1
                }
            };
            members.push(format!("({r}, {l}, {v})"));
        }
        let _ = writeln!(rs, "    &[{}],", members.join(", "));
        prints.sort_unstable();
        prints.dedup();
        counts.push(prints.len().to_string());
        let mut previous = 0;
        for &print in prints.iter() {
            let mut delta = print - previous;
            previous = print;
            loop {
                let byte = (delta & 0x7f) as u8;
                delta >>= 7;
                if delta == 0 {
                    blob.push(byte);
                    break;
                }
                blob.push(byte | 0x80);
            }
        }
    }
    rs.push_str("];\n\n");
    let versions: Vec<String> = versions
        .iter()
        .map(|v| match *v {
            "-" => "(None, false)".to_string(),
            v => match v.strip_prefix("@@") {
                Some(v) => format!("(Some({v:?}), false)"),
                None => format!("(Some({:?}), true)", v.trim_start_matches('@')),
            },
        })
        .collect();
    let _ = writeln!(
        rs,
        "/// The versions of [`TF_EXPORTERS`]: `(version, hidden)`, `(None, false)` for an unversioned \
         symbol.\n#[cfg(feature = \"plugin-check\")]\n\
         pub(crate) const TF_EXPORT_VERSIONS: &[(Option<&str>, bool)] = &[{}];\n",
        versions.join(", ")
    );
    let _ = writeln!(
        rs,
        "/// How many fingerprints each set of [`TF_EXPORTERS`] has in `tensorflow_exports.bin`.\n\
         #[cfg(feature = \"plugin-check\")]\n\
         pub(crate) const TF_EXPORT_COUNTS: &[u32] = &[{}];\n\n\
         /// The fingerprints of every exported name, set by set (see `xtask/generators/src/se_abi_releases/release_tables.rs`).\n\
         #[cfg(feature = \"plugin-check\")]\n\
         pub(crate) const TF_EXPORT_FINGERPRINTS: &[u8] = include_bytes!(\"tensorflow_exports.bin\");",
        counts.join(", ")
    );
    Ok((rs, blob))
}
