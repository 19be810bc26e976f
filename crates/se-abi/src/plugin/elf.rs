//! What a shared library says about its own loading, read from its ELF file without loading
//! it: its soname, the libraries it needs (`DT_NEEDED`), where it looks for them (`DT_RUNPATH`,
//! else `DT_RPATH`), the symbols it exports and the ones it imports.
//!
//! Files are memory-mapped, not read: only the pages of the headers, the dynamic section and the
//! dynamic symbol table are touched (a plugin's companion libraries run to hundreds of
//! megabytes; reading them through `object`'s `ReadCache` took seconds).

use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

use object::read::elf::{Dyn as _, ElfFile64, FileHeader as _};
use object::{Object as _, ObjectSymbol as _};

use crate::error::Error;

/// One symbol a library imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Its name.
    pub name: String,
    /// Whether the reference is weak (the loader leaves it NULL when nothing defines it).
    pub weak: bool,
}

/// The loading facts of one ELF shared library.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElfInfo {
    /// `DT_SONAME`.
    pub soname: Option<String>,
    /// `DT_NEEDED`, in order.
    pub needed: Vec<String>,
    /// `DT_RUNPATH` (or, without one, `DT_RPATH`), split at `:`, `$ORIGIN` not yet expanded.
    pub runpath: Vec<String>,
    /// The symbols it defines and exports (global or weak, default visibility).
    pub exports: BTreeSet<String>,
    /// The symbols it imports (undefined in its dynamic symbol table).
    pub imports: Vec<Import>,
}

impl ElfInfo {
    /// Reads the loading facts of the ELF shared library at `path`.
    pub fn read(path: &Path) -> Result<ElfInfo, Error> {
        let unreadable = |e: std::io::Error| Error::PluginUnreadable {
            path: path.to_path_buf(),
            kind: e.kind(),
        };
        let file = File::open(path).map_err(unreadable)?;
        // SAFETY: `Mmap::map` is unsafe because the file may change while it is mapped (see
        // <https://docs.rs/memmap2/latest/memmap2/struct.Mmap.html#safety>): truncated by another
        // process, a read of a lost page raises SIGBUS; rewritten, it is read torn. The hazard
        // is accepted, as ripgrep and git accept it for their inputs: the map is read-only,
        // lives for this function only, and every byte read from it goes through `object`'s
        // bounds-checked parser, so changed bytes give a wrong answer or an error, never
        // undefined behaviour in this code.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(unreadable)?;
        ElfInfo::parse(path, &map)
    }

    /// Reads the loading facts of an ELF shared library from its bytes; `path` only names it in
    /// errors.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<ElfInfo, Error> {
        let cache = bytes;
        let not_a_plugin = |reason: &'static str| Error::NotAPlugin {
            path: path.to_path_buf(),
            reason,
        };
        let kind = object::FileKind::parse(cache).map_err(|_| not_a_plugin("not an ELF file"))?;
        if kind != object::FileKind::Elf64 {
            return Err(not_a_plugin(
                "not a 64-bit ELF file (TensorFlow's Linux wheels are x86-64)",
            ));
        }
        let elf = ElfFile64::<object::Endianness>::parse(cache)
            .map_err(|_| not_a_plugin("a malformed ELF file"))?;
        if elf.elf_header().e_machine(elf.endian()) != object::elf::EM_X86_64 {
            return Err(not_a_plugin(
                "an ELF file for another machine than x86-64, the one TensorFlow's wheels are for",
            ));
        }
        if elf.elf_header().e_type(elf.endian()) != object::elf::ET_DYN {
            return Err(not_a_plugin(
                "not a shared library (TensorFlow loads plugins with dlopen)",
            ));
        }
        let mut info = ElfInfo::default();
        for symbol in elf.dynamic_symbols() {
            let Ok(name) = symbol.name() else { continue };
            if name.is_empty() {
                continue;
            }
            if symbol.is_undefined() {
                info.imports.push(Import {
                    name: name.to_string(),
                    weak: symbol.is_weak(),
                });
            } else if symbol.is_global()
                && symbol.elf_symbol().st_visibility() == object::elf::STV_DEFAULT
            {
                info.exports.insert(name.to_string());
            }
        }
        let endian = elf.endian();
        let data = elf.data();
        let sections = elf
            .elf_header()
            .sections(endian, data)
            .map_err(|_| not_a_plugin("a malformed ELF file (its section headers)"))?;
        if let Ok(Some((dynamic, link))) = sections.dynamic(endian, data) {
            let strings = sections
                .strings(endian, data, link)
                .map_err(|_| not_a_plugin("a malformed ELF file (its dynamic strings)"))?;
            let mut rpath = Vec::new();
            for entry in dynamic {
                let text = || {
                    u32::try_from(entry.d_val(endian))
                        .ok()
                        .and_then(|at| strings.get(at).ok())
                        .map(|s| String::from_utf8_lossy(s).into_owned())
                };
                match entry.tag32(endian) {
                    Some(object::elf::DT_SONAME) => info.soname = text(),
                    Some(object::elf::DT_NEEDED) => info.needed.extend(text()),
                    Some(object::elf::DT_RUNPATH) => {
                        info.runpath = split_path(&text().unwrap_or_default())
                    }
                    Some(object::elf::DT_RPATH) => rpath = split_path(&text().unwrap_or_default()),
                    _ => {}
                }
            }
            // The loader ignores DT_RPATH when DT_RUNPATH is present (ld.so(8)).
            if info.runpath.is_empty() {
                info.runpath = rpath;
            }
        }
        Ok(info)
    }
}

fn split_path(text: &str) -> Vec<String> {
    text.split(':')
        .filter(|part| !part.is_empty())
        .map(ToString::to_string)
        .collect()
}
