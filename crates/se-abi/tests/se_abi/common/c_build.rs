//! Compiles the C plugins and hosts of `tests/c/` with the system C compiler (`$CC`, else `cc`)
//! into shared libraries, once per test process, builds the `rust_plugin` example (a `cdylib`),
//! and loads them all with `libloading` (`dlopen`).

use std::path::{Path, PathBuf};
use std::process::Command;

use libloading::Library;

/// The C sources.
pub fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("c")
}

/// Runs the C compiler (`$CC`, else `cc`) with `args`, panicking with its output on failure.
pub fn cc(args: &[String]) {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(&compiler)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{compiler}`: {e}"));
    assert!(
        output.status.success(),
        "{compiler} {args:?}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A private output directory for this test process (several may run at once).
pub fn out_dir() -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("se-abi-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the C output directory");
    dir
}

/// Compiles `source` with `defines` into the shared library `name` and loads it.
pub fn build_and_load(source: &str, name: &str, defines: &[&str]) -> Library {
    let out = out_dir().join(format!("lib{name}.so"));
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-std=c11", "-O1", "-g"])
        .args(["-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(c_dir())
        .args(defines)
        .arg(c_dir().join(source))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run the C compiler `{compiler}`: {e}. se-abi's C-interop tests build C \
                 plugins and hosts: install a C compiler (gcc or clang), or name one in $CC"
            )
        });
    assert!(
        output.status.success(),
        "compiling {source} {defines:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // SAFETY: `Library::new` runs the library's initialization routines, and unloading runs its
    // termination routines, either of which may impose arbitrary requirements (see
    // <https://docs.rs/libloading/0.9/libloading/struct.Library.html#method.new>).
    // The library is this test's own C code, built just above, with no such routines.
    unsafe { Library::new(&out) }.unwrap_or_else(|e| panic!("dlopen {}: {e}", out.display()))
}

/// Builds the crate's examples `names` (plugins: `cdylib`s) with the Cargo running the tests, in
/// its own target directory (the parent of `CARGO_TARGET_TMPDIR`), and returns the folder they
/// are in. Cargo holds that directory's lock only while it builds, not while tests run, and
/// `cargo test` builds se-abi with the features an example build asks for (the dev-dependencies'
/// `cli`), so the nested build compiles the examples alone and never rebuilds what the test run
/// built (so `RUSTFLAGS` and the `CARGO_*` settings are inherited, not cleared).
pub fn build_examples(names: &[&str]) -> PathBuf {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is <target>/tmp");
    let mut command = Command::new(env!("CARGO"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "build",
        "--quiet",
        "--offline",
        "--package",
        "se-abi",
    ]);
    for name in names {
        command.args(["--example", name]);
    }
    let output = command
        .arg("--target-dir")
        .arg(target_dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the examples {names:?}: {e}"));
    assert!(
        output.status.success(),
        "building the examples {names:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    target_dir.join("debug").join("examples")
}

/// The crate's `rust_plugin` example (a `cdylib` with no entry point), built by
/// [`build_examples`]: its path.
pub fn rust_plugin() -> PathBuf {
    build_examples(&["rust_plugin"]).join("librust_plugin.so")
}

/// Builds the crate's `rust_plugin` example and loads it.
pub fn build_and_load_rust_plugin() -> Library {
    let library = rust_plugin();
    // SAFETY: `Library::new` runs the library's initialization routines, and unloading runs its
    // termination routines, either of which may impose arbitrary requirements (see
    // <https://docs.rs/libloading/0.9/libloading/struct.Library.html#method.new>).
    // The library is this crate's own `rust_plugin` example, which has no such routines.
    unsafe { Library::new(&library) }
        .unwrap_or_else(|e| panic!("dlopen {}: {e}", library.display()))
}
