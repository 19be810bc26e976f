//! `cargo xtask se-abi-releases`: TensorFlow's StreamExecutor C API as each release shipped it,
//! taken from the real wheels, for se-abi.
//!
//! For every release from 2.5 (the first with PluggableDevice) to 2.21, the xtask finds the
//! wheel's C headers (in a venv `DIR/tf-<release>` when there is one, else in the wheel under
//! `--wheels`, downloaded with `pip download --no-deps --only-binary=:all:` when missing: the
//! older wheels are for older Pythons, but their headers are plain files), and:
//!
//! - **layouts**: preprocesses `stream_executor.h` with `gcc -E`, reads the declarations of its
//!   structs, typedefs and enums (a small reader for the C that header uses: [`CType`]), then
//!   compiles a layout dump against the header with `gcc` and runs it, so that every offset,
//!   size, alignment, enum signedness and `*_STRUCT_SIZE` value is the compiler's, not ours.
//!   Written to `crates/se-abi/releases/<release>/layout.json.gz`;
//! - **symbols** (the ten releases that install on this Python, 2.12 ... 2.21): imports
//!   tensorflow in the venv, lists the shared libraries it loaded from the wheel, and reads each
//!   one's soname and exported C symbols (ELF, with the `object` crate); records whether a global
//!   lookup (`dlsym(RTLD_DEFAULT)`) finds TensorFlow's C API. Written to
//!   `crates/se-abi/releases/<release>/symbols.json.gz`.
//!
//! Those facts are committed (gzip-compressed JSON) and are the source data of `cargo xtask
//! codegen`, which turns them into se-abi's `src/generated/` ([`generate`]).

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// Every release covered, oldest first, with the Python version its `tensorflow-cpu` wheel is
/// for when it does not install on this machine's Python (3.11): the latest patch release of
/// each minor version since PluggableDevice appeared (2.5).
pub const RELEASES: &[(&str, Option<&str>)] = &[
    ("2.5.3", Some("3.9")),
    ("2.6.5", Some("3.9")),
    ("2.7.4", Some("3.9")),
    ("2.8.4", Some("3.10")),
    ("2.9.3", Some("3.10")),
    ("2.10.1", Some("3.10")),
    ("2.11.1", Some("3.10")),
    ("2.12.1", None),
    ("2.13.1", None),
    ("2.14.1", None),
    ("2.15.1", None),
    ("2.16.2", None),
    ("2.17.1", None),
    ("2.18.1", None),
    ("2.19.1", None),
    ("2.20.0", None),
    ("2.21.0", None),
];

/// Where the facts live, relative to the workspace root.
pub const FACTS: &str = "crates/se-abi/releases";

/// A type some releases define as a macro rather than a typedef (`c_api_macros.h`).
const TYPE_MACRO: &str = "TF_Bool";

/// The header, relative to the wheel's `tensorflow/include/`.
const SE_HEADER: &str = "tensorflow/c/experimental/stream_executor/stream_executor.h";

/// The part of a wheel's `tensorflow/include/` the header needs: TF's C headers and the TSL
/// status header it includes (which moved between releases).
const INCLUDE_PARTS: &[&str] = &["tensorflow/c/", "tensorflow/tsl/c/", "tsl/c/", "xla/tsl/c/"];

/// `cargo xtask se-abi-releases`.
pub fn dump(root: &Path, venvs: &Path, wheels: &Path, only: &[String]) -> Result<(), String> {
    for release in only {
        if !RELEASES.iter().any(|(r, _)| r == release) {
            return Err(format!(
                "unknown release {release}; the covered releases are {}",
                RELEASES
                    .iter()
                    .map(|(r, _)| *r)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    for &(release, python) in RELEASES {
        if !only.is_empty() && !only.iter().any(|r| r == release) {
            continue;
        }
        let out = root.join(FACTS).join(release);
        fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let venv = venvs.join(format!("tf-{release}"));
        let include = match python {
            None => {
                ensure_venv(&venv, release)?;
                site_packages(&venv)?.join("tensorflow/include")
            }
            Some(python) => {
                let wheel = ensure_wheel(wheels, release, python)?;
                let dir = scratch.path().join(release);
                extract_headers(&wheel, &dir)?;
                dir.join("tensorflow/include")
            }
        };
        let layout = layout_of(&include, release, scratch.path())?;
        write_gz(&out.join("layout.json.gz"), &layout)?;
        println!(
            "{release}: {} structs",
            layout["structs"].as_array().map_or(0, Vec::len)
        );
        if python.is_none() {
            let symbols = symbols_of(&venv, release)?;
            write_gz(&out.join("symbols.json.gz"), &symbols)?;
        }
    }
    println!("now run `cargo xtask codegen` to regenerate se-abi's declarations");
    Ok(())
}

fn ensure_venv(venv: &Path, release: &str) -> Result<(), String> {
    let python = venv.join("bin/python");
    let imports = python.exists()
        && Command::new(&python)
            .args(["-c", "import tensorflow"])
            .env("TF_CPP_MIN_LOG_LEVEL", "3")
            .output()
            .is_ok_and(|o| o.status.success());
    if !imports {
        println!("creating {} with tensorflow-cpu=={release}", venv.display());
        run(Command::new("python3").arg("-m").arg("venv").arg(venv))?;
        run(Command::new(venv.join("bin/pip")).args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("tensorflow-cpu=={release}"),
        ]))?;
    }
    Ok(())
}

fn site_packages(venv: &Path) -> Result<PathBuf, String> {
    let lib = venv.join("lib");
    let entries = fs::read_dir(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    for entry in entries.flatten() {
        let candidate = entry.path().join("site-packages");
        if candidate.join("tensorflow").is_dir() {
            return Ok(candidate);
        }
    }
    Err(format!(
        "no site-packages/tensorflow below {}",
        lib.display()
    ))
}

/// The `tensorflow-cpu` wheel of `release` in `wheels`, downloaded for `python` if missing.
fn ensure_wheel(wheels: &Path, release: &str, python: &str) -> Result<PathBuf, String> {
    let find = || -> Option<PathBuf> {
        let prefix = format!("tensorflow_cpu-{release}-");
        fs::read_dir(wheels)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".whl"))
            })
    };
    if let Some(wheel) = find() {
        return Ok(wheel);
    }
    fs::create_dir_all(wheels).map_err(|e| format!("{}: {e}", wheels.display()))?;
    println!(
        "downloading tensorflow-cpu=={release} (Python {python} wheel) into {}",
        wheels.display()
    );
    run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args([
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            python,
        ])
        .args([
            "--platform",
            "manylinux2010_x86_64",
            "--platform",
            "manylinux2014_x86_64",
        ])
        .args(["--platform", "manylinux_2_17_x86_64", "-d"])
        .arg(wheels)
        .arg(format!("tensorflow-cpu=={release}")))?;
    find().ok_or_else(|| format!("pip downloaded no tensorflow-cpu {release} wheel"))
}

/// Extracts the headers the layout dump needs from a wheel (a zip file), with Python's own
/// `zipfile` module: no zip crate for a one-off extraction.
fn extract_headers(wheel: &Path, dir: &Path) -> Result<(), String> {
    let script = "import sys, zipfile\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  parts = sys.argv[3:]\n\
                  names = [n for n in z.namelist() if any(n.startswith('tensorflow/include/' + p) for p in parts)]\n\
                  z.extractall(sys.argv[2], names)\n";
    run(Command::new("python3")
        .args(["-c", script])
        .arg(wheel)
        .arg(dir)
        .args(INCLUDE_PARTS))
}

fn run(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed: {status}"))
    }
}

fn output(command: &mut Command) -> Result<String, String> {
    let out = command
        .output()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{command:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{command:?} printed non-UTF-8"))
}

fn write_gz(path: &Path, value: &Value) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    text.push('\n');
    // A fixed header (no file name, no time) keeps the bytes the same from run to run.
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let bytes = encoder
        .finish()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a committed fact file.
pub fn read_gz(path: &Path) -> Result<Value, String> {
    let bytes = fs::read(path).map_err(|e| {
        format!(
            "{}: {e}; run `cargo xtask se-abi-releases` to make it",
            path.display()
        )
    })?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

// --- the C declarations of the header ---------------------------------------------------------

/// A C type as the header declares it: typedef names kept ([`CType::Named`]), so that it maps
/// onto se-abi's Rust declarations, and resolvable through the typedefs to what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CType {
    /// `void`.
    Void,
    /// An integer of `size` bytes, by its C keywords (`unsigned char`, `int`, ...).
    Int {
        size: u8,
        signed: bool,
        keywords: String,
    },
    /// `float` or `double`.
    Float { size: u8 },
    /// `struct NAME`.
    Struct(String),
    /// `enum NAME`.
    Enum(String),
    /// A typedef name.
    Named(String),
    /// A pointer; `constant` when what it points to is `const`.
    Pointer { constant: bool, to: Box<CType> },
    /// A pointer to a function.
    Function { ret: Box<CType>, params: Vec<CType> },
}

/// What the header declares.
#[derive(Default, Debug)]
pub struct Declarations {
    /// Every typedef of the preprocessed header, system headers included.
    pub typedefs: BTreeMap<String, CType>,
    /// The structs defined in the StreamExecutor header itself, in order, with their members.
    pub structs: Vec<(String, Vec<(String, CType)>)>,
    /// The tags of every struct defined (with a body) anywhere in the preprocessed header.
    pub complete: std::collections::BTreeSet<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    text: String,
    /// Whether it comes from the StreamExecutor header (not an included one).
    ours: bool,
}

/// Splits `gcc -E` output (with its `# line "file"` markers) into tokens, dropping
/// `__attribute__((...))` and the like, which the header's structs never need.
fn tokenize(preprocessed: &str, header: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut ours = false;
    for line in preprocessed.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            // `# 12 "path/to/file.h" 1 3`
            if let Some(file) = rest.split('"').nth(1) {
                ours = file.ends_with(header);
            }
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_whitespace() {
                i += 1;
            } else if c.is_alphanumeric() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                tokens.push(Token {
                    text: chars[start..i].iter().collect(),
                    ours,
                });
            } else if c == '"' || c == '\'' {
                i += 1;
                while i < chars.len() && chars[i] != c {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            } else {
                tokens.push(Token {
                    text: c.to_string(),
                    ours,
                });
                i += 1;
            }
        }
    }
    // Drop GNU extensions the struct reader does not need.
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].text.as_str();
        if matches!(t, "__attribute__" | "__asm__" | "__asm" | "__declspec") {
            i += 1;
            let mut depth = 0;
            while i < tokens.len() {
                match tokens[i].text.as_str() {
                    "(" => depth += 1,
                    ")" => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            continue;
        }
        if matches!(
            t,
            "__extension__" | "__restrict" | "restrict" | "__restrict__" | "volatile" | "__inline"
        ) {
            i += 1;
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// Reads the declarations of a preprocessed header.
pub fn parse(preprocessed: &str, header: &str) -> Result<Declarations, String> {
    let tokens = tokenize(preprocessed, header);
    let mut decls = Declarations::default();
    let mut i = 0;
    while i < tokens.len() {
        // One top-level statement: up to `;` at brace and paren depth 0 (a function body `{}`
        // ends one too).
        let start = i;
        let mut depth = 0i32;
        while i < tokens.len() {
            match tokens[i].text.as_str() {
                "{" | "(" | "[" => depth += 1,
                "}" | ")" | "]" => depth -= 1,
                ";" if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        let statement = &tokens[start..i.min(tokens.len())];
        i += 1;
        statement_into(statement, &mut decls)?;
    }
    Ok(decls)
}

fn texts(tokens: &[Token]) -> Vec<&str> {
    tokens.iter().map(|t| t.text.as_str()).collect()
}

fn statement_into(statement: &[Token], decls: &mut Declarations) -> Result<(), String> {
    let words = texts(statement);
    let Some(first) = words.first() else {
        return Ok(());
    };
    let is_typedef = *first == "typedef";
    let body = if is_typedef {
        &statement[1..]
    } else {
        statement
    };
    let w = texts(body);
    // `struct NAME { ... } [TYPEDEF_NAME]` and `enum NAME { ... } [TYPEDEF_NAME]`
    if (w.first() == Some(&"struct") || w.first() == Some(&"enum"))
        && w.get(1).is_some_and(|n| n != &"{")
        && w.get(2) == Some(&"{")
    {
        let keyword = w[0];
        let tag = w[1].to_string();
        let close = matching_brace(&w, 2)?;
        if keyword == "struct" {
            decls.complete.insert(tag.clone());
        }
        if keyword == "struct" && body[0].ours {
            let members = struct_members(&body[3..close])?;
            decls.structs.push((tag.clone(), members));
        }
        if is_typedef && let Some(alias) = w.get(close + 1) {
            let ty = if keyword == "struct" {
                CType::Struct(tag)
            } else {
                CType::Enum((*alias).to_string())
            };
            decls.typedefs.insert((*alias).to_string(), ty);
        }
        return Ok(());
    }
    if is_typedef
        && !w.contains(&"{")
        && let Ok((name, ty)) = declarator(&w)
    {
        decls.typedefs.insert(name, ty);
    }
    Ok(())
}

fn matching_brace(words: &[&str], open: usize) -> Result<usize, String> {
    let mut depth = 0;
    for (i, w) in words.iter().enumerate().skip(open) {
        match *w {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err("unbalanced braces".to_string())
}

fn struct_members(body: &[Token]) -> Result<Vec<(String, CType)>, String> {
    let words = texts(body);
    let mut members = Vec::new();
    for member in split_top(&words, ";") {
        if member.is_empty() {
            continue;
        }
        members.push(declarator(&member)?);
    }
    Ok(members)
}

/// Splits at `sep` outside parentheses.
fn split_top<'a>(words: &[&'a str], sep: &str) -> Vec<Vec<&'a str>> {
    let mut parts = vec![Vec::new()];
    let mut depth = 0;
    for &w in words {
        match w {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        if w == sep && depth == 0 {
            parts.push(Vec::new());
        } else {
            parts.last_mut().expect("never empty").push(w);
        }
    }
    parts
}

/// A declaration `TYPE NAME` or `RET (*NAME)(PARAMS)`: its name and type.
fn declarator(words: &[&str]) -> Result<(String, CType), String> {
    let bad = || format!("cannot read the declaration `{}`", words.join(" "));
    if let Some(open) = words.iter().position(|w| *w == "(")
        && words.get(open + 1) == Some(&"*")
    {
        let name = words.get(open + 2).ok_or_else(bad)?;
        if words.get(open + 3) != Some(&")") || words.get(open + 4) != Some(&"(") {
            return Err(bad());
        }
        let params_end = words.len() - 1;
        if words[params_end] != ")" {
            return Err(bad());
        }
        let ret = type_of(&words[..open]).ok_or_else(bad)?;
        let params = parameters(&words[open + 5..params_end]).ok_or_else(bad)?;
        return Ok((
            (*name).to_string(),
            CType::Function {
                ret: Box::new(ret),
                params,
            },
        ));
    }
    let (name, ty) = words.split_last().ok_or_else(bad)?;
    Ok(((*name).to_string(), type_of(ty).ok_or_else(bad)?))
}

fn parameters(words: &[&str]) -> Option<Vec<CType>> {
    if words.is_empty() || words == ["void"] {
        return Some(Vec::new());
    }
    split_top(words, ",")
        .into_iter()
        .map(|param| {
            // A trailing identifier after a type (or after `*`) is the parameter's name.
            let named = param.len() >= 2 && {
                let last = param[param.len() - 1];
                let before = param[param.len() - 2];
                is_ident(last)
                    && !is_type_keyword(last)
                    && last != "const"
                    && (before == "*" || is_ident(before))
            };
            let ty = if named {
                &param[..param.len() - 1]
            } else {
                &param[..]
            };
            type_of(ty)
        })
        .collect()
}

fn is_ident(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn is_type_keyword(word: &str) -> bool {
    matches!(
        word,
        "void"
            | "char"
            | "short"
            | "int"
            | "long"
            | "signed"
            | "unsigned"
            | "float"
            | "double"
            | "_Bool"
    )
}

/// A type from its tokens: a base (with `const`), then `*`s each optionally followed by `const`
/// (which qualifies the pointer itself and does not change the ABI).
fn type_of(words: &[&str]) -> Option<CType> {
    let first_star = words.iter().position(|w| *w == "*").unwrap_or(words.len());
    let base_words: Vec<&str> = words[..first_star]
        .iter()
        .copied()
        .filter(|w| *w != "const")
        .collect();
    let mut constant = words[..first_star].contains(&"const");
    let mut ty = base_type(&base_words)?;
    let mut i = first_star;
    while i < words.len() {
        match words[i] {
            "*" => {
                ty = CType::Pointer {
                    constant,
                    to: Box::new(ty),
                };
                constant = false;
            }
            "const" => constant = true,
            _ => return None,
        }
        i += 1;
    }
    Some(ty)
}

fn base_type(words: &[&str]) -> Option<CType> {
    match words {
        ["struct", name] => return Some(CType::Struct((*name).to_string())),
        ["enum", name] => return Some(CType::Enum((*name).to_string())),
        ["void"] => return Some(CType::Void),
        ["float"] => return Some(CType::Float { size: 4 }),
        ["double"] => return Some(CType::Float { size: 8 }),
        [name] if !is_type_keyword(name) => return Some(CType::Named((*name).to_string())),
        _ => {}
    }
    if words.is_empty() || !words.iter().all(|w| is_type_keyword(w)) {
        return None;
    }
    let signed = !words.contains(&"unsigned");
    let longs = words.iter().filter(|w| **w == "long").count();
    let size = if words.contains(&"char") {
        1
    } else if words.contains(&"short") {
        2
    } else if longs > 0 {
        8
    } else {
        4
    };
    // `char` is signed on x86-64, the only target these facts are for.
    let mut sorted: Vec<&str> = words.to_vec();
    sorted.sort_unstable();
    Some(CType::Int {
        size,
        signed,
        keywords: sorted.join(" "),
    })
}

/// The type, with every typedef resolved, in the notation se-abi's layout snapshots use:
/// `u8`, `i32`, `f64`, `void`, `*const T`, `*mut T`, `fn(A, B) -> R`, `struct NAME`,
/// `enum NAME: u32`.
///
/// An opaque struct (one the headers never define) is named by the typedef C code spells it
/// with: TF 2.12 made `TF_Status` a typedef of TSL's `struct TSL_Status`, which changes nothing
/// at the ABI (only ever a pointer TensorFlow made), so both read `struct TF_Status`.
pub fn resolved(
    ty: &CType,
    decls: &Declarations,
    enums: &BTreeMap<String, String>,
) -> Result<String, String> {
    let typedefs = &decls.typedefs;
    Ok(match ty {
        CType::Void => "void".to_string(),
        CType::Int { size, signed, .. } => {
            format!("{}{}", if *signed { "i" } else { "u" }, size * 8)
        }
        CType::Float { size } => format!("f{}", size * 8),
        CType::Struct(name) => format!("struct {name}"),
        CType::Enum(name) => format!(
            "enum {name}: {}",
            enums
                .get(name)
                .ok_or_else(|| format!("the layout dump has no underlying type for enum {name}"))?
        ),
        CType::Named(name) => {
            let target = typedefs
                .get(name)
                .ok_or_else(|| format!("unknown type `{name}`"))?;
            match target {
                CType::Struct(tag) if !decls.complete.contains(tag) => format!("struct {name}"),
                other => resolved(other, decls, enums)?,
            }
        }
        CType::Pointer { constant, to } => {
            format!(
                "*{} {}",
                if *constant { "const" } else { "mut" },
                resolved(to, decls, enums)?
            )
        }
        CType::Function { ret, params } => {
            let params = params
                .iter()
                .map(|p| resolved(p, decls, enums))
                .collect::<Result<Vec<_>, _>>()?;
            let ret = resolved(ret, decls, enums)?;
            if ret == "void" {
                format!("fn({})", params.join(", "))
            } else {
                format!("fn({}) -> {ret}", params.join(", "))
            }
        }
    })
}

/// The type as se-abi's Rust declarations spell it: TensorFlow's typedef names kept
/// (`TF_Bool`, `SP_Stream`), the C standard ones mapped (`size_t` is `usize`, `uint64_t` is
/// `u64`), a function pointer member as `Option<unsafe extern "C" fn(..)>`.
pub fn rust_type(ty: &CType) -> Result<String, String> {
    Ok(match ty {
        CType::Void => "c_void".to_string(),
        CType::Int {
            keywords,
            size,
            signed,
        } => match keywords.as_str() {
            "int" | "int signed" => "c_int".to_string(),
            "int unsigned" | "unsigned" => "c_uint".to_string(),
            "char" => "c_char".to_string(),
            "long" | "int long" => "c_long".to_string(),
            "long unsigned" | "int long unsigned" => "c_ulong".to_string(),
            _ => format!("{}{}", if *signed { "i" } else { "u" }, size * 8),
        },
        CType::Float { size } => format!("f{}", size * 8),
        CType::Struct(name) | CType::Enum(name) => name.clone(),
        CType::Named(name) => match name.as_str() {
            "size_t" | "uintptr_t" => "usize".to_string(),
            "ssize_t" | "intptr_t" | "ptrdiff_t" => "isize".to_string(),
            "int8_t" => "i8".to_string(),
            "int16_t" => "i16".to_string(),
            "int32_t" => "i32".to_string(),
            "int64_t" => "i64".to_string(),
            "uint8_t" => "u8".to_string(),
            "uint16_t" => "u16".to_string(),
            "uint32_t" => "u32".to_string(),
            "uint64_t" => "u64".to_string(),
            other => other.to_string(),
        },
        CType::Pointer { constant, to } => format!(
            "*{} {}",
            if *constant { "const" } else { "mut" },
            rust_type(to)?
        ),
        CType::Function { ret, params } => {
            let params = params
                .iter()
                .map(rust_type)
                .collect::<Result<Vec<_>, _>>()?;
            let ret = match ret.as_ref() {
                CType::Void => String::new(),
                other => format!(" -> {}", rust_type(other)?),
            };
            format!("Option<unsafe extern \"C\" fn({}){ret}>", params.join(", "))
        }
    })
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match rust_type(self) {
            Ok(text) => f.write_str(&text),
            Err(e) => write!(f, "<{e}>"),
        }
    }
}

// --- the layout dump ---------------------------------------------------------------------------

/// The layout facts of one release's header: every struct, typedef'd enum and size macro, with
/// the compiler's offsets, sizes and alignments.
fn layout_of(include: &Path, release: &str, scratch: &Path) -> Result<Value, String> {
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

// --- the release's libraries and C symbols ----------------------------------------------------

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

fn symbols_of(venv: &Path, release: &str) -> Result<Value, String> {
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

// --- codegen ---------------------------------------------------------------------------------

/// One member of one release's struct, as the layout dump recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactMember {
    pub name: String,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// The type as se-abi's Rust declaration spells it.
    pub declared: String,
    /// The type resolved through every typedef ([`resolved`]).
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
pub fn generate(root: &Path) -> Result<(&'static str, crate::codegen::Files), String> {
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
        crate::codegen::HEADER
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

    rs.push_str(&release_libraries(root)?);

    let mut files = crate::codegen::Files::new();
    files.insert("tensorflow.rs".to_string(), rs.into_bytes());
    Ok(("tensorflow", files))
}

/// Whether an exported C symbol belongs to TensorFlow's C APIs (`TF_`, `TFE_`, `TSL_`, `TP_`,
/// `SE_`, `TFNPD_`, `TFL_`, `TfLite...`): what a plugin may import from TensorFlow. The other C
/// symbols TensorFlow's libraries export come from libraries bundled into them.
fn is_c_api(name: &str) -> bool {
    [
        "TF_", "TFE_", "TSL_", "TP_", "SE_", "TFNPD_", "TFL_", "TfLite",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
}

/// The libraries of the ten installable releases and the C API symbols each exports, as Rust
/// tables for `se_abi::plugin`.
fn release_libraries(root: &Path) -> Result<String, String> {
    let mut releases = Vec::new();
    let mut symbols = std::collections::BTreeSet::new();
    for (release, python) in RELEASES {
        if python.is_some() {
            continue;
        }
        let value = read_gz(&root.join(FACTS).join(release).join("symbols.json.gz"))?;
        for library in value["libraries"].as_array().into_iter().flatten() {
            for name in library["c_symbols"].as_array().into_iter().flatten() {
                if let Some(name) = name.as_str().filter(|n| is_c_api(n)) {
                    symbols.insert(name.to_string());
                }
            }
        }
        releases.push((release, value));
    }
    let symbols: Vec<String> = symbols.into_iter().collect();
    let index: BTreeMap<&str, usize> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut rs = String::new();
    rs.push_str(
        "\n/// A shared library of a release's wheel that `import tensorflow` loads.\n\
         #[derive(Debug, Clone, Copy)]\n\
         pub struct TfLibrary {\n\
         \x20   /// Its path below `site-packages`.\n\
         \x20   pub path: &'static str,\n\
         \x20   /// Its `DT_SONAME`, which a plugin's `DT_NEEDED` entry matches.\n\
         \x20   pub soname: Option<&'static str>,\n\
         \x20   /// Its own `DT_NEEDED` entries.\n\
         \x20   pub needed: &'static [&'static str],\n\
         \x20   /// The C API functions it exports: indices into [`C_API_SYMBOLS`].\n\
         \x20   pub c_api: &'static [u16],\n\
         }\n\n\
         /// What one installable release offers a plugin at load time.\n\
         #[derive(Debug, Clone, Copy)]\n\
         pub struct TfRelease {\n\
         \x20   /// The release, as `tf.__version__` names it.\n\
         \x20   pub release: &'static str,\n\
         \x20   /// Whether a global lookup (`dlsym(RTLD_DEFAULT)`) finds TensorFlow's C API: false up\n\
         \x20   /// to 2.18, which loads its libraries with `RTLD_LOCAL`.\n\
         \x20   pub global_c_api: bool,\n\
         \x20   /// The libraries `import tensorflow` loads from the wheel.\n\
         \x20   pub libraries: &'static [TfLibrary],\n\
         }\n\n",
    );
    let _ = writeln!(
        rs,
        "/// Every C API function some release exports ({} names), sorted.\npub const C_API_SYMBOLS: &[&str] = &[",
        symbols.len()
    );
    for chunk in symbols.chunks(4) {
        let row: Vec<String> = chunk.iter().map(|s| format!("{s:?}")).collect();
        let _ = writeln!(rs, "    {},", row.join(", "));
    }
    rs.push_str("];\n\n/// The releases whose wheels install on CPython 3.11, oldest first.\npub const TF_RELEASES: &[TfRelease] = &[\n");
    for (release, value) in &releases {
        let _ = writeln!(
            rs,
            "    TfRelease {{\n        release: {release:?},\n        global_c_api: {},\n        libraries: &[",
            value["global_c_api"].as_bool().unwrap_or(false)
        );
        for library in value["libraries"].as_array().into_iter().flatten() {
            let needed: Vec<String> = library["needed"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str().map(|n| format!("{n:?}")))
                .collect();
            let c_api: Vec<String> = library["c_symbols"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| {
                    n.as_str()
                        .and_then(|n| index.get(n))
                        .map(ToString::to_string)
                })
                .collect();
            let soname = match library["soname"].as_str() {
                Some(s) => format!("Some({s:?})"),
                None => "None".to_string(),
            };
            let _ = writeln!(
                rs,
                "            TfLibrary {{\n                path: {:?},\n                soname: {soname},\n                needed: &[{}],\n                c_api: &[{}],\n            }},",
                library["path"].as_str().unwrap_or_default(),
                needed.join(", "),
                c_api.join(", ")
            );
        }
        rs.push_str("        ],\n    },\n");
    }
    rs.push_str("];\n");
    if symbols.len() > usize::from(u16::MAX) {
        return Err("more than 65535 C API symbols: widen the index type".to_string());
    }
    Ok(rs)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(text: &str) -> Declarations {
        let pre = format!("# 1 \"x/{SE_HEADER}\"\n{text}");
        parse(&pre, SE_HEADER).unwrap()
    }

    #[test]
    fn reads_structs_typedefs_and_function_pointers() {
        let d = decls(
            "typedef unsigned char TF_Bool;\n\
             typedef struct SP_Stream_st* SP_Stream;\n\
             typedef enum SE_EventStatus { SE_EVENT_UNKNOWN, SE_EVENT_ERROR } SE_EventStatus;\n\
             typedef void (*SE_StatusCallbackFn)(void* const, TF_Status* const);\n\
             typedef struct TF_Status TF_Status;\n\
             typedef struct SP_X {\n  size_t struct_size;\n  void* ext;\n  const char* name;\n\
               TF_Bool flag;\n  SP_Stream* streams;\n\
               void (*go)(const struct SP_X* x, uint64_t size, SE_StatusCallbackFn cb, void* arg);\n\
               SE_EventStatus (*status)(void);\n} SP_X;\n",
        );
        assert_eq!(d.structs.len(), 1);
        let (name, members) = d.structs[0].clone();
        assert_eq!(name, "SP_X");
        let rust: Vec<String> = members.iter().map(|(_, t)| rust_type(t).unwrap()).collect();
        assert_eq!(
            rust,
            [
                "usize",
                "*mut c_void",
                "*const c_char",
                "TF_Bool",
                "*mut SP_Stream",
                "Option<unsafe extern \"C\" fn(*const SP_X, u64, SE_StatusCallbackFn, *mut c_void)>",
                "Option<unsafe extern \"C\" fn() -> SE_EventStatus>",
            ]
        );
        let mut d = d;
        d.typedefs.insert(
            "size_t".into(),
            CType::Int {
                size: 8,
                signed: false,
                keywords: "long unsigned".into(),
            },
        );
        d.typedefs.insert(
            "uint64_t".into(),
            CType::Int {
                size: 8,
                signed: false,
                keywords: "long unsigned".into(),
            },
        );
        let enums = BTreeMap::from([("SE_EventStatus".to_string(), "u32".to_string())]);
        let resolved: Vec<String> = members
            .iter()
            .map(|(_, t)| resolved(t, &d, &enums).unwrap())
            .collect();
        assert_eq!(
            resolved,
            [
                "u64",
                "*mut void",
                "*const i8",
                "u8",
                "*mut *mut struct SP_Stream_st",
                "fn(*const struct SP_X, u64, fn(*mut void, *mut struct TF_Status), *mut void)",
                "fn() -> enum SE_EventStatus: u32",
            ]
        );
    }

    #[test]
    fn structs_of_other_headers_are_not_ours() {
        let pre = format!(
            "# 1 \"/usr/include/stdint.h\"\ntypedef struct A {{ int a; }} A;\n\
             # 2 \"x/{SE_HEADER}\"\ntypedef struct B {{ int b; }} B;\n"
        );
        let d = parse(&pre, SE_HEADER).unwrap();
        assert_eq!(
            d.structs.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(),
            ["B"]
        );
        assert!(d.typedefs.contains_key("A"));
    }
}
