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
//! **Every declared struct is found, with no list to keep**: [`discover`](discover::discover) reads
//! se-abi's `src/`, `examples/` and `tests/` (not the compile-fail cases of `ui/`, a package of
//! their own, which are meant not to compile) for `versioned_struct!` invocations at module level, and a throw-away program built
//! against se-abi (each file copied in as a module, with a function that prints its structs' member
//! tables appended) prints their layouts. A declaration inside a function body cannot be named from
//! outside; it is counted and reported, not checked.
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

mod compare;
mod discover;
mod snapshot;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::Path;
use std::process::Command;

use compare::{compare_all, tensorflow_history};
use discover::{declarations, discover};
use snapshot::{read_snapshots, write_snapshots};

/// Where the snapshots live, relative to the workspace root.
pub const SNAPSHOT_DIR: &str = "crates/se-abi/abi";

/// The crate whose declarations are checked, relative to the workspace root.
pub const CRATE_DIR: &str = "crates/se-abi";

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
    /// The declared type, whitespace-normalized (see [`normalize_type`](compare::normalize_type)).
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
