//! `se_abi::plugin::ElfInfo` reads a library as the dynamic loader does: through its program
//! headers. Section headers stripped, or nonsense, change nothing; damaged bytes give an error,
//! never a panic.

use std::path::Path;

use se_abi::plugin::{ElfInfo, SymbolVersion};

use crate::probes::{strip_section_headers, variants};

fn read(path: &Path) -> ElfInfo {
    ElfInfo::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What every answer holds, whatever the bytes (the fuzz target's checks): no empty names,
/// exports sorted by name, and each versioned import's version one the file needs or defines.
fn assert_consistent(info: &ElfInfo, what: &str) {
    assert!(info.imports.iter().all(|i| !i.name.is_empty()), "{what}");
    assert!(info.exports.iter().all(|e| !e.name.is_empty()), "{what}");
    assert!(
        info.exports.windows(2).all(|w| w[0].name <= w[1].name),
        "{what}"
    );
    let known = |v: &SymbolVersion| {
        info.version_needs
            .iter()
            .flat_map(|n| &n.versions)
            .any(|(w, _)| w == v)
            || info.version_definitions.contains(v)
    };
    for import in &info.imports {
        if let Some(version) = &import.version {
            assert!(
                known(version),
                "{what}: {import:?} has a version the file never names"
            );
        }
    }
}

#[test]
fn imports_carry_their_versions_and_come_in_relocation_order() {
    let info = read(&variants()["imports-versioned"]);
    let import = info
        .imports
        .iter()
        .find(|i| i.name == "_ZN10tensorflow8internal15LogMessageFatalD1Ev")
        .expect("the versioned import");
    assert_eq!(
        import.version,
        Some(SymbolVersion("tensorflow".to_string()))
    );
    assert!(!import.weak);
    let needs: Vec<(&str, Vec<&str>)> = info
        .version_needs
        .iter()
        .map(|n| {
            (
                n.file.as_str(),
                n.versions.iter().map(|(v, _)| v.0.as_str()).collect(),
            )
        })
        .collect();
    assert!(
        needs.contains(&("_pywrap_tensorflow_internal.so", vec!["tensorflow"])),
        "{needs:?}"
    );
    assert_eq!(
        info.needed[..2],
        ["libtf_probe.so", "_pywrap_tensorflow_internal.so"]
    );
    assert_eq!(info.runpath, ["$ORIGIN"]);
    // The probe's exports are sorted, and hold its entry point.
    let probe = read(&variants()["probe"]);
    assert!(probe.exports.windows(2).all(|w| w[0].name <= w[1].name));
    assert!(probe.exports.iter().any(|e| e.name == "SE_InitPlugin"));
}

#[test]
fn section_headers_stripped_or_wild_change_nothing() {
    let original = read(&variants()["missing"]);
    assert!(
        original
            .needed
            .contains(&"libse_abi_missing.so".to_string())
    );
    let stripped = read(&variants()["missing-stripped"]);
    assert_eq!(original, stripped);
    // A huge e_shnum and an e_shoff past the end of the file: dlopen ignores both.
    let mut bytes = std::fs::read(&variants()["missing"]).unwrap();
    bytes[0x28..0x30].copy_from_slice(&(1u64 << 62).to_le_bytes());
    bytes[0x3c..0x3e].copy_from_slice(&u16::MAX.to_le_bytes());
    let wild = ElfInfo::parse(Path::new("wild.so"), &bytes).expect("read as the loader reads it");
    assert_eq!(original, wild);
    let dir = variants()["missing"].parent().unwrap().join("elf-test");
    std::fs::create_dir_all(&dir).unwrap();
    strip_section_headers(&variants()["imports-versioned"], &dir.join("stripped.so"));
    assert_eq!(
        read(&variants()["imports-versioned"]),
        read(&dir.join("stripped.so"))
    );
}

#[test]
fn every_truncation_and_many_corruptions_give_an_answer_or_an_error() {
    let bytes = std::fs::read(&variants()["imports-versioned"]).unwrap();
    let path = Path::new("damaged.so");
    // Every prefix up to the end of the dynamic tables, then every 97th.
    for end in (0..4096.min(bytes.len())).chain((4096..bytes.len()).step_by(97)) {
        let _ = ElfInfo::parse(path, &bytes[..end]);
    }
    // Each byte of the headers and dynamic tables set to 0xff in turn.
    for at in 0..4096.min(bytes.len()) {
        let mut damaged = bytes.clone();
        damaged[at] = 0xff;
        if let Ok(info) = ElfInfo::parse(path, &damaged) {
            assert_consistent(&info, &format!("byte {at} set to 0xff"));
        }
    }
}

/// The fuzz target's findings (tests/data/findings/): an import whose version index only the
/// base definition carries is looked up unversioned, as glibc does (the base name "should not
/// be available for matching a versioned symbol", elf/dl-version.c).
#[test]
fn fuzz_findings_stay_consistent() {
    let dir = crate::common::data("findings");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let info =
            ElfInfo::parse(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_consistent(&info, &path.display().to_string());
        read += 1;
    }
    assert!(read >= 2, "the findings are missing from {}", dir.display());
}

/// The file offset of the section named `name`, read from the section headers (the probe has
/// them; the reader under test never looks at them).
fn section_offset(bytes: &[u8], name: &str) -> usize {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap()));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |index: usize| shoff + index * shentsize;
    let names = u64_at(header(shstrndx) + 0x18);
    (0..shnum)
        .find(|&i| {
            let at = names + u32_at(header(i));
            bytes[at..].starts_with(name.as_bytes()) && bytes[at + name.len()] == 0
        })
        .map(|i| u64_at(header(i) + 0x18))
        .unwrap_or_else(|| panic!("no section {name}"))
}

/// glibc walks a version requirement's entries by `vna_next` and never reads `vn_cnt`
/// (`_dl_check_map_versions`, elf/dl-version.c): a count of 0 changes nothing it requires.
#[test]
fn version_requirements_follow_the_chain_not_the_count() {
    let original = read(&variants()["imports-versioned"]);
    let mut bytes = std::fs::read(&variants()["imports-versioned"]).unwrap();
    let mut at = section_offset(&bytes, ".gnu.version_r");
    let mut zeroed = 0;
    loop {
        bytes[at + 2..at + 4].fill(0); // vn_cnt
        zeroed += 1;
        let next = u32::from_le_bytes(bytes[at + 12..at + 16].try_into().unwrap()) as usize;
        if next == 0 {
            break;
        }
        at += next;
    }
    assert!(
        zeroed >= 2,
        "the probe needs versions of libc and of TensorFlow"
    );
    let counted_out = ElfInfo::parse(Path::new("no-counts.so"), &bytes).unwrap();
    assert_eq!(original, counted_out);
    assert!(
        original
            .version_needs
            .iter()
            .any(|n| n.versions.iter().any(|(v, _)| v.0 == "tensorflow"))
    );
}
