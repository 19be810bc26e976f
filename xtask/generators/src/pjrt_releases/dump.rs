//! One header's layout facts: `pjrt_c_api.h` preprocessed with `gcc -E`, its structs, typedefs
//! and enums read by a small reader for the C that header uses, and a layout dump compiled
//! against it and run, so that every offset, size and `*_STRUCT_SIZE` is the compiler's.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::venv::output;

/// Declared before the header: PJRT 0.54's header (TF 2.17, 2.18) names `PJRT_Extension_Base`
/// inside its own definition before the typedef, which C++ accepts and C does not.
const PRELUDE: &str = "typedef struct PJRT_Extension_Base PJRT_Extension_Base;\n";

/// A function type: its return and parameter types, as C spells them (tokens).
#[derive(Clone, Debug)]
struct FnType {
    ret: Vec<String>,
    params: Vec<Vec<String>>,
}

/// A member as the header declares it.
#[derive(Clone, Debug)]
struct Decl {
    name: String,
    /// The type's tokens; for an anonymous union, `union`.
    ty: Vec<String>,
    /// An anonymous union's members.
    union_of: Vec<Decl>,
    /// A function pointer declared in place (`void (*f)(int)`).
    inline_fn: Option<FnType>,
}

#[derive(Default, Debug)]
struct Header {
    structs: Vec<(String, Vec<Decl>)>,
    /// `typedef R NAME(P)`: a function type (the `PJRT_Api` slots point to these).
    fn_types: BTreeMap<String, FnType>,
    /// `typedef R (*NAME)(P)`: a function pointer type (callbacks).
    fn_pointers: BTreeMap<String, FnType>,
    /// `typedef enum { ... } NAME` with its enumerators.
    enums: BTreeMap<String, Vec<String>>,
    /// Structs with a `NAME_STRUCT_SIZE` constant (`PJRT_DEFINE_STRUCT_TRAITS`).
    traits: BTreeSet<String>,
}

fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
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
            out.push(chars[start..i].iter().collect());
        } else if c == '"' {
            // String literals only appear in static asserts, which C mode drops.
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            i += 1;
            out.push("\"\"".to_string());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// Splits `tokens` at `sep` outside braces and parentheses.
fn split_top<'a>(tokens: &'a [String], sep: &str) -> Vec<&'a [String]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, t) in tokens.iter().enumerate() {
        match t.as_str() {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            s if s == sep && depth == 0 => {
                parts.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        parts.push(&tokens[start..]);
    }
    parts
}

fn matching(tokens: &[String], open: usize) -> Result<usize, String> {
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" | "(" => depth += 1,
            "}" | ")" => {
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

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn params_of(tokens: &[String]) -> Vec<Vec<String>> {
    let params: Vec<Vec<String>> = split_top(tokens, ",")
        .into_iter()
        .map(|p| {
            // Drop the parameter's name: the last identifier after which nothing but `]` comes.
            let mut p = p.to_vec();
            if p.len() > 1 && p.last().is_some_and(|t| is_ident(t) && !is_keyword_type(t)) {
                p.pop();
            }
            p
        })
        .collect();
    if params.len() == 1 && (params[0].is_empty() || params[0] == ["void"]) {
        Vec::new()
    } else {
        params
    }
}

fn is_keyword_type(t: &str) -> bool {
    matches!(
        t,
        "int" | "char" | "void" | "float" | "double" | "long" | "short" | "unsigned" | "signed"
    )
}

fn members(body: &[String]) -> Result<Vec<Decl>, String> {
    let mut out = Vec::new();
    for decl in split_top(body, ";") {
        if decl.is_empty() {
            continue;
        }
        if (decl[0] == "union" || decl[0] == "struct")
            && decl.get(1).map(String::as_str) == Some("{")
        {
            let close = matching(decl, 1)?;
            let inner = members(&decl[2..close])?;
            let first = inner.first().ok_or("empty anonymous union")?.name.clone();
            out.push(Decl {
                name: first,
                ty: vec![decl[0].clone()],
                union_of: inner,
                inline_fn: None,
            });
            continue;
        }
        if let Some(b) = decl.iter().position(|t| t == "[") {
            // `T name[N]`: kept whole (its bytes are a `Blob`).
            let name = decl.get(b.wrapping_sub(1)).ok_or("bad array")?.clone();
            let mut ty = decl[..b - 1].to_vec();
            ty.extend(decl[b..].iter().cloned());
            out.push(Decl {
                name,
                ty: vec!["array".to_string()],
                union_of: vec![Decl {
                    name: decl[b - 1].clone(),
                    ty,
                    union_of: Vec::new(),
                    inline_fn: None,
                }],
                inline_fn: None,
            });
            continue;
        }
        if let Some(p) = decl.iter().position(|t| t == "(") {
            // `R (*name)(params)`
            if decl.get(p + 1).map(String::as_str) == Some("*") {
                let name = decl.get(p + 2).ok_or("bad function pointer")?.clone();
                let open = p + 4;
                let close = matching(decl, open)?;
                out.push(Decl {
                    name,
                    ty: decl[..p].to_vec(),
                    union_of: Vec::new(),
                    inline_fn: Some(FnType {
                        ret: decl[..p].to_vec(),
                        params: params_of(&decl[open + 1..close]),
                    }),
                });
                continue;
            }
            return Err(format!("unsupported member `{}`", decl.join(" ")));
        }
        let name = decl.last().ok_or("empty member")?.clone();
        out.push(Decl {
            name,
            ty: decl[..decl.len() - 1].to_vec(),
            union_of: Vec::new(),
            inline_fn: None,
        });
    }
    Ok(out)
}

fn parse(preprocessed: &str) -> Result<Header, String> {
    let tokens = tokenize(preprocessed);
    let mut header = Header::default();
    for st in split_top(&tokens, ";") {
        let words: Vec<&str> = st.iter().map(String::as_str).collect();
        // `enum { X_STRUCT_SIZE = ... }` (0.40 and later) or
        // `const size_t X_STRUCT_SIZE = ...` (before).
        if let Some(i) = words.iter().position(|w| w.ends_with("_STRUCT_SIZE"))
            && words.get(i + 1) == Some(&"=")
        {
            let name = words[i].strip_suffix("_STRUCT_SIZE").unwrap_or_default();
            header.traits.insert(name.to_string());
            continue;
        }
        let (is_typedef, rest) = match words.first() {
            Some(&"typedef") => (true, &st[1..]),
            _ => (false, st),
        };
        let rw: Vec<&str> = rest.iter().map(String::as_str).collect();
        // `struct NAME { ... }` (maybe inside a typedef), or `typedef struct { ... } NAME`
        // (`PJRT_Api` before PJRT 0.54).
        if rw.first() == Some(&"struct") && (rw.get(2) == Some(&"{") || rw.get(1) == Some(&"{")) {
            let tagged = rw.get(2) == Some(&"{");
            let open = if tagged { 2 } else { 1 };
            let close = matching(rest, open)?;
            let name = if tagged {
                rw[1].to_string()
            } else if is_typedef {
                rw.get(close + 1).ok_or("anonymous struct")?.to_string()
            } else {
                continue;
            };
            if name.starts_with("PJRT_") {
                let m = members(&rest[open + 1..close]).map_err(|e| format!("{name}: {e}"))?;
                header.structs.push((name, m));
            }
            continue;
        }
        if !is_typedef {
            continue;
        }
        // `typedef enum { A = 0, B } NAME`
        if rw.first() == Some(&"enum") && rw.get(1) == Some(&"{") {
            let close = matching(rest, 1)?;
            let name = rw.get(close + 1).ok_or("enum without a name")?.to_string();
            let enumerators = split_top(&rest[2..close], ",")
                .into_iter()
                .filter_map(|e| e.first().cloned())
                .collect();
            header.enums.insert(name, enumerators);
            continue;
        }
        if let Some(p) = rw.iter().position(|w| *w == "(") {
            if rw.get(p + 1) == Some(&"*") {
                // `typedef R (*NAME)(params)`
                let name = rw.get(p + 2).ok_or("bad typedef")?.to_string();
                let open = p + 4;
                let close = matching(rest, open)?;
                header.fn_pointers.insert(
                    name,
                    FnType {
                        ret: rest[..p].to_vec(),
                        params: params_of(&rest[open + 1..close]),
                    },
                );
            } else if p > 0 {
                // `typedef R NAME(params)`
                let name = rw[p - 1].to_string();
                let close = matching(rest, p)?;
                header.fn_types.insert(
                    name,
                    FnType {
                        ret: rest[..p - 1].to_vec(),
                        params: params_of(&rest[p + 1..close]),
                    },
                );
            }
        }
    }
    Ok(header)
}

/// The Rust spelling of a C type (tokens): integers by width, pointers to opaque structs as
/// `c_void`, functions as `Option<unsafe extern "C" fn(..)>`.
fn rust_type(
    ty: &[String],
    header: &Header,
    enums: &BTreeMap<String, String>,
) -> Result<String, String> {
    let words: Vec<&str> = ty
        .iter()
        .map(String::as_str)
        .filter(|w| *w != "struct" && *w != "enum")
        .collect();
    let stars = words.iter().filter(|w| **w == "*").count();
    let base: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| *w != "*" && *w != "const")
        .collect();
    let base = base.join(" ");
    if stars == 0 {
        if let Some(f) = header.fn_pointers.get(&base) {
            return fn_type(f, header, enums);
        }
        return scalar(&base, enums);
    }
    if stars == 1
        && let Some(f) = header.fn_types.get(&base)
    {
        return fn_type(f, header, enums);
    }
    // `const` before the first `*` makes the pointee const.
    let first_star = words.iter().position(|w| *w == "*").unwrap_or(0);
    let pointee_const = words[..first_star].contains(&"const");
    let pointee = match base.as_str() {
        "char" => "c_char".to_string(),
        "void" => "c_void".to_string(),
        other => match scalar(other, enums) {
            Ok(s) => s,
            Err(_) => "c_void".to_string(),
        },
    };
    let mut out = format!(
        "{} {pointee}",
        if pointee_const { "*const" } else { "*mut" }
    );
    for _ in 1..stars {
        out = format!("*mut {out}");
    }
    Ok(out)
}

fn fn_type(
    f: &FnType,
    header: &Header,
    enums: &BTreeMap<String, String>,
) -> Result<String, String> {
    let params: Result<Vec<String>, String> = f
        .params
        .iter()
        .map(|p| rust_type(p, header, enums))
        .collect();
    let ret = if f.ret.iter().all(|w| w == "void") {
        "()".to_string()
    } else {
        rust_type(&f.ret, header, enums)?
    };
    Ok(format!(
        "Option<unsafe extern \"C\" fn({}) -> {ret}>",
        params?.join(", ")
    ))
}

fn scalar(name: &str, enums: &BTreeMap<String, String>) -> Result<String, String> {
    Ok(match name {
        "size_t" | "uintptr_t" => "usize",
        "intptr_t" | "ptrdiff_t" => "isize",
        "int" | "int32_t" => "i32",
        "unsigned int" | "uint32_t" | "unsigned" => "u32",
        "int64_t" | "long" | "long int" => "i64",
        "uint64_t" | "unsigned long" => "u64",
        "int8_t" => "i8",
        "uint8_t" | "bool" | "_Bool" | "unsigned char" => "u8",
        "char" => "c_char",
        "int16_t" => "i16",
        "uint16_t" => "u16",
        "float" => "f32",
        "double" => "f64",
        other => {
            return enums
                .get(other)
                .cloned()
                .ok_or_else(|| format!("unknown scalar type `{other}`"));
        }
    }
    .to_string())
}

/// The layout facts of one header, `include`/`header_path`, from TensorFlow `release`'s wheel.
pub fn layout_of(
    include: &Path,
    header_path: &str,
    release: &str,
    scratch: &Path,
) -> Result<Value, String> {
    let file = include.join(header_path);
    let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let minor = text
        .lines()
        .find_map(|l| l.strip_prefix("#define PJRT_API_MINOR "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("{}: no PJRT_API_MINOR", file.display()))?;
    let major = text
        .lines()
        .find_map(|l| l.strip_prefix("#define PJRT_API_MAJOR "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("{}: no PJRT_API_MAJOR", file.display()))?;
    let source = scratch.join(format!("pjrt-{release}.c"));
    fs::write(&source, format!("{PRELUDE}#include \"{header_path}\"\n"))
        .map_err(|e| format!("{}: {e}", source.display()))?;
    let preprocessed = output(
        Command::new("gcc")
            .args(["-E", "-P", "-x", "c", "-I"])
            .arg(include)
            .arg(&source),
    )?;
    let header = parse(&preprocessed)?;

    // The dump: enums' size and signedness, the enumerators of PJRT_Extension_Type, each
    // struct's sizeof and *_STRUCT_SIZE, each member's offset and size.
    let mut c = format!(
        "{PRELUDE}#include \"{header_path}\"\n#include <stdio.h>\n#include <stddef.h>\n\
         #define SIGNED(T) ((T)-1 < (T)0)\nint main(void) {{\n"
    );
    for (name, enumerators) in &header.enums {
        let _ = writeln!(
            c,
            "  printf(\"enum {name} %zu %d\\n\", sizeof({name}), SIGNED({name}));"
        );
        if name == "PJRT_Extension_Type" {
            for e in enumerators {
                let _ = writeln!(c, "  printf(\"enumerator {e} %d\\n\", (int){e});");
            }
        }
    }
    for (name, members) in &header.structs {
        let size = if header.traits.contains(name) {
            format!("(size_t){name}_STRUCT_SIZE")
        } else {
            "(size_t)0".to_string()
        };
        let _ = writeln!(
            c,
            "  printf(\"struct {name} %zu %zu\\n\", sizeof({name}), {size});"
        );
        for m in members {
            let fields: Vec<&Decl> = if m.union_of.is_empty() {
                vec![m]
            } else {
                m.union_of.iter().collect()
            };
            for f in fields {
                let _ = writeln!(
                    c,
                    "  printf(\"member {} %zu %zu\\n\", offsetof({name}, {}), sizeof((({name}*)0)->{}));",
                    m.name, f.name, f.name
                );
            }
        }
    }
    c.push_str("  return 0;\n}\n");
    let c_path = scratch.join(format!("pjrt-dump-{release}.c"));
    fs::write(&c_path, c).map_err(|e| format!("{}: {e}", c_path.display()))?;
    let exe = scratch.join(format!("pjrt-dump-{release}"));
    let status = Command::new("gcc")
        .args(["-std=gnu11", "-w", "-I"])
        .arg(include)
        .arg(&c_path)
        .arg("-o")
        .arg(&exe)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("gcc: {e}"))?;
    if !status.success() {
        return Err(format!("{release}: the PJRT layout dump did not compile"));
    }
    let dump = output(&mut Command::new(&exe))?;

    let mut enums = BTreeMap::new();
    let mut extension_types = Vec::new();
    let mut sizes: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut numbers: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
    let mut current = String::new();
    for line in dump.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| w.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        match w.first() {
            Some(&"enum") => {
                let repr = format!("{}{}", if n(3) == 1 { "i" } else { "u" }, n(2) * 8);
                enums.insert(w[1].to_string(), repr);
            }
            Some(&"enumerator") => extension_types.push(json!([w[1], n(2)])),
            Some(&"struct") => {
                current = w[1].to_string();
                sizes.insert(current.clone(), (n(2), n(3)));
            }
            Some(&"member") => {
                // A union's size is its largest member's.
                let e = numbers
                    .entry((current.clone(), w[1].to_string()))
                    .or_insert((n(2), 0));
                e.1 = e.1.max(n(3));
            }
            _ => {}
        }
    }

    let mut structs = Vec::new();
    for (name, members) in &header.structs {
        let (sizeof, struct_size) = sizes[name];
        let mut rows = Vec::new();
        for m in members {
            let (offset, size) = numbers[&(name.clone(), m.name.clone())];
            let (c_type, rust) = if !m.union_of.is_empty() {
                let inner: Vec<String> = m
                    .union_of
                    .iter()
                    .map(|f| format!("{} {}", f.ty.join(" "), f.name))
                    .collect();
                let c_type = if m.ty == ["array"] {
                    inner.join("")
                } else {
                    format!("union {{ {}; }}", inner.join("; "))
                };
                (c_type, format!("Blob<{size}>"))
            } else if let Some(f) = &m.inline_fn {
                (m.ty.join(" ") + " (*)(...)", fn_type(f, &header, &enums)?)
            } else {
                let c_type = m.ty.join(" ").replace(" *", "*");
                let base: Vec<&String> = m.ty.iter().filter(|w| *w != "const").collect();
                let by_value_struct =
                    base.len() == 1 && header.structs.iter().any(|(s, _)| s == base[0]);
                let rust = if by_value_struct {
                    format!("Blob<{size}>")
                } else {
                    rust_type(&m.ty, &header, &enums)
                        .map_err(|e| format!("{name}.{}: {e}", m.name))?
                };
                (c_type, rust)
            };
            rows.push(json!({
                "name": m.name, "offset": offset, "size": size, "c": c_type, "rust": rust,
            }));
        }
        // A struct that starts with `struct_size` but has no `*_STRUCT_SIZE` (`PJRT_Api` before
        // 0.54): the end of its last member, what `PJRT_STRUCT_SIZE` would give.
        let derived = !header.traits.contains(name)
            && rows.first().is_some_and(|m| m["name"] == "struct_size");
        let struct_size = if header.traits.contains(name) {
            Some(struct_size)
        } else if derived {
            rows.last()
                .and_then(|m| Some(m["offset"].as_u64()? + m["size"].as_u64()?))
        } else {
            None
        };
        structs.push(json!({
            "name": name,
            "sizeof": sizeof,
            "struct_size": struct_size,
            "struct_size_derived": derived,
            "members": rows,
        }));
    }
    Ok(json!({
        "tensorflow": release,
        "header": header_path,
        "pjrt_api_version": [major, minor],
        "extension_types": extension_types,
        "structs": structs,
    }))
}
