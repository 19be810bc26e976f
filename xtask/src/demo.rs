//! `cargo xtask demo`: the main job. Runs each crate's `examples/tour.rs` in turn.
//!
//! Each crate declares its tour as the example target `<crate>-tour`, so the four tours do not
//! overwrite each other in the shared target directory.

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
    for krate in &present {
        println!("\n==================== {krate}: examples/tour.rs ====================\n");
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(["run", "--quiet", "--package", krate, "--example"])
            .arg(format!("{krate}-tour"))
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("the tour of {krate} failed ({status})"));
        }
    }
    Ok(())
}
