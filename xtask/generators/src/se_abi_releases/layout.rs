//! The layout dump: a C program compiled against one release's header and run, so that every
//! offset, size, alignment, enum signedness and `*_STRUCT_SIZE` value is the compiler's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::SE_HEADER;
use super::c_header::{CType, parse, resolved, rust_type};
use crate::venv::{output, run};

/// A type some releases define as a macro rather than a typedef (`c_api_macros.h`).
const TYPE_MACRO: &str = "TF_Bool";

/// The layout facts of one release's header: every struct, typedef'd enum and size macro, with
/// the compiler's offsets, sizes and alignments.
pub(super) fn layout_of(include: &Path, release: &str, scratch: &Path) -> Result<Value, String> {
    let header = include.join(SE_HEADER);
    let header_bytes = fs::read(&header).map_err(|e| format!("{}: {e}", header.display()))?;
    let source = format!("#include \"{SE_HEADER}\"\n");
    let macros = output(
        Command::new("gcc")
            .args(["-E", "-dM", "-x", "c", "-I"])
            .arg(include)
            .args(["-o", "-", "-"])
            .stdin(stdin_file(scratch, "macros.c", &source)?),
    )?;
    // Some releases spell a type as a macro (`#define TF_Bool unsigned char`, guarded by
    // `#ifndef TF_Bool`). Declared as a typedef of the macro's own value (and defined as itself,
    // so the header keeps it), it keeps its name in the declarations, as C code spells it.
    let mut prelude = String::new();
    for line in macros.lines() {
        if let Some(value) = line.strip_prefix(&format!("#define {TYPE_MACRO} ")) {
            prelude = format!("typedef {value} {TYPE_MACRO};\n#define {TYPE_MACRO} {TYPE_MACRO}\n");
        }
    }
    let preprocessed = output(
        Command::new("gcc")
            .args(["-E", "-x", "c", "-I"])
            .arg(include)
            .args(["-o", "-", "-"])
            .stdin(stdin_file(scratch, "pre.c", &format!("{prelude}{source}"))?),
    )?;
    let decls = parse(&preprocessed, SE_HEADER)?;
    // `#define SP_PLATFORM_STRUCT_SIZE TF_OFFSET_OF_END(SP_Platform, force_memory_growth)`
    let mut size_macros: BTreeMap<String, String> = BTreeMap::new();
    let mut se_version = BTreeMap::new();
    for line in macros.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("#define") {
            continue;
        }
        let Some(name) = words.next() else { continue };
        let rest: String = words.collect::<Vec<_>>().join(" ");
        if name.ends_with("_STRUCT_SIZE")
            && let Some(args) = rest.strip_prefix("TF_OFFSET_OF_END(")
        {
            let target = args.split(',').next().unwrap_or_default().trim();
            size_macros.insert(target.to_string(), name.to_string());
        }
        if matches!(name, "SE_MAJOR" | "SE_MINOR" | "SE_PATCH") {
            se_version.insert(name.to_string(), rest.parse::<u64>().unwrap_or(u64::MAX));
        }
    }
    let enums: Vec<&String> = decls
        .typedefs
        .iter()
        .filter(|(alias, ty)| matches!(ty, CType::Enum(n) if n == *alias))
        .map(|(alias, _)| alias)
        .filter(|alias| preprocessed.contains(&format!("}} {alias};")))
        .collect();

    // The dump program: one line per fact, read back below.
    let mut c = format!(
        "#include \"{SE_HEADER}\"\n#include <stdio.h>\n#include <stddef.h>\n\
         #define SIGNED(T) ((T)-1 < (T)0)\nint main(void) {{\n"
    );
    for name in &enums {
        let _ = writeln!(
            c,
            "  printf(\"enum {name} %zu %d\\n\", sizeof({name}), SIGNED({name}));"
        );
    }
    for (name, members) in &decls.structs {
        let size_macro = size_macros.get(name);
        let _ = writeln!(
            c,
            "  printf(\"struct {name} %zu %zu %zu\\n\", sizeof({name}), _Alignof({name}), (size_t){});",
            size_macro.map_or("0".to_string(), |m| format!("({m})"))
        );
        for (member, _) in members {
            let _ = writeln!(
                c,
                "  printf(\"member {member} %zu %zu %zu\\n\", offsetof({name}, {member}), \
                 sizeof((({name}*)0)->{member}), _Alignof(__typeof__((({name}*)0)->{member})));"
            );
        }
    }
    c.push_str("  return 0;\n}\n");
    let c_path = scratch.join(format!("layout-{release}.c"));
    fs::write(&c_path, c).map_err(|e| format!("{}: {e}", c_path.display()))?;
    let exe = scratch.join(format!("layout-{release}"));
    run(Command::new("gcc")
        .args(["-std=gnu11", "-Wall", "-Werror", "-I"])
        .arg(include)
        .arg(&c_path)
        .arg("-o")
        .arg(&exe))?;
    let dump = output(&mut Command::new(&exe))?;

    let mut enum_reprs = BTreeMap::new();
    let mut numbers: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut struct_numbers: Vec<(String, Vec<u64>, Vec<Vec<u64>>)> = Vec::new();
    for line in dump.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let nums = || -> Vec<u64> { words[2..].iter().filter_map(|w| w.parse().ok()).collect() };
        match words.first() {
            Some(&"enum") => {
                let n = nums();
                let repr = format!("{}{}", if n[1] == 1 { "i" } else { "u" }, n[0] * 8);
                enum_reprs.insert(words[1].to_string(), repr);
                numbers.insert(words[1].to_string(), n);
            }
            Some(&"struct") => struct_numbers.push((words[1].to_string(), nums(), Vec::new())),
            Some(&"member") => {
                if let Some(last) = struct_numbers.last_mut() {
                    last.2.push(nums());
                }
            }
            _ => {}
        }
    }

    let mut structs = Vec::new();
    for ((name, members), (dumped, sizes, member_numbers)) in
        decls.structs.iter().zip(&struct_numbers)
    {
        if name != dumped || members.len() != member_numbers.len() {
            return Err(format!(
                "{release}: the layout dump disagrees with the declarations of {name}"
            ));
        }
        let mut rows = Vec::new();
        for ((member, ty), n) in members.iter().zip(member_numbers) {
            let resolved_type = resolved(ty, &decls, &enum_reprs)?;
            check_size(&resolved_type, n[1])
                .map_err(|e| format!("{release}: {name}.{member}: {e}"))?;
            rows.push(json!({
                "name": member,
                "offset": n[0],
                "size": n[1],
                "align": n[2],
                "declared": rust_type(ty)?,
                "resolved": resolved_type,
            }));
        }
        structs.push(json!({
            "name": name,
            "sizeof": sizes[0],
            "align": sizes[1],
            "size_macro": size_macros.get(name),
            "struct_size": if size_macros.contains_key(name) { Some(sizes[2]) } else { None },
            "members": rows,
        }));
    }
    let typedefs: BTreeMap<&String, String> = decls
        .typedefs
        .iter()
        .filter(|(name, _)| preprocessed_declares_in_header(&preprocessed, name))
        .filter_map(|(name, ty)| Some((name, resolved(ty, &decls, &enum_reprs).ok()?)))
        .collect();
    Ok(json!({
        "release": release,
        "header": SE_HEADER,
        "header_sha256_prefix": fnv_hex(&header_bytes),
        "se_version": [se_version.get("SE_MAJOR"), se_version.get("SE_MINOR"), se_version.get("SE_PATCH")],
        "enums": enum_reprs,
        "typedefs": typedefs,
        "structs": structs,
    }))
}

/// Whether the typedef `name` is one TensorFlow's headers declare (`TF_`, `SE_`, `SP_`), as
/// opposed to the C library's.
fn preprocessed_declares_in_header(_preprocessed: &str, name: &str) -> bool {
    name.starts_with("TF_") || name.starts_with("SE_") || name.starts_with("SP_")
}

/// A short fingerprint of the header's bytes (64-bit FNV-1a), to tell identical headers apart
/// from changed ones at a glance; not a security measure.
fn fnv_hex(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The reader's resolved type must have the size the compiler gave the member.
fn check_size(resolved: &str, size: u64) -> Result<(), String> {
    let expected = if resolved.starts_with('*') || resolved.starts_with("fn(") {
        Some(8)
    } else if let Some(bits) = resolved
        .strip_prefix('u')
        .or_else(|| resolved.strip_prefix('i'))
        .or_else(|| resolved.strip_prefix('f'))
        .and_then(|b| b.parse::<u64>().ok())
    {
        Some(bits / 8)
    } else if let Some((_, repr)) = resolved.split_once(": ") {
        repr[1..].parse::<u64>().ok().map(|b| b / 8)
    } else {
        None
    };
    match expected {
        Some(s) if s != size => Err(format!(
            "read as `{resolved}` but the compiler says {size} bytes"
        )),
        _ => Ok(()),
    }
}

fn stdin_file(scratch: &Path, name: &str, text: &str) -> Result<fs::File, String> {
    let path = scratch.join(name);
    fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))
}
