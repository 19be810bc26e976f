//! The input file, memory-mapped read-only after its size was checked.
//!
//! The tool reads a few parts of what may be a large file; mapping it lets the kernel hand over
//! the pages that are read, with no buffer allocated, cleared and filled first. Why this tool
//! maps its input, and its limit, are said where it calls [`read_input`].
//!
//! This file is the same in the command-line tools of graphdef-versions, tflite-opver and
//! ifrt-serdes: the crates stay independent, so each keeps its own copy, and a test
//! (`xtask/tests/alike.rs`) fails when the copies differ.

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
/// writes to blocks until one does, so the tool would hang instead of refusing it.
pub(crate) fn read_input(path: &Path, max: u64) -> Result<Input, CliError> {
    let cannot_read = |source| CliError::Read {
        path: path.to_owned(),
        source,
    };
    refuse_non_file(path, &std::fs::metadata(path).map_err(cannot_read)?)?;
    let file = File::open(path).map_err(cannot_read)?;
    // Checked again on the opened file: another process may have put something else at the
    // path since.
    let metadata = file.metadata().map_err(cannot_read)?;
    refuse_non_file(path, &metadata)?;
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
    // `len <= max`, a limit each tool sets far below `usize::MAX` on the 64-bit platforms it
    // builds for; a failed conversion reads as an I/O error all the same.
    let map_len =
        usize::try_from(len).map_err(|_| cannot_read(std::io::ErrorKind::FileTooLarge.into()))?;
    // SAFETY: `Mmap::map` is unsafe because the mapped file may change while it is mapped: if
    // another process truncates it, reading the lost pages raises SIGBUS; if it rewrites it, we
    // read torn bytes that change under us. We accept that hazard as ripgrep, git and other
    // read-only CLI tools do for their input: this tool maps a file it was asked to read, maps
    // it read-only, never writes through the map (whatever it writes, it writes with `std::fs`
    // from a buffer of its own after dropping the map, even when the output is the input file
    // itself), and keeps the map only for one run. The library validates every byte it reads
    // (bounds, offsets, lengths, UTF-8) at the moment it reads it, so bytes that change mid-run
    // give a wrong answer or a typed error, never undefined behavior in our code. The map is
    // exactly the `len` bytes checked against `max` above, even if the file grows after that
    // check.
    #[allow(unsafe_code)]
    let map = unsafe { MmapOptions::new().len(map_len).map(&file) }.map_err(cannot_read)?;
    Ok(Input { map: Some(map) })
}

/// Refuses a directory, a pipe, a socket or a device: only a regular file is read.
fn refuse_non_file(path: &Path, metadata: &std::fs::Metadata) -> Result<(), CliError> {
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
