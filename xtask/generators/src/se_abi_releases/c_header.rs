//! The small reader for the C that the StreamExecutor header uses: tokens from `gcc -E` output,
//! its structs, typedefs and enums ([`Declarations`]), each type a [`CType`], resolved through
//! the typedefs or spelled as se-abi's Rust declarations spell it.

use std::collections::BTreeMap;
use std::fmt;

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

#[cfg(test)]
mod tests {
    use super::super::SE_HEADER;
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
