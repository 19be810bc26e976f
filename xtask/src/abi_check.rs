//! `cargo xtask abi-check [--bless]`: every breaking edit of a `struct_size`-versioned struct is
//! caught, the job libabigail and cargo-semver-checks do for other ABIs.
//!
//! se-abi's layout lock, checked by the compiler, catches members that were moved, removed or
//! resized. It cannot see what keeps the bytes in place but changes their meaning: a renamed
//! member, a same-size type change (`i32` to `u32`, `*mut A` to `*mut B`), a re-tagged version,
//! an un-deprecated member put back to use. So each declared struct has a committed snapshot,
//! `crates/se-abi/abi/<group>/<struct>.json`: its name, and per member its name, declared type,
//! **resolved type** (its `se_abi::Shape`: size, signedness, integer, float, pointer and
//! pointee, function signature, enum and underlying integer, through every alias), offset, size,
//! alignment, `since` and `deprecated`.
//!
//! **Every declared struct is found, with no list to keep**: [`discover`] reads se-abi's `src/`,
//! `examples/` and `tests/` (not `tests/ui/`, whose cases are meant not to compile) for
//! `versioned_struct!` invocations at module level, and a throw-away program built against
//! se-abi (each file copied in as a module, with a function that prints its structs' member
//! tables appended) prints their layouts. A declaration inside a function body cannot be named
//! from outside; it is counted and reported, not checked.
//!
//! The check fails, naming the struct and the member, on any change other than **appending
//! members** or **marking one deprecated** (the two edits the StreamExecutor C API versioning
//! RFC allows); a change of a declared type's spelling that resolves to the same type (`TF_Bool`
//! for `u8`) is allowed. `--bless` records the declarations as the new snapshots: an intended
//! change.
//!
//! It also runs the same comparison over **TensorFlow's own history**: the layouts of releases
//! 2.5 to 2.21 that `cargo xtask se-abi-releases` dumped (`crates/se-abi/releases/`), each
//! release against the one before, and reports where TensorFlow broke its own rule.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// Where the snapshots live, relative to the workspace root.
pub const SNAPSHOT_DIR: &str = "crates/se-abi/abi";

/// The crate whose declarations are checked, relative to the workspace root.
pub const CRATE_DIR: &str = "crates/se-abi";

/// The folders of the crate read for declarations, and the one left out (compile-fail cases).
const SCANNED: &[&str] = &["src", "examples", "tests"];
const NOT_SCANNED: &str = "tests/ui";

/// Compare with the snapshots, or record the declarations as the snapshots.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Check,
    Bless,
}

/// One member of a declared struct, as the snapshot records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLayout {
    pub name: String,
    /// The declared type, whitespace-normalized (see [`normalize_type`]).
    pub ty: String,
    /// The type resolved through every alias (`se_abi::Shape`'s notation): what is compared.
    pub resolved: String,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    pub since: u64,
    pub deprecated: Option<u64>,
}

/// One declared struct: its group (the header build that declares it), name and members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    pub group: String,
    pub name: String,
    pub members: Vec<MemberLayout>,
}

impl StructLayout {
    fn key(&self) -> (String, String) {
        (self.group.clone(), self.name.clone())
    }
}

/// A change of a declared struct against its snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub group: String,
    pub name: String,
    /// The member concerned, if the change is about one.
    pub member: Option<String>,
    /// Whether the scheme allows it (append, deprecate).
    pub allowed: bool,
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct `{}` ({})", self.name, self.group)?;
        if let Some(member) = &self.member {
            write!(f, ", member `{member}`")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// Runs the check (or the bless) on the workspace at `root`.
pub fn run(root: &Path, mode: Mode) -> Result<(), String> {
    run_with(root, mode, &Command::new(cargo()))
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// [`run`], building the declarations with `cargo`, a command the caller may have configured
/// (the tests give it a target directory of its own).
fn run_with(root: &Path, mode: Mode, cargo: &Command) -> Result<(), String> {
    let (found, in_functions) = discover(&root.join(CRATE_DIR))?;
    let declared = declarations(root, &found, cargo)?;
    if declared.len() != found.len() {
        return Err(format!(
            "{} structs were found in the sources but {} were printed",
            found.len(),
            declared.len()
        ));
    }
    if in_functions > 0 {
        println!(
            "abi-check: {in_functions} `versioned_struct!` declaration(s) inside function bodies \
             (tests) are not checked: nothing outside the function can name them"
        );
    }
    let snapshots = read_snapshots(&root.join(SNAPSHOT_DIR))?;
    let changes = compare_all(&snapshots, &declared);
    match tensorflow_history(root) {
        Ok(breaks) => {
            for change in &breaks {
                println!("abi-check: TensorFlow's own history: {change}");
            }
            println!(
                "abi-check: TensorFlow's own history ({}): {} break(s) of the append-only rule, \
                 each declared `incompatible` in se-abi's generated `tensorflow` module",
                crate::se_abi_releases::FACTS,
                breaks.len()
            );
        }
        Err(e) => return Err(format!("reading TensorFlow's release facts: {e}")),
    }
    match mode {
        Mode::Check => {
            let (allowed, breaking): (Vec<&Change>, Vec<&Change>) =
                changes.iter().partition(|change| change.allowed);
            for change in &allowed {
                println!("abi-check: allowed, not yet recorded (run --bless): {change}");
            }
            if breaking.is_empty() {
                println!(
                    "abi-check: {} declared structs agree with their snapshots in {SNAPSHOT_DIR}/",
                    declared.len()
                );
                Ok(())
            } else {
                let list: Vec<String> = breaking.iter().map(|c| format!("  {c}")).collect();
                Err(format!(
                    "abi-check: {} breaking change(s) of struct_size-versioned structs:\n{}\n\
                     Members are only ever appended or deprecated in place: never renamed, \
                     re-typed, moved, re-tagged or removed. Deprecate the member and append a \
                     new one instead; if the change is intended (a new major version), record \
                     it with `cargo xtask abi-check --bless`.",
                    breaking.len(),
                    list.join("\n")
                ))
            }
        }
        Mode::Bless => {
            for change in &changes {
                println!("abi-check --bless: recording {change}");
            }
            write_snapshots(&root.join(SNAPSHOT_DIR), &snapshots, &declared)?;
            println!(
                "abi-check --bless: {} snapshots in {SNAPSHOT_DIR}/",
                declared.len()
            );
            Ok(())
        }
    }
}

/// A struct declared with `versioned_struct!` at module level in one of the crate's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// The file, relative to the crate, with `/`.
    pub file: String,
    /// The inline modules around the declaration in that file.
    pub modules: Vec<String>,
    pub name: String,
}

impl Declared {
    /// The snapshot group: the file without `.rs`, then the inline modules.
    pub fn group(&self) -> String {
        let mut group = self.file.trim_end_matches(".rs").to_string();
        for module in &self.modules {
            group.push('/');
            group.push_str(module);
        }
        group
    }
}

/// Every struct declared at module level in the crate's `src/`, `examples/` and `tests/` (not
/// `tests/ui/`), and how many declarations sit inside function bodies (not checkable).
pub fn discover(crate_dir: &Path) -> Result<(Vec<Declared>, usize), String> {
    let mut found = Vec::new();
    let mut in_functions = 0;
    for folder in SCANNED {
        let dir = crate_dir.join(folder);
        if !dir.is_dir() {
            continue;
        }
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
            let path = entry.path();
            let relative = path
                .strip_prefix(crate_dir)
                .map_err(|e| e.to_string())?
                .to_string_lossy()
                .replace('\\', "/");
            if relative.starts_with(NOT_SCANNED) || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (declared, nested) = scan(&text);
            in_functions += nested;
            found.extend(declared.into_iter().map(|(modules, name)| Declared {
                file: relative.clone(),
                modules,
                name,
            }));
        }
    }
    Ok((found, in_functions))
}

/// The tokens of Rust source that [`scan`] needs: identifiers and single punctuation, with
/// comments, strings and character literals left out.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if (c == 'r' || (c == 'b' && at(i + 1) == 'r'))
            && matches!(at(i + usize::from(c == 'b') + 1), '"' | '#')
            && !at(i.wrapping_sub(1)).is_alphanumeric()
        {
            // A raw string: r"..." or r#"..."#, maybe with a `b` before.
            i += usize::from(c == 'b') + 1;
            let mut hashes = 0;
            while at(i) == '#' {
                hashes += 1;
                i += 1;
            }
            if at(i) != '"' {
                continue;
            }
            i += 1;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += hashes + 1;
                    break;
                }
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{..}'), or a lifetime ('a), which is skipped.
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The `versioned_struct!` invocations of one file: the inline modules around each one at
/// module level and its struct's name, and the number of them inside function bodies (or any
/// block that is not a module).
pub fn scan(text: &str) -> (Vec<(Vec<String>, String)>, usize) {
    let tokens = tokens(text);
    // One entry per open brace: `Some(name)` for `mod name {`, `None` for any other block.
    let mut frames: Vec<Option<String>> = Vec::new();
    let mut found = Vec::new();
    let mut nested = 0;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => {
                let module = (i >= 2 && tokens[i - 2] == "mod").then(|| tokens[i - 1].clone());
                frames.push(module);
            }
            "}" => {
                frames.pop();
            }
            "versioned_struct" if tokens.get(i + 1).is_some_and(|t| t == "!") => {
                let name = tokens[i..]
                    .windows(2)
                    .find(|w| w[0] == "struct")
                    .map(|w| w[1].clone());
                if let Some(name) = name {
                    if frames.iter().all(Option::is_some) {
                        found.push((frames.iter().flatten().cloned().collect(), name));
                    } else {
                        nested += 1;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    (found, nested)
}

/// Builds a program that prints the member table of every struct in `declared`, runs it, and
/// parses what it prints. Each file that declares some is copied into the program as a module,
/// with a function appended that prints its structs (so a struct in a private inline module is
/// reached from inside its file).
fn declarations(
    root: &Path,
    declared: &[Declared],
    cargo: &Command,
) -> Result<Vec<StructLayout>, String> {
    let program = tempfile::Builder::new()
        .prefix("se-abi-abi-check-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let crate_dir = root.join(CRATE_DIR);
    let manifest = format!(
        "[package]\nname = \"se-abi-abi-check\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[dependencies]\nse-abi = {{ path = {:?} }}\n\n[workspace]\n",
        crate_dir.display().to_string()
    );
    fs::write(program.path().join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    // The workspace's lock file pins the same dependency versions (Cargo drops what is unused).
    let _ = fs::copy(root.join("Cargo.lock"), program.path().join("Cargo.lock"));
    let src = program.path().join("src");
    fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    let mut files: BTreeMap<&str, Vec<&Declared>> = BTreeMap::new();
    for d in declared {
        files.entry(d.file.as_str()).or_default().push(d);
    }
    let mut main = String::from(
        "// Made by `cargo xtask abi-check`: prints the member table of every declared struct.\n\
         #![allow(warnings, clippy::all)]\n\
         // The copied files name se-abi's items as `crate::...` or `se_abi::...`.\n\
         pub use se_abi::*;\n\n",
    );
    let mut calls = String::new();
    for (index, (file, structs)) in files.iter().enumerate() {
        let text = fs::read_to_string(crate_dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        let mut printer = String::from(
            "\n#[allow(dead_code)]\npub(crate) fn __se_abi_print(out: &mut dyn ::std::io::Write) -> ::std::io::Result<()> {\n",
        );
        for d in structs {
            let path: Vec<&str> = d
                .modules
                .iter()
                .map(String::as_str)
                .chain([d.name.as_str()])
                .collect();
            printer.push_str(&format!(
                "    crate::print::<self::{}>(out, {:?})?;\n",
                path.join("::"),
                d.group()
            ));
        }
        printer.push_str("    Ok(())\n}\n");
        fs::write(src.join(format!("m{index}.rs")), format!("{text}{printer}"))
            .map_err(|e| e.to_string())?;
        main.push_str(&format!("/// `{file}`\nmod m{index};\n"));
        calls.push_str(&format!("    m{index}::__se_abi_print(&mut out)?;\n"));
    }
    main.push_str(
        "\npub fn print<T: se_abi::Versioned>(out: &mut dyn ::std::io::Write, group: &str) -> ::std::io::Result<()> {\n\
         \x20   for m in T::MEMBERS {\n\
         \x20       let deprecated = m.deprecated.map(|v| v.get().to_string()).unwrap_or_default();\n\
         \x20       let ty = m.ty.split_whitespace().collect::<Vec<_>>().join(\" \");\n\
         \x20       writeln!(out, \"{group}\\t{}\\t{}\\t{ty}\\t{}\\t{}\\t{}\\t{}\\t{}\\t{deprecated}\", T::NAME, m.name, m.shape, m.offset, m.size, m.align, m.since.get())?;\n\
         \x20   }\n\
         \x20   Ok(())\n\
         }\n\nfn main() -> ::std::io::Result<()> {\n\
         \x20   let stdout = ::std::io::stdout();\n\
         \x20   let mut out = stdout.lock();\n",
    );
    main.push_str(&calls);
    main.push_str("    Ok(())\n}\n");
    fs::write(src.join("main.rs"), main).map_err(|e| e.to_string())?;

    let mut command = Command::new(cargo.get_program());
    for (key, value) in cargo.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    let output = command
        .current_dir(program.path())
        .args(["run", "--quiet"])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "the program that prints the declared structs did not build or run ({}); every file \
             that declares a versioned struct at module level is compiled as a module of it, so \
             it may use se-abi, core and std only:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = String::from_utf8(output.stdout)
        .map_err(|_| "the layout program printed non-UTF-8 text".to_string())?;
    parse_declarations(&text)
}

/// Every change between consecutive releases of TensorFlow's own StreamExecutor C API structs
/// (from the committed layout facts) that the append-only rule forbids.
pub fn tensorflow_history(root: &Path) -> Result<Vec<Change>, String> {
    let layouts = crate::se_abi_releases::read_layouts(root)?;
    let as_layout = |release: &str, st: &crate::se_abi_releases::FactStruct| StructLayout {
        group: format!("TensorFlow {release}"),
        name: st.name.clone(),
        members: st
            .members
            .iter()
            .map(|m| MemberLayout {
                name: m.name.clone(),
                ty: normalize_type(&m.declared),
                resolved: m.resolved.clone(),
                offset: m.offset,
                size: m.size,
                align: m.align,
                since: 1,
                deprecated: None,
            })
            .collect(),
    };
    let mut breaks = Vec::new();
    for pair in layouts.windows(2) {
        for new in &pair[1].structs {
            if let Some(old) = pair[0].structs.iter().find(|s| s.name == new.name) {
                let changes = compare(
                    &as_layout(&pair[0].release, old),
                    &as_layout(&pair[1].release, new),
                );
                breaks.extend(changes.into_iter().filter(|c| !c.allowed));
            }
        }
    }
    Ok(breaks)
}

/// Parses the program's tab-separated lines (group, struct, member, type, resolved type,
/// offset, size, alignment, since, deprecated) into structs, in the order printed.
pub fn parse_declarations(text: &str) -> Result<Vec<StructLayout>, String> {
    let mut structs: Vec<StructLayout> = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        let bad = |what: &str| format!("se-abi-layouts line {}: {what}: {line:?}", number + 1);
        let fields: Vec<&str> = line.split('\t').collect();
        let [
            group,
            name,
            member,
            ty,
            resolved,
            offset,
            size,
            align,
            since,
            deprecated,
        ] = fields[..]
        else {
            return Err(bad("expected 10 tab-separated fields"));
        };
        let number = |text: &str| text.parse::<u64>().map_err(|_| bad("not a number"));
        let member = MemberLayout {
            name: member.to_string(),
            ty: normalize_type(ty),
            resolved: resolved.to_string(),
            offset: number(offset)?,
            size: number(size)?,
            align: number(align)?,
            since: number(since)?,
            deprecated: if deprecated.is_empty() {
                None
            } else {
                Some(number(deprecated)?)
            },
        };
        match structs.last_mut() {
            Some(last) if last.group == group && last.name == name => last.members.push(member),
            _ => {
                if structs.iter().any(|s| s.group == group && s.name == name) {
                    return Err(bad("struct declared twice"));
                }
                structs.push(StructLayout {
                    group: group.to_string(),
                    name: name.to_string(),
                    members: vec![member],
                });
            }
        }
    }
    Ok(structs)
}

/// A type as declared, with the whitespace that does not separate two words removed, so that
/// `* mut c_void` and `*mut c_void` compare equal whatever the compiler's `stringify!` spacing.
pub fn normalize_type(ty: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '"';
    let chars: Vec<char> = ty.trim().chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            let start = i;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            let before = chars[start - 1];
            if i < chars.len() && word(before) && word(chars[i]) {
                out.push(' ');
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The snapshot file of a struct.
fn snapshot_path(dir: &Path, layout: &StructLayout) -> PathBuf {
    dir.join(&layout.group)
        .join(format!("{}.json", layout.name))
}

fn to_json(layout: &StructLayout) -> Value {
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

fn from_json(value: &Value, path: &Path) -> Result<StructLayout, String> {
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
fn read_snapshots(dir: &Path) -> Result<Vec<StructLayout>, String> {
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
fn write_snapshots(
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

/// Every change between the snapshots and the declarations.
pub fn compare_all(snapshots: &[StructLayout], declared: &[StructLayout]) -> Vec<Change> {
    let by_key: BTreeMap<_, _> = declared.iter().map(|d| (d.key(), d)).collect();
    let mut changes = Vec::new();
    for old in snapshots {
        match by_key.get(&old.key()) {
            Some(new) => changes.extend(compare(old, new)),
            None => changes.push(Change {
                group: old.group.clone(),
                name: old.name.clone(),
                member: None,
                allowed: false,
                what: "no longer declared: a published struct is never removed (or it was \
                       renamed, or moved to another file or module)"
                    .to_string(),
            }),
        }
    }
    for new in declared {
        if !snapshots.iter().any(|old| old.key() == new.key()) {
            changes.push(Change {
                group: new.group.clone(),
                name: new.name.clone(),
                member: None,
                allowed: false,
                what: "has no snapshot: a new struct is recorded with `cargo xtask abi-check \
                       --bless`"
                    .to_string(),
            });
        }
    }
    changes
}

/// The changes from one struct's snapshot `old` to its declaration `new`.
pub fn compare(old: &StructLayout, new: &StructLayout) -> Vec<Change> {
    let change = |member: &str, allowed: bool, what: String| Change {
        group: new.group.clone(),
        name: new.name.clone(),
        member: Some(member.to_string()),
        allowed,
        what,
    };
    let mut changes = Vec::new();
    for (index, was) in old.members.iter().enumerate() {
        let Some(now) = new.members.get(index) else {
            changes.push(change(
                &was.name,
                false,
                format!(
                    "removed (was at offset {}): members are never removed; deprecate it instead",
                    was.offset
                ),
            ));
            continue;
        };
        if now.name != was.name {
            let what = match new.members.iter().position(|m| m.name == was.name) {
                Some(at) => format!(
                    "moved from position {index} (offset {}) to position {at} (offset {}): \
                     members are never reordered",
                    was.offset, new.members[at].offset
                ),
                None => format!(
                    "renamed to `{}` (offset {}): a member is never renamed; deprecate it and \
                     append a new member instead",
                    now.name, now.offset
                ),
            };
            changes.push(change(&was.name, false, what));
            continue;
        }
        if now.resolved != was.resolved {
            let spelled = if now.ty == was.ty {
                format!(" (still spelled `{}`: an alias changed underneath)", now.ty)
            } else {
                format!(" (declared `{}`, was `{}`)", now.ty, was.ty)
            };
            changes.push(change(
                &was.name,
                false,
                format!(
                    "type changed from `{}` to `{}`{spelled}: a member's type never changes, even \
                     at the same size; deprecate it and append a new member instead",
                    was.resolved, now.resolved
                ),
            ));
        } else if now.ty != was.ty {
            changes.push(change(
                &was.name,
                true,
                format!(
                    "declared `{}` instead of `{}`, the same type (`{}`)",
                    now.ty, was.ty, now.resolved
                ),
            ));
        }
        if now.align != was.align {
            changes.push(change(
                &was.name,
                false,
                format!("alignment changed from {} to {}", was.align, now.align),
            ));
        }
        if (now.offset, now.size) != (was.offset, was.size) {
            changes.push(change(
                &was.name,
                false,
                format!(
                    "moved or resized from bytes {}..{} to {}..{}",
                    was.offset,
                    was.offset + was.size,
                    now.offset,
                    now.offset + now.size
                ),
            ));
        }
        if now.since != was.since {
            changes.push(change(
                &was.name,
                false,
                format!(
                    "`since` changed from {} to {}: the version that added a member is a \
                     published fact",
                    was.since, now.since
                ),
            ));
        }
        match (was.deprecated, now.deprecated) {
            (None, None) => {}
            (Some(a), Some(b)) if a == b => {}
            (None, Some(version)) => changes.push(change(
                &was.name,
                true,
                format!("deprecated in version {version}"),
            )),
            (Some(version), None) => changes.push(change(
                &was.name,
                false,
                format!(
                    "no longer deprecated (was deprecated in version {version}): a deprecated \
                     slot is never reused; append a new member instead"
                ),
            )),
            (Some(a), Some(b)) => changes.push(change(
                &was.name,
                false,
                format!(
                    "deprecation moved from version {a} to {b}: the version that deprecated a \
                     member is a published fact"
                ),
            )),
        }
    }
    for appended in new.members.iter().skip(old.members.len()) {
        changes.push(change(
            &appended.name,
            true,
            format!(
                "appended at offset {} (`{}`, since {})",
                appended.offset, appended.ty, appended.since
            ),
        ));
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Mutex;

    /// The nested Cargo builds use target directories of their own (the one running the tests
    /// is locked by the test run), one per checkout: two checkouts of se-abi in one target
    /// directory would share artifact names and Cargo's fingerprints. One build at a time.
    static CARGO_LOCK: Mutex<()> = Mutex::new(());

    /// `target/<profile>/abi-check/<checkout>`, beside this test binary's `deps/`.
    fn nested_cargo(checkout: &str) -> Command {
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().and_then(Path::parent).unwrap();
        let mut command = Command::new(cargo());
        command
            .env(
                "CARGO_TARGET_DIR",
                profile_dir.join("abi-check").join(checkout),
            )
            .env_remove("RUSTFLAGS");
        command
    }

    fn workspace_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf()
    }

    /// A member whose resolved type is its declared one (as for plain integers).
    fn member(name: &str, ty: &str, offset: u64, since: u64) -> MemberLayout {
        MemberLayout {
            name: name.to_string(),
            ty: ty.to_string(),
            resolved: ty.to_string(),
            offset,
            size: 8,
            align: 8,
            since,
            deprecated: None,
        }
    }

    fn device() -> StructLayout {
        StructLayout {
            group: "g".to_string(),
            name: "Dev".to_string(),
            members: vec![
                member("struct_size", "usize", 0, 1),
                member("next", "*mut c_void", 8, 1),
                member("a", "i64", 16, 1),
                member("b", "*mut A", 24, 2),
            ],
        }
    }

    fn breaking(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .filter(|c| !c.allowed)
            .map(|c| c.to_string())
            .collect()
    }

    /// The check, run as a test: the repository's declarations agree with its snapshots (in a
    /// copy of it, see [`Scratch`]; `.ci/run` also runs `cargo xtask abi-check` on the tree).
    #[test]
    fn the_repository_agrees_with_its_snapshots() {
        let _guard = CARGO_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        Scratch::new().check(Mode::Check, "repository").unwrap();
    }

    /// The seed's `SE_Device` as header versions 1 to 5 declare it: each version is an allowed
    /// edit of the one before (appends, and the deprecation of `data` in version 4), by the same
    /// comparison the check makes.
    #[test]
    fn each_seed_version_is_an_allowed_edit_of_the_one_before() {
        let snapshots = read_snapshots(&workspace_root().join(SNAPSHOT_DIR)).unwrap();
        let seed: Vec<&StructLayout> = (1..=5)
            .map(|v| {
                snapshots
                    .iter()
                    .find(|s| {
                        s.group == format!("examples/se_device/versions/v{v}")
                            && s.name == "SE_Device"
                    })
                    .unwrap()
            })
            .collect();
        let mut allowed = Vec::new();
        for pair in seed.windows(2) {
            let changes = compare(pair[0], pair[1]);
            assert!(changes.iter().all(|c| c.allowed), "{changes:?}");
            allowed.extend(changes.into_iter().map(|c| (c.group, c.member.unwrap())));
        }
        let names: Vec<(&str, &str)> = allowed
            .iter()
            .map(|(g, m)| (g.as_str(), m.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("examples/se_device/versions/v2", "device_handle"),
                ("examples/se_device/versions/v3", "data"),
                ("examples/se_device/versions/v4", "data"),
                ("examples/se_device/versions/v5", "data2")
            ]
        );
    }

    #[test]
    fn comparator_allows_append_and_deprecation_only() {
        let old = device();
        assert!(compare(&old, &old).is_empty());

        let mut new = old.clone();
        new.members.push(member("c", "u64", 32, 3));
        new.members[3].deprecated = Some(3);
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 2);
        assert!(changes.iter().all(|c| c.allowed), "{changes:?}");

        type Edit = fn(&mut StructLayout);
        let cases: [(Edit, &str); 9] = [
            (
                |s| s.members[2].resolved = "u64".into(),
                "struct `Dev` (g), member `a`: type changed from `i64` to `u64` (still spelled \
                 `i64`: an alias changed underneath)",
            ),
            (
                |s| {
                    s.members[3].ty = "*mut B".into();
                    s.members[3].resolved = "*mut B".into();
                },
                "struct `Dev` (g), member `b`: type changed from `*mut A` to `*mut B` (declared \
                 `*mut B`, was `*mut A`)",
            ),
            (
                |s| s.members[3].align = 4,
                "struct `Dev` (g), member `b`: alignment changed from 8 to 4",
            ),
            (
                |s| s.members[3].name = "c".into(),
                "struct `Dev` (g), member `b`: renamed to `c` (offset 24)",
            ),
            (
                |s| s.members.swap(2, 3),
                "struct `Dev` (g), member `a`: moved from position 2 (offset 16) to position 3",
            ),
            (
                |s| {
                    s.members.pop();
                },
                "struct `Dev` (g), member `b`: removed (was at offset 24)",
            ),
            (
                |s| s.members[3].since = 1,
                "struct `Dev` (g), member `b`: `since` changed from 2 to 1",
            ),
            (
                |s| s.members[3].size = 4,
                "struct `Dev` (g), member `b`: moved or resized from bytes 24..32 to 24..28",
            ),
            (
                |s| s.members[0].name = "size".into(),
                "struct `Dev` (g), member `struct_size`: renamed to `size`",
            ),
        ];
        for (edit, want) in cases {
            let mut new = old.clone();
            edit(&mut new);
            let found = breaking(&compare(&old, &new));
            assert!(
                found.iter().any(|c| c.starts_with(want)),
                "want {want:?}, got {found:?}"
            );
        }

        // A deprecated slot is never put back to use, nor its deprecation moved.
        let mut deprecated = old.clone();
        deprecated.members[3].deprecated = Some(3);
        let mut reused = deprecated.clone();
        reused.members[3].deprecated = None;
        assert_eq!(
            breaking(&compare(&deprecated, &reused)),
            [
                "struct `Dev` (g), member `b`: no longer deprecated (was deprecated in version 3): \
              a deprecated slot is never reused; append a new member instead"
            ]
        );
        reused.members[3].deprecated = Some(4);
        assert_eq!(breaking(&compare(&deprecated, &reused)).len(), 1);

        // A new spelling of the same type is allowed, and said.
        let mut respelled = old.clone();
        respelled.members[2].ty = "MyInt".into();
        let changes = compare(&old, &respelled);
        assert!(breaking(&changes).is_empty(), "{changes:?}");
        assert_eq!(
            changes[0].to_string(),
            "struct `Dev` (g), member `a`: declared `MyInt` instead of `i64`, the same type (`i64`)"
        );

        // Structs appear and disappear only with --bless.
        let other = StructLayout {
            name: "Other".into(),
            ..old.clone()
        };
        let all = compare_all(std::slice::from_ref(&old), std::slice::from_ref(&other));
        assert_eq!(
            breaking(&all),
            [
                "struct `Dev` (g): no longer declared: a published struct is never removed (or \
                 it was renamed, or moved to another file or module)",
                "struct `Other` (g): has no snapshot: a new struct is recorded with `cargo \
                 xtask abi-check --bless`"
            ]
        );
    }

    #[test]
    fn types_compare_whatever_the_spacing() {
        assert_eq!(normalize_type("* mut  c_void"), "*mut c_void");
        assert_eq!(normalize_type("*mut c_void"), "*mut c_void");
        assert_eq!(
            normalize_type("Option < unsafe extern \"C\" fn (* mut A) -> u8 >"),
            normalize_type("Option<unsafe extern \"C\" fn(*mut A) -> u8>")
        );
        assert_ne!(normalize_type("*mut A"), normalize_type("*mut B"));
        assert_ne!(normalize_type("i32"), normalize_type("u32"));
    }

    #[test]
    fn declarations_parse_and_refuse_bad_lines() {
        let text = "g\tDev\tstruct_size\tusize\tu64\t0\t8\t8\t1\t\n\
                    g\tDev\tdata\t* mut c_void\t*mut void\t8\t8\t8\t2\t3\n";
        let parsed = parse_declarations(text).unwrap();
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].members[1].ty, "*mut c_void");
        assert_eq!(parsed[0].members[1].deprecated, Some(3));
        assert!(parse_declarations("g\tDev\tx\n").is_err());
        assert!(parse_declarations("g\tDev\tx\tu8\tu8\tzero\t1\t1\t1\t\n").is_err());
        // Round trip through the snapshot's JSON.
        let value = to_json(&parsed[0]);
        assert_eq!(from_json(&value, Path::new("x.json")).unwrap(), parsed[0]);
    }

    /// A scratch copy of the workspace holding only se-abi (its snapshots and release facts
    /// included), without se-abi's dev-dependencies.
    struct Scratch {
        dir: tempfile::TempDir,
    }

    impl Scratch {
        fn new() -> Scratch {
            let root = workspace_root();
            let dir = tempfile::tempdir().unwrap();
            let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
            let start = manifest.find("members = [").unwrap();
            let end = start + manifest[start..].find(']').unwrap() + 1;
            let manifest = format!(
                "{}members = [\"crates/se-abi\"]{}",
                &manifest[..start],
                &manifest[end..]
            );
            fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
            fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
            let crate_dir = root.join("crates/se-abi");
            for entry in walkdir::WalkDir::new(&crate_dir)
                .into_iter()
                .filter_entry(|e| e.file_name() != "target")
            {
                let entry = entry.unwrap();
                let to = dir
                    .path()
                    .join("crates/se-abi")
                    .join(entry.path().strip_prefix(&crate_dir).unwrap());
                if entry.file_type().is_dir() {
                    fs::create_dir_all(&to).unwrap();
                } else {
                    fs::copy(entry.path(), &to).unwrap();
                }
            }
            let manifest_path = dir.path().join("crates/se-abi/Cargo.toml");
            let manifest = fs::read_to_string(&manifest_path).unwrap();
            let start = manifest.find("[dev-dependencies]").unwrap();
            let end = start + manifest[start..].find("\n\n").unwrap();
            let manifest = format!("{}{}", &manifest[..start], &manifest[end..]);
            fs::write(&manifest_path, manifest).unwrap();
            Scratch { dir }
        }

        fn versions(&self) -> PathBuf {
            self.dir
                .path()
                .join("crates/se-abi/examples/se_device/versions.rs")
        }

        /// Replaces `from` with `to` (once) in the crate's file `file`.
        fn edit(&self, file: &str, from: &str, to: &str) {
            let path = self.dir.path().join("crates/se-abi").join(file);
            let text = fs::read_to_string(&path).unwrap();
            assert!(text.contains(from), "{from:?} not in {file}");
            fs::write(&path, text.replacen(from, to, 1)).unwrap();
        }

        /// Replaces `from` with `to` in version 5 of the seed's `SE_Device` (the last module).
        fn edit_v5(&self, from: &str, to: &str) {
            let text = fs::read_to_string(self.versions()).unwrap();
            let v5 = text.find("pub mod v5").unwrap();
            let (head, tail) = text.split_at(v5);
            assert!(tail.contains(from), "{from:?} not in v5");
            fs::write(
                self.versions(),
                format!("{head}{}", tail.replacen(from, to, 1)),
            )
            .unwrap();
        }

        fn check(&self, mode: Mode, target: &str) -> Result<(), String> {
            let mut cargo = nested_cargo(target);
            cargo.env("CARGO_NET_OFFLINE", "true");
            run_with(self.dir.path(), mode, &cargo)
        }
    }

    /// Same-size retypes that keep every declared type's text: through an alias (`TF_Bool` from
    /// `u8` to `i8`), an enum's underlying integer (`SE_EventStatus` from `c_uint` to `c_int`),
    /// and inside `SP_AllocatorStats` (`i64` to `u64`). Each compiles, and each fails the check
    /// naming the members it changes.
    #[test]
    fn alias_enum_and_allocator_stats_retypes_are_caught() {
        let _guard = CARGO_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        /// A file of the crate, the edits made to it, and what the check must say.
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);
        let cases: [Case; 3] = [
            (
                "src/tensorflow.rs",
                &[("pub type TF_Bool = u8;", "pub type TF_Bool = i8;")],
                &[
                    "struct `SP_Platform` (src/generated/tensorflow), member \
                     `supports_unified_memory`: type changed from `u8` to `i8` (still spelled \
                     `TF_Bool`: an alias changed underneath)",
                    "struct `SP_StreamExecutor` (src/generated/tensorflow), member `host_callback`: \
                     type changed from",
                ],
            ),
            (
                "src/tensorflow.rs",
                &[
                    (
                        "pub struct SE_EventStatus(pub c_uint);",
                        "pub struct SE_EventStatus(pub i32);",
                    ),
                    (
                        "repr: &<c_uint as crate::CType>::SHAPE",
                        "repr: &<i32 as crate::CType>::SHAPE",
                    ),
                ],
                &[
                    "struct `SP_StreamExecutor` (src/generated/tensorflow), member \
                   `get_event_status`: type changed from `fn(*const struct SP_Device, *mut struct \
                   SP_Event_st) -> enum SE_EventStatus: u32` to `fn(*const struct SP_Device, *mut \
                   struct SP_Event_st) -> enum SE_EventStatus: i32`",
                ],
            ),
            (
                "src/generated/tensorflow.rs",
                &[("num_allocs: i64", "num_allocs: u64")],
                &[
                    "struct `SP_AllocatorStats` (src/generated/tensorflow), member `num_allocs`: type \
                   changed from `i64` to `u64` (declared `u64`, was `i64`)",
                ],
            ),
        ];
        for (file, edits, wants) in cases {
            let scratch = Scratch::new();
            for (from, to) in edits {
                scratch.edit(file, from, to);
            }
            let err = scratch.check(Mode::Check, "scratch").unwrap_err();
            for want in wants {
                assert!(err.contains(want), "want {want:?} in:\n{err}");
            }
        }
    }

    /// The same comparison over TensorFlow's own release history finds its one break of the
    /// append-only rule: 2.7 inserted three members before `host_callback`.
    #[test]
    fn tensorflow_history_reports_its_own_break() {
        let breaks: Vec<String> = tensorflow_history(&workspace_root())
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            breaks,
            [
                "struct `SP_StreamExecutor` (TensorFlow 2.7.4), member `host_callback`: moved from \
              position 32 (offset 256) to position 35 (offset 280): members are never reordered"
            ]
        );
    }

    #[test]
    fn discovery_finds_module_level_declarations_only() {
        let text = r##"
            //! versioned_struct! { struct InADocComment {} }
            /* versioned_struct! { struct InABlockComment {} } */
            const S: &str = "versioned_struct! { struct InAString {} }";
            const R: &str = r#"versioned_struct! { struct InARawString {} }"#;
            fn lifetimes<'a>(x: &'a str) -> char { let _ = x; '}' }
            se_abi::versioned_struct! { pub struct Top { a: u8 = value(since 1, at 16..17) } }
            pub mod outer {
                mod inner {
                    versioned_struct! { pub struct Deep {} }
                }
            }
            fn body() {
                versioned_struct! { struct InAFunction {} }
            }
            macro_rules! versioned_struct { () => {} }
        "##;
        let (found, nested) = scan(text);
        assert_eq!(
            found,
            [
                (vec![], "Top".to_string()),
                (
                    vec!["outer".to_string(), "inner".to_string()],
                    "Deep".to_string()
                )
            ]
        );
        assert_eq!(nested, 1);
        let (found, _) = discover(&workspace_root().join(CRATE_DIR)).unwrap();
        let groups: Vec<String> = found
            .iter()
            .map(|d| format!("{} {}", d.group(), d.name))
            .collect();
        assert!(groups.contains(&"src/generated/tensorflow SP_AllocatorStats".to_string()));
        assert!(groups.contains(&"examples/tf_plugin/layouts/newer SP_Platform".to_string()));
        assert!(
            !groups.iter().any(|g| g.starts_with("tests/ui")),
            "{groups:?}"
        );
    }

    /// Edits of the seed's `SE_Device` v5 in a scratch copy, each of which compiles (the layout
    /// lock lets it through): the breaking ones fail the check naming struct and member, an
    /// append and a deprecation pass, and `--bless` records a change.
    #[test]
    fn edits_in_a_scratch_copy() {
        let _guard = CARGO_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let original = fs::read_to_string(Scratch::new().versions()).unwrap();
        let scratch = Scratch::new();
        let reset = || fs::write(scratch.versions(), &original).unwrap();
        scratch.check(Mode::Check, "scratch").unwrap();

        let must_fail: [(&[(&str, &str)], &str); 5] = [
            // A rename.
            (
                &[("data2: *mut c_void", "data_two: *mut c_void")],
                "struct `SE_Device` (examples/se_device/versions/v5), member `data2`: renamed to `data_two` (offset 48)",
            ),
            // A same-size type change, pointer to pointer.
            (
                &[("device_handle: *mut c_void", "device_handle: *mut u8")],
                "struct `SE_Device` (examples/se_device/versions/v5), member `device_handle`: \
                 type changed from `*mut void` to `*mut u8` (declared `*mut u8`, was `*mut c_void`)",
            ),
            // A same-size type change, integer to integer.
            (
                &[("name_len: usize", "name_len: i64")],
                "struct `SE_Device` (examples/se_device/versions/v5), member `name_len`: type \
                 changed from `u64` to `i64`",
            ),
            // A reorder that keeps every offset the lock knows (both members are 8 bytes).
            (
                &[
                    (
                        "name: *const c_char = nonzero(since 1, at 16..24),",
                        "name_len: usize = value(since 1, at 16..24),",
                    ),
                    (
                        "name_len: usize = value(since 1, at 24..32),",
                        "name: *const c_char = nonzero(since 1, at 24..32),",
                    ),
                ],
                "struct `SE_Device` (examples/se_device/versions/v5), member `name`: moved from position 2 (offset 16) \
                 to position 3 (offset 24)",
            ),
            // A deprecated slot put back to use.
            (
                &[("since 3, deprecated 4, at 40..48", "since 3, at 40..48")],
                "struct `SE_Device` (examples/se_device/versions/v5), member `data`: no longer deprecated",
            ),
        ];
        for (edits, want) in must_fail {
            reset();
            for (from, to) in edits {
                scratch.edit_v5(from, to);
            }
            let err = scratch.check(Mode::Check, "scratch").unwrap_err();
            assert!(err.contains(want), "want {want:?} in:\n{err}");
            // A reorder moves two members; every other edit breaks one.
            let count = if edits.len() == 2 { 2 } else { 1 };
            assert!(
                err.contains(&format!("{count} breaking change(s)")),
                "{err}"
            );
        }

        // An append and a deprecation are accepted.
        let append_flags = || {
            scratch.edit_v5(
                "sizes = [32, 40, 48, 48, 56]",
                "sizes = [32, 40, 48, 48, 56, 60]",
            );
            scratch.edit_v5(
                "data2: *mut c_void = nonzero(since 5, at 48..56),",
                "data2: *mut c_void = nonzero(since 5, at 48..56),\n            \
                 flags: i32 = value(since 6, at 56..60),",
            );
        };
        reset();
        append_flags();
        scratch.check(Mode::Check, "scratch").unwrap();
        reset();
        scratch.edit_v5(
            "sizes = [32, 40, 48, 48, 56]",
            "sizes = [32, 40, 48, 48, 56, 56]",
        );
        scratch.edit_v5("since 5, at 48..56", "since 5, deprecated 6, at 48..56");
        scratch.check(Mode::Check, "scratch").unwrap();

        // Recorded with --bless, the appended `flags: i32` is locked in turn: `u32` is refused.
        reset();
        append_flags();
        scratch.check(Mode::Bless, "scratch").unwrap();
        let snapshot = scratch
            .dir
            .path()
            .join("crates/se-abi/abi/examples/se_device/versions/v5/SE_Device.json");
        assert!(fs::read_to_string(&snapshot).unwrap().contains("\"flags\""));
        scratch.check(Mode::Check, "scratch").unwrap();
        scratch.edit_v5("flags: i32", "flags: u32");
        let err = scratch.check(Mode::Check, "scratch").unwrap_err();
        assert!(
            err.contains(
                "struct `SE_Device` (examples/se_device/versions/v5), member `flags`: type changed from `i32` to `u32`"
            ),
            "{err}"
        );
    }
}
