//! `cargo xtask demo`: the main job. Runs each crate's `examples/tour.rs` in turn.
//!
//! Each crate declares its tour as the example target `<crate>-tour`, so the four tours do not
//! overwrite each other in the shared target directory. The tours are built first, in one cargo
//! call whose progress shows (on a cold machine that build is most of the demo's time), then run
//! one after the other.

use std::path::Path;
use std::process::Command;

/// The crates whose tours the demo runs, in the order a reader meets the schemes.
const CRATES: &[&str] = &["se-abi", "graphdef-versions", "tflite-opver", "ifrt-serdes"];

pub fn run(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let (present, missing): (Vec<&str>, Vec<&str>) = CRATES.iter().partition(|krate| {
        root.join("crates")
            .join(krate)
            .join("examples/tour.rs")
            .is_file()
    });
    println!("tours written: {}", present.join(", "));
    if !missing.is_empty() {
        println!("tours not yet written: {}", missing.join(", "));
    }
    println!("building the tours (the first build on a cold machine takes a few minutes)");
    let mut build = Command::new(&cargo);
    build.current_dir(root).arg("build");
    for krate in &present {
        build.args(["--package", krate]);
    }
    for krate in &present {
        build.arg("--example").arg(format!("{krate}-tour"));
    }
    run_cargo(&mut build, "the tours' build")?;
    for krate in &present {
        println!("\n==================== {krate}: examples/tour.rs ====================\n");
        let mut tour = Command::new(&cargo);
        tour.current_dir(root)
            .args(["run", "--quiet", "--package", krate, "--example"])
            .arg(format!("{krate}-tour"));
        run_cargo(&mut tour, &format!("the tour of {krate}"))?;
    }
    Ok(())
}

fn run_cargo(command: &mut Command, what: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}
