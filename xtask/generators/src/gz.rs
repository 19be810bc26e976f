//! The committed fact files' compression: gzip with a fixed header (no file name, time 0), so
//! the same facts give the same bytes from run to run and the files diff only when facts do.

use std::io::{Read as _, Write as _};
use std::path::Path;

/// `bytes`, gzip-compressed with a fixed header.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).map_err(|e| format!("gzip: {e}"))?;
    encoder.finish().map_err(|e| format!("gzip: {e}"))
}

/// The contents of `compressed`, read from `path` (named in the error).
pub fn gunzip(compressed: &[u8], path: &Path) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(compressed)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes)
}
