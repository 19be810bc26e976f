//! The file a path names, read as TensorFlow's loaders read it: a SavedModel's directory is its
//! `saved_model.pb` (its variables beside it), anything else the file itself.
//!
//! The path is looked at before anything is opened: a directory is resolved, a pipe, socket or
//! device refused (opening a pipe no one writes to waits forever), and a file larger than a
//! protobuf message refused on its length alone.

use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::error::FileError;
use crate::wire::MAX_MESSAGE_LEN;

/// The file `tf.saved_model.load` or `import_graph_def` reads for `path`: a SavedModel
/// directory's `saved_model.pb`, or `path` itself.
///
/// A directory without a `saved_model.pb` is refused in TensorFlow's words.
pub fn model_file(path: &Path) -> Result<PathBuf, FileError> {
    if !path.is_dir() {
        return Ok(path.to_owned());
    }
    let file = path.join("saved_model.pb");
    if file.exists() {
        Ok(file)
    } else {
        Err(FileError::NoSavedModel {
            dir: path.to_owned(),
        })
    }
}

/// A model read from disk: the file [`model_file`] named, and its bytes. A SavedModel's
/// variables are looked for beside the file.
pub(crate) struct ModelBytes {
    pub(crate) bytes: Vec<u8>,
    pub(crate) path: PathBuf,
}

/// Reads the file [`model_file`] names for `path`, after checking it is a regular file no
/// longer than a protobuf message.
pub(crate) fn read_model(path: &Path) -> Result<ModelBytes, FileError> {
    let file = model_file(path)?;
    let cannot_read = |error: std::io::Error| FileError::Read {
        path: file.clone(),
        reason: error.to_string(),
    };
    let not_a_file = || FileError::NotAFile { path: file.clone() };
    if !std::fs::metadata(&file).map_err(cannot_read)?.is_file() {
        return Err(not_a_file());
    }
    let mut opened = File::open(&file).map_err(cannot_read)?;
    // The path may name another file by now: what counts is the one opened.
    let metadata = opened.metadata().map_err(cannot_read)?;
    if !metadata.is_file() {
        return Err(not_a_file());
    }
    let len = metadata.len();
    if len > MAX_MESSAGE_LEN as u64 {
        return Err(FileError::TooLarge { path: file, len });
    }
    // At most the `len` bytes checked, even if the file grows meanwhile.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or_default());
    (&mut opened)
        .take(len)
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    Ok(ModelBytes { bytes, path: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "graphdef-versions-model-file-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_directory_is_its_saved_model_pb_and_holds_the_variables() {
        let dir = scratch("dir");
        std::fs::write(dir.join("saved_model.pb"), [8, 1]).unwrap();
        let read = read_model(&dir).unwrap();
        assert_eq!(read.bytes, [8, 1]);
        assert_eq!(read.path.parent(), Some(dir.as_path()));
        let read = read_model(&dir.join("saved_model.pb")).unwrap();
        assert_eq!(read.path.parent(), Some(dir.as_path()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_is_not_a_model_file_is_named_with_what_to_give() {
        let dir = scratch("empty");
        let error = read_model(&dir).err().unwrap();
        assert_eq!(error, FileError::NoSavedModel { dir: dir.clone() });
        assert!(
            error
                .to_string()
                .ends_with("/{saved_model.pbtxt|saved_model.pb}"),
            "{error}"
        );
        let missing = dir.join("missing.pb");
        let Err(FileError::Read { path, reason }) = read_model(&missing) else {
            panic!("a missing file is read");
        };
        assert_eq!(path, missing);
        assert!(reason.contains("No such file"), "{reason}");
        let device = Path::new("/dev/null");
        assert_eq!(
            read_model(device).err(),
            Some(FileError::NotAFile {
                path: device.to_owned()
            })
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
