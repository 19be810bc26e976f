//! Each crate's `lib.rs` carries a module map for contributors: a table of every file under
//! `src/` (the generated code and the command-line tool aside) and the concept it holds. This
//! test keeps the maps true: it fails naming the files a map misses and the ones it names that
//! no longer exist.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

const CRATES: [&str; 4] = ["se-abi", "graphdef-versions", "tflite-opver", "ifrt-serdes"];

/// The files a map names: the first `` `path` `` of each `// | ` table row.
fn mapped(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|line| line.strip_prefix("// | `"))
        .filter_map(|row| row.split('`').next())
        .filter(|path| path.ends_with(".rs"))
        .map(str::to_string)
        .collect()
}

/// Every `.rs` file below `src`, relative to it with `/`, without `generated/` and `bin/`.
fn files(src: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if relative != "generated" && relative != "bin" {
                    pending.push(path);
                }
            } else if relative.ends_with(".rs") {
                found.insert(relative);
            }
        }
    }
    found
}

#[test]
fn every_crate_maps_every_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut wrong = Vec::new();
    for krate in CRATES {
        let src = root.join("crates").join(krate).join("src");
        let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
        let map = mapped(&lib);
        let files = files(&src);
        let missing: Vec<&String> = files.difference(&map).collect();
        let gone: Vec<&String> = map.difference(&files).collect();
        if !missing.is_empty() || !gone.is_empty() {
            wrong.push(format!(
                "crates/{krate}/src/lib.rs's module map misses {missing:?} and names files that \
                 do not exist: {gone:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_map_row_names_its_file() {
    let lib =
        "// | File | Concept |\n// | `lib.rs` | root |\n// | `a/b.rs` | b |\n//! | `x.rs` |\n";
    let map = mapped(lib);
    assert_eq!(
        map.into_iter().collect::<Vec<_>>(),
        ["a/b.rs".to_string(), "lib.rs".to_string()]
    );
}
