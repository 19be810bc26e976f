//! Every symbol the ten releases' libraries export, C++ included: which library of which release
//! defines a name, and at which version.
//!
//! The names themselves are not kept (eight hundred thousand of them, mostly C++, run to 90 MB):
//! `cargo xtask codegen` writes a 44-bit fingerprint of each ([`fingerprint`]) into
//! `src/generated/tensorflow_exports.bin`, grouped by the set of libraries that export it
//! (`TF_EXPORTERS`); see `xtask/generators/src/se_abi_releases/release_tables.rs` for the format. The file
//! is decoded once, on first use, into one sorted table. A name no release exports is taken for
//! an exported one only if its fingerprint equals one of theirs: with 800,000 fingerprints among
//! 2^44, about once in 20 million lookups.

use std::sync::OnceLock;
use std::vec::Vec;

use crate::tensorflow::{
    TF_EXPORT_COUNTS, TF_EXPORT_FINGERPRINTS, TF_EXPORT_VERSIONS, TF_EXPORTERS,
};

/// One library of one release that exports a name, at one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exporter {
    /// The release: its index in `TF_RELEASES`.
    pub release: usize,
    /// The library: its index in the release's `libraries`.
    pub library: usize,
    /// The version the name carries there (`None`: unversioned).
    pub version: Option<&'static str>,
    /// Whether that version is hidden (`name@V`, not the default `name@@V`).
    pub hidden: bool,
}

/// A name's fingerprint: its GNU hash (32 bits) and the low 12 bits of its SysV ELF hash, the two
/// hash functions of the ELF format (`object` computes both). `cargo xtask codegen` computes the
/// same (`release_tables.rs`).
pub(crate) fn fingerprint(name: &[u8]) -> u64 {
    (u64::from(object::elf::gnu_hash(name)) << 12) | u64::from(object::elf::hash(name) & 0xfff)
}

/// Bits of a table entry that hold the set's index (below the fingerprint).
const SET_BITS: u32 = 16;

/// The decoded table: `fingerprint << 16 | set`, sorted.
fn table() -> &'static [u64] {
    static TABLE: OnceLock<Vec<u64>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let total = TF_EXPORT_COUNTS.iter().map(|&c| c as usize).sum();
        let mut entries = Vec::with_capacity(total);
        let mut bytes = TF_EXPORT_FINGERPRINTS.iter();
        for (set, &count) in TF_EXPORT_COUNTS.iter().enumerate() {
            let mut previous = 0u64;
            for _ in 0..count {
                let mut delta = 0u64;
                let mut shift = 0;
                for &byte in bytes.by_ref() {
                    delta |= u64::from(byte & 0x7f) << shift;
                    shift += 7;
                    if byte & 0x80 == 0 {
                        break;
                    }
                }
                previous += delta;
                entries.push((previous << SET_BITS) | set as u64);
            }
        }
        entries.sort_unstable();
        entries
    })
}

/// Every library of every release that exports `name`, with its version there (none if none
/// does).
pub(crate) fn exporters(name: &str) -> impl Iterator<Item = Exporter> {
    let print = fingerprint(name.as_bytes());
    let table = table();
    let at = table.partition_point(|&entry| entry >> SET_BITS < print);
    let set: &[(u8, u8, u8)] = match table.get(at) {
        Some(&entry) if entry >> SET_BITS == print => {
            TF_EXPORTERS[(entry & ((1 << SET_BITS) - 1)) as usize]
        }
        _ => &[],
    };
    set.iter().map(|&(release, library, version)| {
        let (version, hidden) = TF_EXPORT_VERSIONS[usize::from(version)];
        Exporter {
            release: usize::from(release),
            library: usize::from(library),
            version,
            hidden,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_every_fingerprint_once() {
        let table = table();
        let total: usize = TF_EXPORT_COUNTS.iter().map(|&c| c as usize).sum();
        assert_eq!(table.len(), total);
        assert!(
            table
                .windows(2)
                .all(|w| w[0] >> SET_BITS < w[1] >> SET_BITS)
        );
    }

    #[test]
    fn known_names_are_found_where_they_are_exported() {
        // TF_NewStatus: libtensorflow_framework.so.2 of every release, unversioned.
        let framework = |e: &Exporter| {
            crate::tensorflow::TF_RELEASES[e.release].libraries[e.library].path
                == "tensorflow/libtensorflow_framework.so.2"
        };
        let found: Vec<Exporter> = exporters("TF_NewStatus").filter(framework).collect();
        assert_eq!(found.len(), 10, "{found:?}");
        assert!(found.iter().all(|e| e.version.is_none()));
        // TF_NewAsyncKernelBuilder: added in 2.13.
        let found: Vec<Exporter> = exporters("TF_NewAsyncKernelBuilder").collect();
        assert!(!found.is_empty());
        assert!(found.iter().all(|e| e.release >= 1), "{found:?}");
        // A C++ function: `tsl::internal::LogMessageFatal::~LogMessageFatal()`, exported by
        // libtensorflow_cc.so.2 at version `tensorflow` and by the framework unversioned;
        // the `tensorflow::internal` one TensorFlow 2.10 plugins import, by none.
        let found: Vec<Exporter> = exporters("_ZN3tsl8internal15LogMessageFatalD1Ev").collect();
        let path =
            |e: &Exporter| crate::tensorflow::TF_RELEASES[e.release].libraries[e.library].path;
        assert!(found.iter().any(|e| e.release == 0
            && path(e) == "tensorflow/libtensorflow_cc.so.2"
            && e.version == Some("tensorflow")
            && !e.hidden));
        assert!(
            found
                .iter()
                .any(|e| e.release == 0 && framework(e) && e.version.is_none())
        );
        assert_eq!(
            exporters("_ZN10tensorflow8internal15LogMessageFatalD1Ev").count(),
            0
        );
        assert_eq!(exporters("se_abi_no_such_symbol_anywhere").count(), 0);
    }
}
