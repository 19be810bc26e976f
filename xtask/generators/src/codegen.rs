//! `cargo xtask codegen [--check]`: schemas in `proto/` to committed Rust in `src/generated/`.
//!
//! Everything runs in this process, in Rust: `protox` compiles `.proto` files to a descriptor
//! set, `prost-build` turns the descriptor set into Rust, and planus turns FlatBuffers `.fbs`
//! schemas into Rust. No `protoc`, `flatc` or other system binary is involved.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::generated::{Files, MARK, facts_header, schema_header};

/// Which schema folder feeds which crate. This table is the whole configuration of codegen.
const TARGETS: &[Target] = &[
    Target {
        schema_dir: "proto/graphdef",
        crate_dir: "crates/graphdef-versions",
        kind: SchemaKind::Protobuf,
        extra: Some(crate::tf_releases::generate),
    },
    Target {
        schema_dir: "proto/ifrt",
        crate_dir: "crates/ifrt-serdes",
        kind: SchemaKind::Protobuf,
        extra: Some(crate::ifrt_jaxlib_releases::generate),
    },
    Target {
        schema_dir: "proto/tflite",
        crate_dir: "crates/tflite-opver",
        kind: SchemaKind::FlatBuffers,
        extra: Some(crate::tflite_runtimes::generate),
    },
    // se-abi has no wire schema: its generated code comes from TensorFlow's release facts alone.
    Target {
        schema_dir: "crates/se-abi/releases",
        crate_dir: "crates/se-abi",
        kind: SchemaKind::Facts {
            command: "se-abi-releases",
        },
        extra: Some(crate::se_abi_releases::generate),
    },
];

struct Target {
    /// Folder of schemas, relative to the workspace root; also the protobuf include path.
    schema_dir: &'static str,
    /// The crate whose `src/generated/` receives the output.
    crate_dir: &'static str,
    kind: SchemaKind,
    /// More generated files for the same crate, from source data other than a schema: the
    /// module's name and its files.
    extra: Option<Extra>,
}

/// Generates a module of its own beside the schema's: `(module name, files)`.
type Extra = fn(&Path) -> Result<(&'static str, Files), String>;

#[derive(Clone, Copy)]
enum SchemaKind {
    /// Every `*.proto` below `schema_dir`; one Rust file per protobuf package.
    Protobuf,
    /// Every `*.fbs` below `schema_dir`; one Rust file per schema file.
    FlatBuffers,
    /// No schema: `extra` generates every file from the release facts in `schema_dir`, which
    /// `cargo xtask <command>` makes.
    Facts { command: &'static str },
}

/// Write the generated files, or only compare them with what is committed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Write,
    Check,
}

/// Regenerates every target. In [`Mode::Check`] nothing is written and the error names every
/// file that is stale, missing, or no longer generated.
pub fn run(root: &Path, mode: Mode) -> Result<(), String> {
    let mut stale = Vec::new();
    // What was compared, for the success line of `--check`: each output folder and its files.
    let mut checked = Vec::new();
    for target in TARGETS {
        let schema_dir = root.join(target.schema_dir);
        let schemas = match target.kind {
            SchemaKind::Facts { .. } => vec![schema_dir.clone()],
            _ => find_files(&schema_dir, target.kind.extension())?,
        };
        // A missing schema folder is a broken checkout (or a wrong root), never "nothing to
        // generate": `--check` must not pass by reading nothing.
        if schemas.is_empty() {
            return Err(format!(
                "no .{} schema in {}: is this the workspace root?",
                target.kind.extension(),
                schema_dir.display()
            ));
        }
        let files = match target.kind {
            SchemaKind::Protobuf => {
                generate_protobuf(root, target.schema_dir, &schema_dir, &schemas, target.extra)?
            }
            SchemaKind::FlatBuffers => {
                generate_flatbuffers(root, target.schema_dir, &schema_dir, &schemas, target.extra)?
            }
            SchemaKind::Facts { command } => {
                generate_facts(root, target.schema_dir, command, target.extra)?
            }
        };
        let out_dir = root.join(target.crate_dir).join("src/generated");
        stale.extend(sync(&out_dir, &files, mode)?);
        let source = match target.kind {
            SchemaKind::Facts { .. } => format!("the facts in {}", target.schema_dir),
            kind => format!(
                "{} .{} file{} in {}",
                schemas.len(),
                kind.extension(),
                if schemas.len() == 1 { "" } else { "s" },
                target.schema_dir
            ),
        };
        checked.push(format!(
            "{}/src/generated: {} files, from {source}",
            target.crate_dir,
            files.len(),
        ));
    }
    let stale: Vec<String> = stale
        .iter()
        .map(|path| {
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        })
        .collect();
    match mode {
        Mode::Write => {
            for path in &stale {
                println!("wrote {path}");
            }
            Ok(())
        }
        Mode::Check if stale.is_empty() => {
            println!("generated code is fresh:");
            for line in &checked {
                println!("  {line}");
            }
            Ok(())
        }
        Mode::Check => Err(format!(
            "generated code is stale; run `cargo xtask codegen` and commit the result:\n  {}",
            stale.join("\n  ")
        )),
    }
}

impl SchemaKind {
    fn extension(self) -> &'static str {
        match self {
            SchemaKind::Protobuf => "proto",
            SchemaKind::FlatBuffers => "fbs",
            SchemaKind::Facts { .. } => "facts",
        }
    }
}

fn generate_protobuf(
    root: &Path,
    source: &str,
    schema_dir: &Path,
    schemas: &[PathBuf],
    extra: Option<Extra>,
) -> Result<Files, String> {
    let descriptors = protox::compile(schemas, [schema_dir]).map_err(|e| {
        format!(
            "cannot compile the .proto files in {}: {e:?}",
            schema_dir.display()
        )
    })?;
    // prost-build writes to a directory, not to memory.
    let tmp = tempfile::Builder::new()
        .prefix("xtask-codegen-prost-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    prost_build::Config::new()
        .out_dir(tmp.path())
        .compile_fds(descriptors)
        .map_err(|e| format!("prost-build failed: {e}"))?;

    // prost-build writes `<package>.rs` per package; modules nest by the package's dots.
    let mut packages = BTreeMap::new();
    for path in find_files(tmp.path(), "rs")? {
        let name = file_name(&path);
        let code = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        packages.insert(name, code);
    }
    let mut files = Files::new();
    let mut tree = ModTree::default();
    for (name, code) in packages {
        let package = name.trim_end_matches(".rs");
        tree.insert(package.split('.'), name.clone());
        files.insert(
            name,
            format!("{}\n{code}", schema_header(source)).into_bytes(),
        );
    }
    if let Some(extra) = extra {
        let (module, extra_files) = extra(root)?;
        tree.insert(std::iter::once(module), format!("{module}.rs"));
        files.extend(extra_files);
    }
    files.insert(
        "mod.rs".to_string(),
        mod_file(source, extra.is_some(), &tree.render(0)).into_bytes(),
    );
    Ok(files)
}

fn generate_facts(
    root: &Path,
    source: &str,
    command: &str,
    extra: Option<Extra>,
) -> Result<Files, String> {
    let extra = extra.ok_or("a facts target needs a generator")?;
    let (_, mut files) = extra(root)?;
    // One module per generated Rust file (se-abi: `tensorflow`, `pjrt`).
    let mut tree = ModTree::default();
    for name in files.keys() {
        if let Some(module) = name.strip_suffix(".rs") {
            tree.insert(std::iter::once(module), name.clone());
        }
    }
    let body = tree.render(0);
    let mod_rs = format!(
        "{}\n//! Code generated from the release facts in `{source}/`; the crate's own API \
         wraps it.\n\n{ALLOWS}\n// PJRT's own names (`PJRT_Api_Version_STRUCT_SIZE`, `PJRT_Client_Create`).\n\
         #![allow(nonstandard_style)]\n\n{body}",
        facts_header(source, command),
    );
    files.insert("mod.rs".to_string(), mod_rs.into_bytes());
    Ok(files)
}

fn generate_flatbuffers(
    root: &Path,
    source: &str,
    schema_dir: &Path,
    schemas: &[PathBuf],
    extra: Option<Extra>,
) -> Result<Files, String> {
    let mut files = Files::new();
    let mut tree = ModTree::default();
    for schema in schemas {
        // planus reports its own diagnostics on stderr and returns None when there are errors.
        let declarations = planus_translation::translate_files(std::slice::from_ref(schema))
            .ok_or_else(|| format!("planus cannot translate {}", schema.display()))?;
        // `format = false`: formatting would run the rustfmt binary; the generated module is
        // `#[rustfmt::skip]` in each crate instead.
        let code = planus_codegen::generate_rust(&declarations, false)
            .map_err(|e| format!("planus codegen failed for {}: {e}", schema.display()))?;
        let code = tidy_planus_output(root, &code)
            .map_err(|e| format!("planus output for {}: {e}", schema.display()))?;
        let relative = schema.strip_prefix(schema_dir).unwrap_or(schema);
        let module = relative
            .with_extension("")
            .to_string_lossy()
            .replace(['/', '\\', '-', '.'], "_");
        let name = format!("{module}.rs");
        tree.insert(std::iter::once(module.as_str()), name.clone());
        files.insert(
            name,
            format!("{}\n{code}", schema_header(source)).into_bytes(),
        );
    }
    if let Some(extra) = extra {
        let (module, extra_files) = extra(root)?;
        tree.insert(std::iter::once(module), format!("{module}.rs"));
        files.extend(extra_files);
    }
    files.insert(
        "mod.rs".to_string(),
        mod_file(source, extra.is_some(), &tree.render(0)).into_bytes(),
    );
    Ok(files)
}

/// The two things planus 1.3 writes that a committed, checkout-independent module cannot keep.
///
/// - It always derives `serde::Serialize` / `serde::Deserialize` on the owned types, with no
///   option to turn it off; the crates do not depend on serde, so the derives are removed (the
///   derive lists accept the trailing comma this leaves). Any other mention of serde means the
///   planus templates changed, and codegen stops rather than emit code that does not build.
/// - Its doc comments name the schema file by the path it was given; paths are made relative to
///   the workspace root so the output is the same in every checkout.
fn tidy_planus_output(root: &Path, code: &str) -> Result<String, String> {
    const SERDE_DERIVES: &str = "::serde::Serialize, ::serde::Deserialize";
    let code = code.replace(SERDE_DERIVES, "");
    if code.contains("serde") {
        return Err(
            "planus now mentions serde in a form this xtask does not know how to \
                    remove; update `tidy_planus_output`"
                .to_string(),
        );
    }
    let root_prefix = format!("{}{}", root.display(), std::path::MAIN_SEPARATOR);
    Ok(code.replace(&root_prefix, ""))
}

/// The module tree of `mod.rs`: nested `pub mod` blocks whose leaves `include!` a file.
#[derive(Default)]
struct ModTree {
    file: Option<String>,
    children: BTreeMap<String, ModTree>,
}

impl ModTree {
    fn insert<'a>(&mut self, mut path: impl Iterator<Item = &'a str>, file: String) {
        match path.next() {
            Some(segment) => self
                .children
                .entry(segment.to_string())
                .or_default()
                .insert(path, file),
            None => self.file = Some(file),
        }
    }

    fn render(&self, depth: usize) -> String {
        let indent = "    ".repeat(depth);
        let mut out = String::new();
        if let Some(file) = &self.file {
            out.push_str(&format!("{indent}include!(\"{file}\");\n"));
        }
        for (name, child) in &self.children {
            out.push_str(&format!("{indent}pub mod {name} {{\n"));
            out.push_str(&child.render(depth + 1));
            out.push_str(&format!("{indent}}}\n"));
        }
        out
    }
}

/// What every generated `mod.rs` allows: generated code is not held to the crates' lints.
const ALLOWS: &str =
    "#![allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic, rustdoc::all)]";

/// The `mod.rs` of a schema target (`schema_dir`), whose modules may include a facts module.
fn mod_file(schema_dir: &str, with_facts: bool, body: &str) -> String {
    let also = if with_facts {
        " and TensorFlow's release facts (each file's header names its source)"
    } else {
        ""
    };
    format!(
        "{}\n//! Code generated from the schemas in `{schema_dir}/`{also}; the crate's own API \
         wraps it.\n\n{ALLOWS}\n\n{body}",
        schema_header(schema_dir)
    )
}

/// Brings `out_dir` in line with `files`, or in [`Mode::Check`] only reports. Returns the paths
/// that differ: changed, missing, or generated files that no schema produces any more.
fn sync(out_dir: &Path, files: &Files, mode: Mode) -> Result<Vec<PathBuf>, String> {
    let mut differing = Vec::new();
    for (name, contents) in files {
        let path = out_dir.join(name);
        // A checkout with CRLF line endings (Windows, `core.autocrlf`) holds the same code;
        // `.gitattributes` asks Git for LF, and the comparison forgives CR LF regardless.
        let committed = fs::read(&path).ok().map(|bytes| {
            if name.ends_with(".rs") {
                without_cr_before_lf(&bytes)
            } else {
                bytes
            }
        });
        if committed.as_deref() != Some(contents.as_slice()) {
            if mode == Mode::Write {
                fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
                fs::write(&path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            differing.push(path);
        }
    }
    // A generated file that nothing generates any more is stale too: a `.rs` file that starts
    // with the header, and any data file (`.bin`: only codegen writes those here).
    if out_dir.is_dir() {
        for path in find_files(out_dir, "bin")? {
            if !files.contains_key(&file_name(&path)) {
                if mode == Mode::Write {
                    fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                }
                differing.push(path);
            }
        }
        for path in find_files(out_dir, "rs")? {
            let generated = fs::read_to_string(&path)
                .map(|s| s.starts_with(MARK))
                .unwrap_or(false);
            if generated && !files.contains_key(&file_name(&path)) {
                if mode == Mode::Write {
                    fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                }
                differing.push(path);
            }
        }
    }
    Ok(differing)
}

/// `bytes` with every CR LF turned into LF.
fn without_cr_before_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &byte) in bytes.iter().enumerate() {
        if !(byte == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            out.push(byte);
        }
    }
    out
}

/// Files with `extension` below `dir`, sorted, so output never depends on directory order.
fn find_files(dir: &Path, extension: &str) -> Result<Vec<PathBuf>, String> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        if entry.file_type().is_file() && path.extension().is_some_and(|ext| ext == extension) {
            found.push(path.to_path_buf());
        }
    }
    Ok(found)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test` fails, naming the file, when committed generated code is stale.
    #[test]
    fn committed_generated_code_is_fresh() {
        let root = crate::workspace_root();
        if let Err(message) = run(&root, Mode::Check) {
            panic!("{message}");
        }
    }

    #[test]
    fn check_names_a_stale_file_and_write_repairs_it() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("generated");
        let header = schema_header("proto/example");
        let mut files = Files::new();
        files.insert("a.rs".into(), format!("{header}\nstruct A;\n").into_bytes());
        files.insert(
            "mod.rs".into(),
            mod_file("proto/example", false, "include!(\"a.rs\");\n").into_bytes(),
        );

        // Nothing committed yet: both files are reported, nothing is written.
        let stale = sync(&out, &files, Mode::Check).unwrap();
        assert_eq!(stale.len(), 2);
        assert!(!out.exists());

        sync(&out, &files, Mode::Write).unwrap();
        assert!(sync(&out, &files, Mode::Check).unwrap().is_empty());

        // A hand edit is caught, by name.
        fs::write(out.join("a.rs"), format!("{header}\nstruct B;\n")).unwrap();
        let stale = sync(&out, &files, Mode::Check).unwrap();
        assert_eq!(stale, vec![out.join("a.rs")]);

        // A generated file whose schema is gone is stale; a hand-written file is left alone.
        fs::write(out.join("old.rs"), format!("{header}\nstruct Old;\n")).unwrap();
        fs::write(out.join("notes.rs"), "// hand-written\n").unwrap();
        sync(&out, &files, Mode::Write).unwrap();
        assert!(!out.join("old.rs").exists());
        assert!(out.join("notes.rs").exists());
        assert!(sync(&out, &files, Mode::Check).unwrap().is_empty());

        // A CRLF checkout of the same code is fresh; a real change in it is still stale.
        let crlf = String::from_utf8(files["a.rs"].clone())
            .unwrap()
            .replace('\n', "\r\n");
        fs::write(out.join("a.rs"), crlf).unwrap();
        assert!(sync(&out, &files, Mode::Check).unwrap().is_empty());
        fs::write(out.join("a.rs"), format!("{header}\r\nstruct B;\r\n")).unwrap();
        assert_eq!(
            sync(&out, &files, Mode::Check).unwrap(),
            vec![out.join("a.rs")]
        );
    }

    #[test]
    fn planus_output_loses_serde_derives_and_absolute_paths() {
        let root = Path::new("/some/checkout");
        let raw = "/// in the file `/some/checkout/proto/tflite/schema.fbs:19`\n\
                   #[derive(Clone, Debug, PartialEq,\n::serde::Serialize, ::serde::Deserialize\n)]\n\
                   pub struct T {}\n";
        let tidy = tidy_planus_output(root, raw).unwrap();
        assert_eq!(
            tidy,
            "/// in the file `proto/tflite/schema.fbs:19`\n\
             #[derive(Clone, Debug, PartialEq,\n\n)]\npub struct T {}\n"
        );
        assert!(tidy_planus_output(root, "#[serde(rename = \"x\")]").is_err());
    }

    #[test]
    fn protobuf_packages_nest_as_modules() {
        let mut tree = ModTree::default();
        tree.insert("xla.ifrt".split('.'), "xla.ifrt.rs".into());
        tree.insert("tensorflow".split('.'), "tensorflow.rs".into());
        assert_eq!(
            tree.render(0),
            "pub mod tensorflow {\n    include!(\"tensorflow.rs\");\n}\n\
             pub mod xla {\n    pub mod ifrt {\n        include!(\"xla.ifrt.rs\");\n    }\n}\n"
        );
    }
}
