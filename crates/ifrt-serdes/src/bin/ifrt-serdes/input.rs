//! The input file, memory-mapped read-only after its size was checked.
//!
//! `inspect` reads one serialized value. Its length is checked against the library's limit for
//! untrusted input before anything is mapped, and the registry then reads the envelope and its
//! payload straight from the mapped pages, borrowing rather than copying them.

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
/// The path's type is checked *before* it is opened: opening a named pipe that no process
/// writes to blocks forever, so a FIFO is refused without being opened.
pub(crate) fn read_input(path: &Path, max: u64) -> Result<Input, CliError> {
    let cannot_read = |source| CliError::Read {
        path: path.to_owned(),
        source,
    };
    check_is_file(path, &std::fs::metadata(path).map_err(cannot_read)?)?;
    let file = File::open(path).map_err(cannot_read)?;
    // Checked again on the opened file: the path may have been replaced in between.
    let metadata = file.metadata().map_err(cannot_read)?;
    check_is_file(path, &metadata)?;
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
    // `len <= max`, a limit far below `usize::MAX` on every platform this tool builds for; a
    // failed conversion reads as an I/O error all the same.
    let map_len =
        usize::try_from(len).map_err(|_| cannot_read(std::io::ErrorKind::FileTooLarge.into()))?;
    // SAFETY: `Mmap::map` is unsafe because the file may change while it is mapped: if another
    // process truncates it, touching the lost pages raises SIGBUS; if it rewrites it, the bytes
    // change under us and reads may be torn. We accept that hazard, as ripgrep, git and other
    // read-only command-line tools do for their input: the map is read-only, this tool never
    // writes through it (nor writes any file at all), and it lives for one run. The library
    // bounds-checks and validates every byte it reads (lengths, varints, UTF-8, value rules) at
    // the moment it reads it and holds no invariant across reads, so bytes that change
    // mid-run give a wrong report or a typed error, never undefined behavior in our code. The
    // map covers exactly the `len` bytes checked against `max` above, even if the file grows
    // after the check.
    #[allow(unsafe_code)]
    let map = unsafe { MmapOptions::new().len(map_len).map(&file) }.map_err(cannot_read)?;
    Ok(Input { map: Some(map) })
}

/// Refuses a directory, a pipe, a socket or a device: only a regular file is read.
fn check_is_file(path: &Path, metadata: &std::fs::Metadata) -> Result<(), CliError> {
    if metadata.is_file() {
        return Ok(());
    }
    Err(CliError::NotAFile {
        path: path.to_owned(),
        what: if metadata.is_dir() {
            "a directory"
        } else {
            "a pipe, socket or device"
        },
    })
}
