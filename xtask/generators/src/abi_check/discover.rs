//! Finding the structs to check: every `versioned_struct!` declared at module level in se-abi's
//! sources, and the throw-away program built against se-abi that prints their layouts.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use super::compare::normalize_type;
use super::{CRATE_DIR, MemberLayout, StructLayout};

/// The folders of the crate read for declarations. The compile-fail cases, which must not
/// compile, are a package of their own (`crates/se-abi/ui/`), outside these.
const SCANNED: &[&str] = &["src", "examples", "tests"];

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

/// Every struct declared at module level in the crate's `src/`, `examples/` and `tests/`, and
/// how many declarations sit inside function bodies (not checkable).
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
            if path.extension().is_none_or(|e| e != "rs") {
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
pub(super) fn declarations(
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::abi_check::snapshot::{from_json, to_json};
    use crate::abi_check::tests::workspace_root;

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
        assert!(!groups.iter().any(|g| g.starts_with("ui/")), "{groups:?}");
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
}
