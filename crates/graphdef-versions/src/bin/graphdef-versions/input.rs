//! The input file, memory-mapped read-only after its size was checked.
//!
//! A GraphDef can be hundreds of megabytes, and the library reads only a few bytes of most of
//! it (the versions, each node's op): mapping the file lets the kernel hand over its pages as
//! they are read, with no buffer allocated, cleared and filled first.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

use memmap2::{Mmap, MmapOptions};

use crate::CliError;

/// The bytes of a file: memory-mapped read-only, after its length was checked against `max`.
pub(crate) struct Input {
    /// `None` for an empty file, which is not mapped (a map cannot be empty).
    map: Option<Mmap>,
}

impl Deref for Input {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or_default()
    }
}

/// Opens `path` and maps its bytes, refusing (before mapping anything) a file longer than `max`,
/// a directory, or anything else that is not a regular file (a pipe or a device cannot be
/// mapped).
///
/// The kind of file is checked before it is opened: opening a named pipe that no process
/// writes to waits for a writer forever.
pub(crate) fn read_input(path: &Path, max: u64) -> Result<Input, CliError> {
    let cannot_read = |source| CliError::Read {
        path: path.to_owned(),
        source,
    };
    let not_a_file = |metadata: &std::fs::Metadata| {
        let what = if metadata.is_dir() {
            "a directory"
        } else {
            "a pipe, socket or device"
        };
        CliError::NotAFile {
            path: path.to_owned(),
            what,
        }
    };
    let metadata = std::fs::metadata(path).map_err(cannot_read)?;
    if !metadata.is_file() {
        return Err(not_a_file(&metadata));
    }
    let file = File::open(path).map_err(cannot_read)?;
    // The path may name another file by now: what counts is the one opened.
    let metadata = file.metadata().map_err(cannot_read)?;
    if !metadata.is_file() {
        return Err(not_a_file(&metadata));
    }
    let len = metadata.len();
    if len > max {
        return Err(CliError::TooLarge {
            path: path.to_owned(),
            len,
            max,
        });
    }
    if len == 0 {
        return Ok(Input { map: None });
    }
    // `len <= max`, and `max` is at most protobuf's 2 GiB limit, so it fits in `usize` on every
    // platform this tool builds for; a failed conversion reads as an I/O error all the same.
    let map_len =
        usize::try_from(len).map_err(|_| cannot_read(std::io::ErrorKind::FileTooLarge.into()))?;
    // SAFETY: `Mmap::map` is unsafe because the mapped file may change while it is mapped: if
    // another process truncates it, reading the lost pages raises SIGBUS; if it rewrites it, we
    // read torn bytes that change under us. We accept that hazard as ripgrep, git and other
    // read-only CLI tools do for their input: this tool maps a file it was asked to read,
    // maps it read-only, never writes through the map (anything it writes goes through
    // `std::fs`), and keeps the map only for one run. The library validates every byte it reads
    // (bounds, lengths, UTF-8) on each read, so bytes that change mid-run give a wrong verdict
    // or a typed error, never undefined behavior in our code. The map is exactly the `len`
    // bytes checked against `max` above, even if the file grows after that check.
    #[allow(unsafe_code)]
    let map = unsafe { MmapOptions::new().len(map_len).map(&file) }.map_err(cannot_read)?;
    Ok(Input { map: Some(map) })
}
