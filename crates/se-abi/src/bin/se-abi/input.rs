//! The input plugin: a regular file, checked before anything opens it.
//!
//! The plugin is not memory-mapped or read whole: `se_abi::plugin` reads only its ELF headers,
//! dynamic section and dynamic symbols, through `object`'s read cache (a plugin's companion
//! libraries run to hundreds of megabytes). What this module adds is the check that the path is
//! a regular file, made on its metadata before any `open`: opening a named pipe (FIFO) with no
//! writer blocks forever.

use std::io;
use std::path::{Path, PathBuf};

/// Why the input cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InputError {
    /// Its metadata could not be read (missing file, no permission).
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

/// Refuses, without opening it, a path that is not a regular file.
pub(crate) fn check_input(path: &Path) -> Result<(), InputError> {
    let metadata = std::fs::metadata(path).map_err(|source| InputError::Read {
        path: path.to_owned(),
        source,
    })?;
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
    Ok(())
}
