//! se-abi benchmarks: each operation beside a baseline measured in the same run.
//!
//! - `read`: the checked accessor (`struct_size > offsetof(member)`, plus the NULL check of a
//!   `nonzero` member) beside a plain field read of an identical `#[repr(C)]` struct.
//! - `copy`: a versioned copy from bytes (validate `struct_size`, copy, zero the rest, check a
//!   newer producer's tail) beside a plain copy of the same bytes.
//! - `plugin`: `plugin-check`'s reader of a shared library as the dynamic loader sees it
//!   (`ElfInfo::parse`: program headers, dynamic section, symbols, versions, relocations)
//!   beside `object` walking the same file's dynamic symbols and their names (borrowed: it
//!   copies, sorts and versions nothing, so it is the floor, not a rival); and the whole static
//!   check of ten releases (`Plugin::open`, `verdicts`: the plugin, its closure and the system
//!   libraries read, ten loads replayed) beside reading the file alone (`ElfInfo::read`). The
//!   library is this machine's `libc.so.6` (or `SE_ABI_BENCH_LIBRARY`).

use std::ffi::{c_char, c_void};
use std::hint::black_box;

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use object::read::elf::ElfFile64;
use object::{Object as _, ObjectSymbol as _};
use se_abi::plugin::{ElfInfo, Plugin};
use se_abi::{Tail, copy_from_bytes, versioned_struct};

versioned_struct! {
    /// The seed's `SE_Device` at version 5.
    #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48, 48, 56])]
    pub struct SE_Device {
        name: *const c_char = nonzero(since 1, at 16..24),
        name_len: usize = value(since 1, at 24..32),
        device_handle: *mut c_void = nonzero(since 2, at 32..40),
        data: *mut c_void = nonzero(since 3, deprecated 4, at 40..48),
        data2: *mut c_void = nonzero(since 5, at 48..56),
    }
}

/// The baseline: the same C layout as a plain struct with public fields.
#[repr(C)]
#[derive(Clone, Copy)]
struct PlainDevice {
    struct_size: usize,
    next: *mut c_void,
    name: *const c_char,
    name_len: usize,
    device_handle: *mut c_void,
    data: *mut c_void,
    data2: *mut c_void,
}

const BATCH: usize = 1024;

fn devices() -> (Vec<SE_Device>, Vec<PlainDevice>) {
    let checked = (0..BATCH)
        .map(|i| {
            let mut device = SE_Device::new();
            device
                .set(SE_Device::name_len, i)
                .set(SE_Device::data2, std::ptr::without_provenance_mut(i + 1));
            device
        })
        .collect();
    let plain = (0..BATCH)
        .map(|i| PlainDevice {
            struct_size: 56,
            next: std::ptr::null_mut(),
            name: std::ptr::null(),
            name_len: i,
            device_handle: std::ptr::null_mut(),
            data: std::ptr::null_mut(),
            data2: std::ptr::without_provenance_mut(i + 1),
        })
        .collect();
    (checked, plain)
}

fn read(c: &mut Criterion) {
    let (checked, plain) = devices();
    let mut group = c.benchmark_group("se_abi/read");
    group.bench_function("one value member: raw field read (baseline)", |b| {
        b.iter(|| black_box(black_box(&plain[7]).name_len))
    });
    group.bench_function("one value member: checked get", |b| {
        b.iter(|| black_box(black_box(&checked[7]).get(SE_Device::name_len).unwrap_or(0)))
    });
    group.bench_function(
        "four members of one struct: raw field reads (baseline)",
        |b| {
            b.iter(|| {
                let d = black_box(&plain[7]);
                black_box(d.name.addr() ^ d.name_len ^ d.device_handle.addr() ^ d.data2.addr())
            })
        },
    );
    group.bench_function("four members of one struct: View, checked gets", |b| {
        b.iter(|| {
            let view = black_box(&checked[7]).view();
            black_box(
                view.get(SE_Device::name).map_or(0, |p| p.addr())
                    ^ view.get(SE_Device::name_len).unwrap_or(0)
                    ^ view.get(SE_Device::device_handle).map_or(0, |p| p.addr())
                    ^ view.get(SE_Device::data2).map_or(0, |p| p.addr()),
            )
        })
    });
    group.bench_function("1024 value members: raw field reads (baseline)", |b| {
        b.iter(|| black_box(&plain).iter().map(|d| d.name_len).sum::<usize>())
    });
    group.bench_function("1024 value members: checked gets", |b| {
        b.iter(|| {
            black_box(&checked)
                .iter()
                .map(|d| d.get(SE_Device::name_len).unwrap_or(0))
                .sum::<usize>()
        })
    });
    group.bench_function("1024 nonzero members: raw field reads (baseline)", |b| {
        b.iter(|| {
            black_box(&plain)
                .iter()
                .map(|d| d.data2.addr())
                .sum::<usize>()
        })
    });
    group.bench_function("1024 nonzero members: checked gets", |b| {
        b.iter(|| {
            black_box(&checked)
                .iter()
                .map(|d| d.get(SE_Device::data2).map_or(0, |p| p.addr()))
                .sum::<usize>()
        })
    });
    group.finish();
}

fn bytes_of(struct_size: usize, len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    bytes[..8].copy_from_slice(&struct_size.to_ne_bytes());
    bytes[24..32].copy_from_slice(&3usize.to_ne_bytes());
    bytes
}

fn copy(c: &mut Criterion) {
    let mut group = c.benchmark_group("se_abi/copy");
    for (label, struct_size) in [("same version, 56 B", 56), ("newer producer, 120 B", 120)] {
        let bytes = bytes_of(struct_size, struct_size);
        group.bench_function(format!("{label}: plain copy (baseline)"), |b| {
            b.iter(|| {
                // The same bytes into a struct-sized buffer, with no checks at all.
                let mut out = [0u8; SE_DEVICE_STRUCT_SIZE];
                out.copy_from_slice(&black_box(&bytes)[..SE_DEVICE_STRUCT_SIZE]);
                black_box(out)
            })
        });
        group.bench_function(format!("{label}: versioned copy"), |b| {
            b.iter(|| {
                black_box(copy_from_bytes::<SE_Device>(
                    black_box(&bytes),
                    Tail::MustBeZero,
                ))
            })
        });
    }
    group.finish();
}

/// The library the `plugin` benches read: `SE_ABI_BENCH_LIBRARY`, or glibc's `libc.so.6`.
fn bench_library() -> Option<PathBuf> {
    let path = std::env::var_os("SE_ABI_BENCH_LIBRARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/lib/x86_64-linux-gnu/libc.so.6"));
    path.exists().then_some(path)
}

fn plugin(c: &mut Criterion) {
    let Some(path) = bench_library() else {
        eprintln!("se_abi/plugin: no library to read (set SE_ABI_BENCH_LIBRARY)");
        return;
    };
    let bytes = std::fs::read(&path).expect("read the library");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut group = c.benchmark_group("se_abi/plugin");
    let floor = format!("{name}: object, every dynamic symbol's name, borrowed (baseline)");
    group.bench_function(floor, |b| {
        b.iter(|| {
            let file =
                ElfFile64::<object::Endianness>::parse(black_box(&bytes[..])).expect("an ELF file");
            file.dynamic_symbols()
                .filter_map(|s| s.name().ok())
                .map(str::len)
                .sum::<usize>()
        })
    });
    group.bench_function(format!("{name}: ElfInfo::parse"), |b| {
        b.iter(|| {
            ElfInfo::parse(&path, black_box(&bytes[..]))
                .expect("a shared library")
                .exports
                .len()
        })
    });
    group.bench_function(format!("{name}: ElfInfo::read (baseline)"), |b| {
        b.iter(|| {
            ElfInfo::read(black_box(&path))
                .expect("a shared library")
                .exports
                .len()
        })
    });
    group.bench_function(
        format!("{name}: Plugin::open, verdicts of ten releases"),
        |b| {
            b.iter(|| {
                Plugin::open(black_box(&path))
                    .expect("a shared library")
                    .verdicts()
                    .len()
            })
        },
    );
    group.finish();
}

criterion_group!(benches, read, copy, plugin);
criterion_main!(benches);
