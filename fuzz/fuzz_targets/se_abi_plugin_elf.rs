//! `se-abi plugin-check`'s ELF reader on arbitrary bytes: loading facts or a typed error, never a
//! panic; and the facts it returns are consistent (no empty names).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use se_abi::plugin::ElfInfo;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(info) = ElfInfo::parse(Path::new("fuzz.so"), bytes) {
        assert!(info.imports.iter().all(|i| !i.name.is_empty()));
        assert!(info.exports.iter().all(|e| !e.is_empty()));
    }
});
