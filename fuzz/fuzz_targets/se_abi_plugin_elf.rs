//! `se-abi plugin-check`'s ELF reader on arbitrary bytes: loading facts or a typed error, never a
//! panic; and the facts it returns are consistent (no empty names, exports sorted by name, every
//! versioned import's version one the file requires).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use se_abi::plugin::ElfInfo;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(info) = ElfInfo::parse(Path::new("fuzz.so"), bytes) {
        assert!(info.imports.iter().all(|i| !i.name.is_empty()));
        assert!(info.exports.iter().all(|e| !e.name.is_empty()));
        assert!(info.exports.windows(2).all(|w| w[0].name <= w[1].name));
        let required = |v: &se_abi::plugin::SymbolVersion| {
            info.version_needs
                .iter()
                .flat_map(|n| &n.versions)
                .any(|(w, _)| w == v)
                || info.version_definitions.contains(v)
        };
        assert!(info.imports.iter().filter_map(|i| i.version.as_ref()).all(required));
    }
});
