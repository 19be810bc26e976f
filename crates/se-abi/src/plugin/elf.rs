//! What a shared library says about its own loading, read as the dynamic loader reads it.
//!
//! `dlopen` (glibc's `ld.so`) never looks at section headers: it maps the `PT_LOAD` segments
//! the program headers describe, finds the dynamic section through `PT_DYNAMIC`, and from its
//! entries everything else: the soname, the libraries it needs (`DT_NEEDED`), where it looks for
//! them (`DT_RUNPATH`, `DT_RPATH`), the dynamic symbol table (`DT_SYMTAB`, sized by `DT_HASH` or
//! `DT_GNU_HASH`) and its strings (`DT_STRTAB`), the symbol versions (`DT_VERSYM`,
//! `DT_VERDEF`, `DT_VERNEED`) and the relocations that look symbols up (`DT_RELA`, `DT_REL`,
//! `DT_JMPREL`). This module reads the same things the same way, with `object`'s raw ELF types,
//! so a library whose section headers were stripped (`sstrip`, some packers) or are nonsense
//! (a huge `e_shnum`, a wild `e_shoff`) is read exactly as `dlopen` reads it.
//!
//! Every count that comes from the file is bounded by the bytes that hold it before anything is
//! allocated for it; a table that lies outside the loadable segments is an error, never a panic.
//!
//! Files are memory-mapped, not read: only the pages of the headers and dynamic tables are
//! touched (a plugin's companion libraries run to hundreds of megabytes).

use std::fs::File;
use std::io::Read as _;
use std::path::Path;
use std::string::String;
use std::vec;
use std::vec::Vec;

use object::elf;
use object::endian::LittleEndian as LE;
use object::pod::{Pod, from_bytes, slice_from_bytes};

use crate::error::Error;

/// A symbol version: the name a versioned symbol carries (`foo@GLIBC_2.2.5`, `bar@@tensorflow`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SymbolVersion(pub String);

/// One symbol a library defines and exports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// Its name.
    pub name: String,
    /// Its version (`None` for an unversioned symbol, or one of the global version index).
    pub version: Option<SymbolVersion>,
    /// Whether the version is hidden (`foo@V`, not the default `foo@@V`): only a reference that
    /// names that version binds to it.
    pub hidden: bool,
}

/// One symbol a library imports: undefined in its dynamic symbol table and looked up by one of
/// its relocations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Its name.
    pub name: String,
    /// The version the reference asks for (`None` for an unversioned reference).
    pub version: Option<SymbolVersion>,
    /// Whether the reference is weak (the loader leaves it NULL when nothing defines it).
    pub weak: bool,
}

/// The versions a library requires of one library it needs (one `Verneed` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionNeed {
    /// The needed library's name, as in its `DT_NEEDED` (`vn_file`).
    pub file: String,
    /// The versions required of it, each with its weak flag (`VER_FLG_WEAK`: a missing weak
    /// version is not an error).
    pub versions: Vec<(SymbolVersion, bool)>,
}

/// The loading facts of one ELF shared library.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElfInfo {
    /// `DT_SONAME`.
    pub soname: Option<String>,
    /// `DT_NEEDED`, in order.
    pub needed: Vec<String>,
    /// `DT_RUNPATH`, split at `:`, `$ORIGIN` not yet expanded.
    pub runpath: Vec<String>,
    /// `DT_RPATH`, likewise (the loader uses it only when there is no `DT_RUNPATH`).
    pub rpath: Vec<String>,
    /// The symbols it defines and exports (global, weak or unique binding; default or protected
    /// visibility), sorted by name.
    pub exports: Vec<Export>,
    /// The symbols it imports, in the order the loader looks them up when it relocates the
    /// library (`DT_RELA`/`DT_REL` entries first, then `DT_JMPREL`'s): the first one that
    /// nothing defines is the one `dlopen`'s error names. An undefined symbol no relocation uses
    /// is never looked up, and is not listed.
    pub imports: Vec<Import>,
    /// The version names it defines (`DT_VERDEF`), without the base entry (its own name).
    pub version_definitions: Vec<SymbolVersion>,
    /// The versions it requires of the libraries it needs (`DT_VERNEED`), in order.
    pub version_needs: Vec<VersionNeed>,
}

/// The largest input read without a memory map (a `/proc` file, a file whose size the system
/// does not know): a shared library is never this small, so anything longer is refused as not
/// one.
const MAX_UNMAPPED: u64 = 16 << 20;

impl ElfInfo {
    /// Reads the loading facts of the ELF shared library at `path`.
    pub fn read(path: &Path) -> Result<ElfInfo, Error> {
        let unreadable = |e: std::io::Error| Error::PluginUnreadable {
            path: path.to_path_buf(),
            kind: e.kind(),
        };
        let file = File::open(path).map_err(unreadable)?;
        ElfInfo::read_file(path, &file)
    }

    /// Reads the loading facts of an ELF shared library from a file already open; `path` only
    /// names it in errors. A file of size zero as the system reports it (a `/proc` file) is read
    /// through `read` instead of a memory map, up to a bound.
    pub fn read_file(path: &Path, file: &File) -> Result<ElfInfo, Error> {
        let unreadable = |e: std::io::Error| Error::PluginUnreadable {
            path: path.to_path_buf(),
            kind: e.kind(),
        };
        let size = file.metadata().map_err(unreadable)?.len();
        if size == 0 {
            let mut bytes = Vec::new();
            file.take(MAX_UNMAPPED)
                .read_to_end(&mut bytes)
                .map_err(unreadable)?;
            return ElfInfo::parse(path, &bytes);
        }
        // SAFETY: `Mmap::map` is unsafe because the file may change while it is mapped (see
        // <https://docs.rs/memmap2/latest/memmap2/struct.Mmap.html#safety>): truncated by another
        // process, a read of a lost page raises SIGBUS; rewritten, it is read torn. The hazard
        // is accepted, as ripgrep and git accept it for their inputs: the map is read-only,
        // lives for this function only, and every byte read from it goes through bounds-checked
        // slices, so changed bytes give a wrong answer or an error, never undefined behaviour in
        // this code.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(unreadable)?;
        ElfInfo::parse(path, &map)
    }

    /// Reads the loading facts of an ELF shared library from its bytes; `path` only names it in
    /// errors.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<ElfInfo, Error> {
        let image = Image::new(path, bytes)?;
        image.info()
    }
}

/// Which of `names` (file names) the file at `path` holds as C strings, alone or at the end of
/// a path (`"libfoo.so"`, `"/opt/x/libfoo.so"`): the names a library may pass to `dlopen`. An
/// unreadable file holds none.
pub(crate) fn names_in(path: &Path, names: &[&str]) -> Vec<bool> {
    let mut found = vec![false; names.len()];
    let Ok(file) = File::open(path) else {
        return found;
    };
    // SAFETY: as in `ElfInfo::read_file`: a read-only map, read through bounds-checked slices
    // only, for this function's life; a file changed underneath gives a wrong answer, never
    // undefined behaviour here.
    let Ok(map) = (unsafe { memmap2::Mmap::map(&file) }) else {
        return found;
    };
    for string in map.split(|&b| b == 0) {
        let tail = string.rsplit(|&b| b == b'/').next().unwrap_or(string);
        if let Some(at) = names.iter().position(|n| n.as_bytes() == tail) {
            found[at] = true;
        }
    }
    found
}

/// `e_ident[EI_CLASS]`, `[EI_DATA]` and the header fields the loader checks
/// (`_dl_map_object_from_fd`, `elf_get_dynamic_info`).
fn not_a_plugin(path: &Path, reason: &'static str) -> Error {
    Error::NotAPlugin {
        path: path.to_path_buf(),
        reason,
    }
}

/// An ELF file as the loader maps it: its `PT_LOAD` segments, and its dynamic section.
struct Image<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    /// `(p_vaddr, p_offset, p_filesz)` of each `PT_LOAD` segment.
    loads: Vec<(u64, u64, u64)>,
    dynamic: &'a [elf::Dyn64<LE>],
}

impl<'a> Image<'a> {
    fn new(path: &'a Path, bytes: &'a [u8]) -> Result<Image<'a>, Error> {
        let err = |reason| not_a_plugin(path, reason);
        if bytes.is_empty() {
            return Err(err(
                "an empty file (0 bytes), not an ELF file (cut off while copying or \
                 downloading? or written by a build that failed?)",
            ));
        }
        let (header, _) =
            from_bytes::<elf::FileHeader64<LE>>(bytes).map_err(|()| err("not an ELF file"))?;
        if header.e_ident.magic != elf::ELFMAG {
            return Err(err("not an ELF file"));
        }
        if header.e_ident.class != elf::ELFCLASS64 {
            return Err(err(
                "not a 64-bit ELF file (TensorFlow's Linux wheels are x86-64)",
            ));
        }
        if header.e_ident.data != elf::ELFDATA2LSB || header.e_machine.get(LE) != elf::EM_X86_64 {
            return Err(err(
                "an ELF file for another machine than x86-64, the one TensorFlow's wheels are for",
            ));
        }
        if header.e_type.get(LE) != elf::ET_DYN {
            return Err(err(
                "not a shared library (TensorFlow loads plugins with dlopen)",
            ));
        }
        if usize::from(header.e_phentsize.get(LE)) != size_of::<elf::ProgramHeader64<LE>>() {
            return Err(err(
                "a malformed ELF file (its program header entries have the wrong size)",
            ));
        }
        let program_headers = usize::try_from(header.e_phoff.get(LE))
            .ok()
            .and_then(|at| bytes.get(at..))
            .and_then(|rest| {
                slice_from_bytes::<elf::ProgramHeader64<LE>>(
                    rest,
                    usize::from(header.e_phnum.get(LE)),
                )
                .ok()
            })
            .map(|(headers, _)| headers)
            .ok_or_else(|| err("a malformed ELF file (its program headers lie past its end)"))?;
        let loads = program_headers
            .iter()
            .filter(|ph| ph.p_type.get(LE) == elf::PT_LOAD)
            .map(|ph| (ph.p_vaddr.get(LE), ph.p_offset.get(LE), ph.p_filesz.get(LE)))
            .collect();
        let mut image = Image {
            path,
            bytes,
            loads,
            dynamic: &[],
        };
        // The loader finds the dynamic section at its address in the mapped image.
        let dynamic = program_headers
            .iter()
            .find(|ph| ph.p_type.get(LE) == elf::PT_DYNAMIC)
            .ok_or_else(|| err("a shared library without a dynamic section (PT_DYNAMIC)"))?;
        let size = dynamic.p_memsz.get(LE);
        let entries = image
            .at(dynamic.p_vaddr.get(LE), size)
            .and_then(|data| {
                let count = data.len() / size_of::<elf::Dyn64<LE>>();
                slice_from_bytes::<elf::Dyn64<LE>>(data, count).ok()
            })
            .map(|(entries, _)| entries)
            .ok_or_else(|| {
                err("a malformed ELF file (its dynamic section lies outside its loadable segments)")
            })?;
        // The section ends at its first DT_NULL.
        let end = entries
            .iter()
            .position(|d| d.d_tag.get(LE) == u64::from(elf::DT_NULL))
            .unwrap_or(entries.len());
        image.dynamic = &entries[..end];
        Ok(image)
    }

    /// The bytes at virtual address `address`, `size` of them, from the file-backed part of the
    /// `PT_LOAD` segment that holds them.
    fn at(&self, address: u64, size: u64) -> Option<&'a [u8]> {
        self.loads.iter().find_map(|&(vaddr, offset, filesz)| {
            let start = address.checked_sub(vaddr)?;
            let end = start.checked_add(size)?;
            if end > filesz {
                return None;
            }
            let from = usize::try_from(offset.checked_add(start)?).ok()?;
            let to = usize::try_from(offset.checked_add(end)?).ok()?;
            self.bytes.get(from..to)
        })
    }

    /// The bytes from virtual address `address` to the end of the segment's file-backed part.
    fn from(&self, address: u64) -> Option<&'a [u8]> {
        self.loads.iter().find_map(|&(vaddr, offset, filesz)| {
            let start = address.checked_sub(vaddr)?;
            if start >= filesz {
                return None;
            }
            let from = usize::try_from(offset.checked_add(start)?).ok()?;
            let to = usize::try_from(offset.checked_add(filesz)?).ok()?;
            self.bytes.get(from..to.min(self.bytes.len()))
        })
    }

    /// The first value of dynamic tag `tag`.
    fn value(&self, tag: u32) -> Option<u64> {
        self.values(tag).next()
    }

    fn values(&self, tag: u32) -> impl Iterator<Item = u64> + '_ {
        self.dynamic
            .iter()
            .filter(move |d| d.d_tag.get(LE) == u64::from(tag))
            .map(|d| d.d_val.get(LE))
    }

    fn malformed(&self, what: &'static str) -> Error {
        not_a_plugin(self.path, what)
    }

    /// A table of `count` `T`s at the address of dynamic tag `tag`.
    fn table<T: Pod>(&self, address: u64, count: usize) -> Option<&'a [T]> {
        let data = self.from(address)?;
        slice_from_bytes::<T>(data, count).ok().map(|(t, _)| t)
    }

    fn info(&self) -> Result<ElfInfo, Error> {
        let strings = match (self.value(elf::DT_STRTAB), self.value(elf::DT_STRSZ)) {
            (Some(address), Some(size)) => self.at(address, size).ok_or_else(|| {
                self.malformed(
                    "a malformed ELF file (its dynamic string table lies outside its loadable segments)",
                )
            })?,
            _ => &[],
        };
        let string = |offset: u64| -> Option<String> {
            let start = usize::try_from(offset).ok()?;
            let rest = strings.get(start..)?;
            let end = rest.iter().position(|&b| b == 0)?;
            Some(String::from_utf8_lossy(&rest[..end]).into_owned())
        };
        let mut info = ElfInfo {
            soname: self.value(elf::DT_SONAME).and_then(string),
            needed: self.values(elf::DT_NEEDED).filter_map(string).collect(),
            ..ElfInfo::default()
        };
        if let Some(path) = self.value(elf::DT_RUNPATH).and_then(string) {
            info.runpath = split_path(&path);
        }
        if let Some(path) = self.value(elf::DT_RPATH).and_then(string) {
            info.rpath = split_path(&path);
        }

        // Versions: the names behind each version index, from DT_VERDEF and DT_VERNEED, as
        // glibc's `_dl_check_map_versions` (elf/dl-version.c) fills `l_versions`: the needed
        // versions first, then the defined ones over them, except the base definition (the
        // file's own name), which "should not be available for matching a versioned symbol".
        // An index left without a name is looked up unversioned (`RESOLVE_MAP` in
        // elf/dl-reloc.c passes no version whose hash is 0). `version_of` takes the first
        // match, so the definitions go first.
        let mut version_names: Vec<(u16, SymbolVersion)> = Vec::new();
        if let Some(address) = self.value(elf::DT_VERDEF) {
            for (index, flags, name) in self.verdefs(address, &string) {
                if flags & elf::VER_FLG_BASE == 0 {
                    info.version_definitions.push(name.clone());
                    version_names.push((index, name));
                }
            }
        }
        if let Some(address) = self.value(elf::DT_VERNEED) {
            for need in self.verneeds(address, &string) {
                let (file, versions) = need;
                let mut entry = VersionNeed {
                    file,
                    versions: Vec::new(),
                };
                for (index, weak, name) in versions {
                    version_names.push((index, name.clone()));
                    entry.versions.push((name, weak));
                }
                info.version_needs.push(entry);
            }
        }
        let version_of = |index: u16| {
            version_names
                .iter()
                .find(|(i, _)| *i == index)
                .map(|(_, name)| name.clone())
        };

        // The dynamic symbol table: as long as the hash table says (the loader needs no more).
        let symbols: &[elf::Sym64<LE>] = match self.value(elf::DT_SYMTAB) {
            None => &[],
            Some(address) => {
                let available = self.from(address).map_or(0, <[u8]>::len);
                // Never more than the bytes hold: a hash table that claims more is read as far
                // as the segment goes.
                let fits = available / size_of::<elf::Sym64<LE>>();
                let count = self.symbol_count().map_or(fits, |n| n.min(fits));
                self.table(address, count).ok_or_else(|| {
                    self.malformed(
                        "a malformed ELF file (its dynamic symbol table lies outside its loadable segments)",
                    )
                })?
            }
        };
        let versym: &[elf::Versym<LE>] = match self.value(elf::DT_VERSYM) {
            None => &[],
            Some(address) => self.table(address, symbols.len()).ok_or_else(|| {
                self.malformed(
                    "a malformed ELF file (its symbol version table lies outside its loadable segments)",
                )
            })?,
        };
        let version_index = |index: usize| versym.get(index).map_or(0, |v| v.0.get(LE));

        for (index, symbol) in symbols.iter().enumerate() {
            if symbol.st_shndx.get(LE) == elf::SHN_UNDEF || !is_exported(symbol) {
                continue;
            }
            let Some(name) = string(u64::from(symbol.st_name.get(LE))) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let raw = version_index(index);
            let number = raw & elf::VERSYM_VERSION;
            info.exports.push(Export {
                name,
                version: if number > elf::VER_NDX_GLOBAL {
                    version_of(number)
                } else {
                    None
                },
                hidden: raw & elf::VERSYM_HIDDEN != 0,
            });
        }

        // Sorted by name, for lookups; a name may be defined at several versions, in no order
        // (a lookup takes any that matches).
        info.exports.sort_unstable_by(|a, b| a.name.cmp(&b.name));

        // Imports, in the order the relocations look them up.
        let mut seen = vec![false; symbols.len()];
        for index in self.relocation_symbols()? {
            let Some(symbol) = symbols.get(index) else {
                continue;
            };
            if seen[index] || symbol.st_shndx.get(LE) != elf::SHN_UNDEF {
                continue;
            }
            seen[index] = true;
            let Some(name) = string(u64::from(symbol.st_name.get(LE))) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let number = version_index(index) & elf::VERSYM_VERSION;
            info.imports.push(Import {
                name,
                version: if number > elf::VER_NDX_GLOBAL {
                    version_of(number)
                } else {
                    None
                },
                weak: symbol.st_bind() == elf::STB_WEAK,
            });
        }
        Ok(info)
    }

    /// The length of the dynamic symbol table: `DT_HASH`'s chain count, else the end of
    /// `DT_GNU_HASH`'s last chain.
    fn symbol_count(&self) -> Option<usize> {
        if let Some(address) = self.value(elf::DT_HASH) {
            let (header, _) = from_bytes::<elf::HashHeader<LE>>(self.from(address)?).ok()?;
            return usize::try_from(header.chain_count.get(LE)).ok();
        }
        let address = self.value(elf::DT_GNU_HASH)?;
        let table = object::read::elf::GnuHashTable::<elf::FileHeader64<LE>>::parse(
            LE,
            self.from(address)?,
        )
        .ok()?;
        usize::try_from(table.symbol_table_length(LE)?).ok()
    }

    /// The symbol index of every relocation, in the order the loader processes them: the
    /// `DT_RELA` (or `DT_REL`) table, then `DT_JMPREL` (relocated at once with `RTLD_NOW`).
    fn relocation_symbols(&self) -> Result<Vec<usize>, Error> {
        let mut out = Vec::new();
        let outside = || {
            self.malformed(
                "a malformed ELF file (its relocations lie outside its loadable segments)",
            )
        };
        let mut push = |address: u64, size: u64, rela: bool| -> Result<(), Error> {
            let data = self.at(address, size).ok_or_else(outside)?;
            if rela {
                let count = data.len() / size_of::<elf::Rela64<LE>>();
                let (entries, _) =
                    slice_from_bytes::<elf::Rela64<LE>>(data, count).map_err(|()| outside())?;
                out.extend(entries.iter().map(|r| r.r_sym(LE, false) as usize));
            } else {
                let count = data.len() / size_of::<elf::Rel64<LE>>();
                let (entries, _) =
                    slice_from_bytes::<elf::Rel64<LE>>(data, count).map_err(|()| outside())?;
                out.extend(entries.iter().map(|r| r.r_sym(LE) as usize));
            }
            Ok(())
        };
        if let (Some(address), Some(size)) = (self.value(elf::DT_RELA), self.value(elf::DT_RELASZ))
        {
            push(address, size, true)?;
        }
        if let (Some(address), Some(size)) = (self.value(elf::DT_REL), self.value(elf::DT_RELSZ)) {
            push(address, size, false)?;
        }
        if let (Some(address), Some(size)) =
            (self.value(elf::DT_JMPREL), self.value(elf::DT_PLTRELSZ))
        {
            let rela = self.value(elf::DT_PLTREL) != Some(u64::from(elf::DT_REL));
            push(address, size, rela)?;
        }
        out.retain(|&index| index != 0);
        Ok(out)
    }

    /// The version definitions: `(index, flags, name)` of each, following `vd_next` as the
    /// loader does.
    fn verdefs(
        &self,
        address: u64,
        string: &dyn Fn(u64) -> Option<String>,
    ) -> Vec<(u16, u16, SymbolVersion)> {
        let data = self.from(address).unwrap_or_default();
        let mut out = Vec::new();
        let mut at = 0usize;
        // Each entry is at least 20 bytes: no more entries than that fit.
        for _ in 0..data.len() / 20 {
            let Some((def, _)) = data
                .get(at..)
                .and_then(|d| from_bytes::<elf::Verdef<LE>>(d).ok())
            else {
                break;
            };
            let aux_at = at.saturating_add(def.vd_aux.get(LE) as usize);
            if let Some((aux, _)) = data
                .get(aux_at..)
                .and_then(|d| from_bytes::<elf::Verdaux<LE>>(d).ok())
                && let Some(name) = string(u64::from(aux.vda_name.get(LE)))
            {
                out.push((
                    def.vd_ndx.get(LE) & elf::VERSYM_VERSION,
                    def.vd_flags.get(LE),
                    SymbolVersion(name),
                ));
            }
            let next = def.vd_next.get(LE) as usize;
            if next == 0 {
                break;
            }
            at = at.saturating_add(next);
        }
        out
    }

    /// The version requirements: for each needed file, `(index, weak, name)` of each version,
    /// following `vn_next` and `vna_next` as the loader does. glibc's `_dl_check_map_versions`
    /// (elf/dl-version.c) walks each chain until a `*_next` of 0 and never reads `vn_cnt` or
    /// `vd_cnt`, and takes an index without its high bit (`& 0x7fff`), so do these two (which is why they are not `object`'s
    /// `VerneedIterator` and `VerdefIterator`, which trust the counts).
    #[allow(clippy::type_complexity)]
    fn verneeds(
        &self,
        address: u64,
        string: &dyn Fn(u64) -> Option<String>,
    ) -> Vec<(String, Vec<(u16, bool, SymbolVersion)>)> {
        let data = self.from(address).unwrap_or_default();
        let mut out = Vec::new();
        let mut at = 0usize;
        for _ in 0..data.len() / 16 {
            let Some((need, _)) = data
                .get(at..)
                .and_then(|d| from_bytes::<elf::Verneed<LE>>(d).ok())
            else {
                break;
            };
            let file = string(u64::from(need.vn_file.get(LE))).unwrap_or_default();
            let mut versions = Vec::new();
            let mut aux_at = at.saturating_add(need.vn_aux.get(LE) as usize);
            // Each entry is 16 bytes: no more entries than that fit.
            for _ in 0..data.len() / 16 {
                let Some((aux, _)) = data
                    .get(aux_at..)
                    .and_then(|d| from_bytes::<elf::Vernaux<LE>>(d).ok())
                else {
                    break;
                };
                if let Some(name) = string(u64::from(aux.vna_name.get(LE))) {
                    versions.push((
                        aux.vna_other.get(LE) & elf::VERSYM_VERSION,
                        aux.vna_flags.get(LE) & elf::VER_FLG_WEAK != 0,
                        SymbolVersion(name),
                    ));
                }
                let next = aux.vna_next.get(LE) as usize;
                if next == 0 {
                    break;
                }
                aux_at = aux_at.saturating_add(next);
            }
            out.push((file, versions));
            let next = need.vn_next.get(LE) as usize;
            if next == 0 {
                break;
            }
            at = at.saturating_add(next);
        }
        out
    }
}

/// Whether a defined symbol is one the loader lets other objects bind to (glibc's `check_match`:
/// a global, weak or unique binding, default or protected visibility, a type it allows, and a
/// value, or a TLS or absolute symbol).
fn is_exported(symbol: &elf::Sym64<LE>) -> bool {
    let bind = symbol.st_bind();
    let kind = symbol.st_type();
    let visibility = symbol.st_visibility();
    matches!(bind, elf::STB_GLOBAL | elf::STB_WEAK | elf::STB_GNU_UNIQUE)
        && matches!(visibility, elf::STV_DEFAULT | elf::STV_PROTECTED)
        && matches!(
            kind,
            elf::STT_NOTYPE
                | elf::STT_OBJECT
                | elf::STT_FUNC
                | elf::STT_COMMON
                | elf::STT_TLS
                | elf::STT_GNU_IFUNC
        )
        && (symbol.st_value.get(LE) != 0
            || symbol.st_shndx.get(LE) == elf::SHN_ABS
            || kind == elf::STT_TLS)
}

fn split_path(text: &str) -> Vec<String> {
    text.split(':')
        .filter(|part| !part.is_empty())
        .map(String::from)
        .collect()
}
