//! The input plugin: opened once, then checked through the open file.
//!
//! The path is opened with `O_NONBLOCK` (opening a named pipe with no writer would otherwise
//! block for ever), and what it is, is read from the open file (`fstat`), so the file checked is
//! the file read. A directory, a pipe, a socket or a device is refused before anything is read.
//! The file's bytes are then read by `se_abi::plugin` from this descriptor: memory-mapped, or,
//! for a file the system reports as empty (`/proc/self/maps`), read up to a bound.

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// Why the input cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InputError {
    /// It could not be opened or inspected (missing file, no permission).
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// It is not a regular file.
    #[error("{} is {what}, not a plugin file", path.display())]
    NotAFile { path: PathBuf, what: &'static str },
}

/// Opens `path` for reading without blocking, and refuses what is not a regular file.
pub(crate) fn open(path: &Path) -> Result<File, InputError> {
    let read = |source| InputError::Read {
        path: path.to_owned(),
        source,
    };
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(read)?;
    let metadata = file.metadata().map_err(read)?;
    if metadata.is_dir() {
        return Err(InputError::NotAFile {
            path: path.to_owned(),
            what: "a directory",
        });
    }
    if !metadata.is_file() {
        return Err(InputError::NotAFile {
            path: path.to_owned(),
            what: "a pipe, socket or device",
        });
    }
    Ok(file)
}
