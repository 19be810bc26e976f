//! The check end to end: nested Cargo builds of the repository's declarations, and of edits of
//! them in a scratch copy of se-abi; and the test helpers the modules' tests share.

use super::*;

use std::fs;
use std::path::PathBuf;
use std::sync::Mutex;

/// The nested Cargo builds use a target directory of their own (the one running the tests is
/// locked by the test run), shared by every scratch copy so that se-abi's dependencies are
/// built once. One build at a time: the copies' paths differ, so Cargo keeps their
/// fingerprints apart, but their artifacts have the same names.
static CARGO_LOCK: Mutex<()> = Mutex::new(());

/// `target/<profile>/abi-check/scratch`, beside this test binary's `deps/`.
fn nested_cargo() -> Command {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let mut command = Command::new(cargo());
    command
        .env(
            "CARGO_TARGET_DIR",
            profile_dir.join("abi-check").join("scratch"),
        )
        .env_remove("RUSTFLAGS");
    command
}

pub(super) fn workspace_root() -> PathBuf {
    crate::workspace_root()
}

/// The check, run as a test: the repository's declarations agree with its snapshots (in a
/// copy of it, see [`Scratch`]; `.ci/run` also runs `cargo xtask abi-check` on the tree).
#[test]
fn the_repository_agrees_with_its_snapshots() {
    let _guard = CARGO_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    Scratch::new().check(Mode::Check).unwrap();
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

    fn check(&self, mode: Mode) -> Result<(), String> {
        let mut cargo = nested_cargo();
        cargo.env("CARGO_NET_OFFLINE", "true");
        run_with(self.dir.path(), mode, &cargo)
    }
}

/// Same-size retypes that keep every declared type's text: through an alias (`TF_Bool` from
/// `u8` to `i8`), an enum's underlying integer (`SE_EventStatus` from `c_uint` to `c_int`),
/// and inside `SP_AllocatorStats` (`i64` to `u64`). Each compiles, and the check fails naming
/// the members each changes. The three are independent, so one build checks them all.
#[test]
fn alias_enum_and_allocator_stats_retypes_are_caught() {
    let _guard = CARGO_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = Scratch::new();
    scratch.edit(
        "src/tensorflow.rs",
        "pub type TF_Bool = u8;",
        "pub type TF_Bool = i8;",
    );
    scratch.edit(
        "src/tensorflow.rs",
        "pub struct SE_EventStatus(pub c_uint);",
        "pub struct SE_EventStatus(pub i32);",
    );
    scratch.edit(
        "src/tensorflow.rs",
        "repr: &<c_uint as crate::CType>::SHAPE",
        "repr: &<i32 as crate::CType>::SHAPE",
    );
    scratch.edit(
        "src/generated/tensorflow.rs",
        "num_allocs: i64",
        "num_allocs: u64",
    );
    let err = scratch.check(Mode::Check).unwrap_err();
    for want in [
        "struct `SP_Platform` (src/generated/tensorflow), member `supports_unified_memory`: type \
         changed from `u8` to `i8` (still spelled `TF_Bool`: an alias changed underneath)",
        "struct `SP_StreamExecutor` (src/generated/tensorflow), member `host_callback`: type \
         changed from",
        "struct `SP_StreamExecutor` (src/generated/tensorflow), member `get_event_status`: type \
         changed from `fn(*const struct SP_Device, *mut struct SP_Event_st) -> enum \
         SE_EventStatus: u32` to `fn(*const struct SP_Device, *mut struct SP_Event_st) -> enum \
         SE_EventStatus: i32`",
        "struct `SP_AllocatorStats` (src/generated/tensorflow), member `num_allocs`: type changed \
         from `i64` to `u64` (declared `u64`, was `i64`)",
    ] {
        assert!(err.contains(want), "want {want:?} in:\n{err}");
    }
}

/// Edits of the seed's `SE_Device` v5 in a scratch copy, each of which compiles (the layout
/// lock lets it through): the breaking ones fail the check naming struct and member, an
/// append with a deprecation passes, and `--bless` records a change. Edits of different members
/// share a build (each nested build takes seconds).
#[test]
fn edits_in_a_scratch_copy() {
    let _guard = CARGO_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = Scratch::new();
    let original = fs::read_to_string(scratch.versions()).unwrap();
    let reset = || fs::write(scratch.versions(), &original).unwrap();

    // Four breaking edits of four members, in one build: each is named, and counted once.
    let four: [(&str, &str, &str); 4] = [
        // A rename.
        (
            "data2: *mut c_void",
            "data_two: *mut c_void",
            "struct `SE_Device` (examples/se_device/versions/v5), member `data2`: renamed to \
             `data_two` (offset 48)",
        ),
        // A same-size type change, pointer to pointer.
        (
            "device_handle: *mut c_void",
            "device_handle: *mut u8",
            "struct `SE_Device` (examples/se_device/versions/v5), member `device_handle`: type \
             changed from `*mut void` to `*mut u8` (declared `*mut u8`, was `*mut c_void`)",
        ),
        // A same-size type change, integer to integer.
        (
            "name_len: usize",
            "name_len: i64",
            "struct `SE_Device` (examples/se_device/versions/v5), member `name_len`: type changed \
             from `u64` to `i64`",
        ),
        // A deprecated slot put back to use.
        (
            "since 3, deprecated 4, at 40..48",
            "since 3, at 40..48",
            "struct `SE_Device` (examples/se_device/versions/v5), member `data`: no longer \
             deprecated",
        ),
    ];
    for (from, to, _) in four {
        scratch.edit_v5(from, to);
    }
    let err = scratch.check(Mode::Check).unwrap_err();
    for (_, _, want) in four {
        assert!(err.contains(want), "want {want:?} in:\n{err}");
    }
    assert!(err.contains("4 breaking change(s)"), "{err}");

    // A reorder that keeps every offset the lock knows (both members are 8 bytes) moves two.
    reset();
    scratch.edit_v5(
        "name: *const c_char = nonzero(since 1, at 16..24),",
        "name_len: usize = value(since 1, at 16..24),",
    );
    scratch.edit_v5(
        "name_len: usize = value(since 1, at 24..32),",
        "name: *const c_char = nonzero(since 1, at 24..32),",
    );
    let err = scratch.check(Mode::Check).unwrap_err();
    let want = "struct `SE_Device` (examples/se_device/versions/v5), member `name`: moved from \
                position 2 (offset 16) to position 3 (offset 24)";
    assert!(err.contains(want), "want {want:?} in:\n{err}");
    assert!(err.contains("2 breaking change(s)"), "{err}");

    // An append and a deprecation, in one new version, are accepted.
    reset();
    scratch.edit_v5(
        "sizes = [32, 40, 48, 48, 56]",
        "sizes = [32, 40, 48, 48, 56, 60]",
    );
    scratch.edit_v5(
        "data2: *mut c_void = nonzero(since 5, at 48..56),",
        "data2: *mut c_void = nonzero(since 5, deprecated 6, at 48..56),\n            \
         flags: i32 = value(since 6, at 56..60),",
    );
    scratch.check(Mode::Check).unwrap();

    // Recorded with --bless, the appended `flags: i32` is locked in turn: `u32` is refused, and
    // it is the only change the check finds against the new snapshot.
    scratch.check(Mode::Bless).unwrap();
    let snapshot = scratch
        .dir
        .path()
        .join("crates/se-abi/abi/examples/se_device/versions/v5/SE_Device.json");
    assert!(fs::read_to_string(&snapshot).unwrap().contains("\"flags\""));
    scratch.edit_v5("flags: i32", "flags: u32");
    let err = scratch.check(Mode::Check).unwrap_err();
    assert!(
        err.contains(
            "struct `SE_Device` (examples/se_device/versions/v5), member `flags`: type changed \
             from `i32` to `u32`"
        ),
        "{err}"
    );
    assert!(err.contains("1 breaking change(s)"), "{err}");
}
