//! The variables `tf.saved_model.load` restores, checked against the checkpoint beside the
//! SavedModel (`DIR/variables/variables`: its `.index` file and data shards), without reading
//! a tensor.
//!
//! - A TensorFlow 2 SavedModel is restored object by object (`Loader._restore_checkpoint`,
//!   `tensorflow/python/saved_model/load.py`): the checkpoint reader opens the `.index` file
//!   (falling back to a V1 checkpoint of that name when there is none) and reads the
//!   checkpoint's own object graph, a tensor of one data shard. Every release refuses a missing
//!   index (`NotFoundError`, which the loader raises as `FileNotFoundError` with advice about
//!   devices), even for a SavedModel that has no variable, and a missing shard (`OpError`).
//! - A TensorFlow 1 SavedModel is restored by running its saver's restore op, pruned into a
//!   function (`_EagerSavedModelLoader.restore_variables`, `load_v1_in_v2.py`): each `RestoreV2`
//!   opens the index, looks up its tensors in name order (a missing one is `Key NAME not found
//!   in checkpoint`), compares their types with its `dtypes` (every mismatch, joined), then
//!   reads them from their shards (`save_restore_v2_ops.cc`). Its errors come from running a
//!   graph: `Graph execution error:`, the reason, and the node.
//!
//! A SavedModel whose graph restores nothing (a TF1 one without a saver) needs no checkpoint.
//! Not checked: the tensors' shapes and bytes, and a TF2 checkpoint's objects one by one.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use prost::Message;

use super::failure::with_device_advice;
use super::printing::Dialect;
use super::report::LoadError;
use crate::checkpoint::{for_each_entry, read_checkpoint_header};
use crate::error::{Error, IndexError};
use crate::schema::BundleEntryProto;

/// The key of a TF2 checkpoint's object graph (`OBJECT_GRAPH_PROTO_KEY`,
/// `tensorflow/python/checkpoint/checkpoint.py` and `trackable/base.py`).
const OBJECT_GRAPH_KEY: &str = "_CHECKPOINTABLE_OBJECT_GRAPH";

/// A `.index` file larger than this is not read (TensorFlow's own reader would spend minutes
/// on it); its variables are not checked.
const MAX_INDEX_LEN: u64 = 1 << 30;

/// The checkpoint beside a SavedModel, as a release finds it on disk.
pub(super) struct Checkpoint {
    /// `DIR/variables/variables`, as TensorFlow names it in messages.
    prefix: String,
    /// `DIR/variables`.
    folder: PathBuf,
    index: Index,
    /// Whether a file is named exactly as the prefix: a V1 checkpoint, which the readers fall
    /// back to when there is no `.index` file.
    v1_file: bool,
}

enum Index {
    Missing,
    /// Its bytes; `None` when too large to check.
    Read(Option<Vec<u8>>),
}

/// One tensor a restore looks up: its name and the type it expects.
pub(super) struct Wanted<'a> {
    pub(super) name: &'a str,
    pub(super) dtype: i32,
}

impl Checkpoint {
    /// Reads `dir/variables/variables.index` and notes which files are there. A file that
    /// cannot be read counts as missing, as it does for TensorFlow's readers.
    pub(super) fn read(dir: &Path) -> Checkpoint {
        let folder = dir.join("variables");
        let prefix_path = folder.join("variables");
        let index_path = folder.join("variables.index");
        let index = match std::fs::metadata(&index_path) {
            Ok(metadata) if metadata.is_file() && metadata.len() > MAX_INDEX_LEN => {
                Index::Read(None)
            }
            Ok(metadata) if metadata.is_file() => match std::fs::read(&index_path) {
                Ok(bytes) => Index::Read(Some(bytes)),
                Err(_) => Index::Missing,
            },
            _ => Index::Missing,
        };
        Checkpoint {
            prefix: prefix_path.display().to_string(),
            v1_file: prefix_path.is_file(),
            folder,
            index,
        }
    }

    /// `PREFIX.data-SSSSS-of-NNNNN` (`DataFilename`, `tensor_bundle.cc`).
    fn shard_name(&self, shard: i32, shards: i32) -> String {
        format!("{}.data-{shard:05}-of-{shards:05}", self.prefix)
    }

    fn shard_exists(&self, shard: i32, shards: i32) -> bool {
        let name = format!("variables.data-{shard:05}-of-{shards:05}");
        self.folder.join(name).is_file()
    }

    /// The entries of `names` that the index holds, by name, and the number of shards; `None`
    /// when the index is not one this crate checks (too large, compressed); the table reader's
    /// words when it is damaged.
    #[allow(clippy::type_complexity)]
    fn look_up(
        &self,
        names: &HashSet<&str>,
    ) -> Result<Option<(BTreeMap<String, BundleEntryProto>, i32)>, &'static str> {
        let Index::Read(Some(bytes)) = &self.index else {
            return Ok(None);
        };
        // A damaged table is refused in the reader's words, unless it is one this crate does
        // not read (and TensorFlow does).
        let damaged = |error: &IndexError| match error.tensorflow_words() {
            Some(words) => Err(words),
            None => Ok(None),
        };
        let header = match read_checkpoint_header(bytes) {
            Ok(header) => header,
            Err(Error::Index(error)) => return damaged(&error),
            Err(_) => return Ok(None),
        };
        let mut found = BTreeMap::new();
        let visited = for_each_entry(bytes, |key, value| {
            let Ok(key) = std::str::from_utf8(key) else {
                return;
            };
            if names.contains(key)
                && let Ok(entry) = BundleEntryProto::decode(value)
            {
                found.insert(key.to_string(), entry);
            }
        });
        match visited {
            Ok(()) => Ok(Some((found, header.num_shards))),
            Err(error) => damaged(&error),
        }
    }

    /// `Unsuccessful TensorSliceReader constructor: ...`: no `.index` and no V1 file.
    fn nothing_found(&self) -> Option<String> {
        match self.index {
            Index::Missing if !self.v1_file => Some(format!(
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching files \
                 for {}",
                self.prefix
            )),
            _ => None,
        }
    }

    /// `Loader._restore_checkpoint` of a TensorFlow 2 SavedModel: the reader opened, the
    /// checkpoint's object graph read from its shard.
    pub(super) fn restore_objects(&self) -> Option<LoadError> {
        if let Some(message) = self.nothing_found() {
            return Some(LoadError {
                python_class: "FileNotFoundError",
                message: with_device_advice(message),
            });
        }
        let (found, shards) = match self.look_up(&HashSet::from([OBJECT_GRAPH_KEY])) {
            Ok(found) => found?,
            // `py_checkpoint_reader.error_translator` raises what it does not recognize as a
            // plain `OpError`.
            Err(words) => {
                return Some(LoadError {
                    python_class: "OpError",
                    message: words.to_string(),
                });
            }
        };
        let entry = found.get(OBJECT_GRAPH_KEY)?;
        if self.shard_exists(entry.shard_id, shards) {
            return None;
        }
        Some(LoadError {
            python_class: "OpError",
            message: format!(
                "{}; No such file or directory",
                self.shard_name(entry.shard_id, shards)
            ),
        })
    }

    /// Running the `RestoreV2` node `node` of a TensorFlow 1 saver, which restores `wanted`.
    pub(super) fn restore_v2(
        &self,
        node: &str,
        wanted: &[Wanted<'_>],
        d: &Dialect,
    ) -> Option<LoadError> {
        let failed = |python_class, reason: String| LoadError {
            python_class,
            message: format!(
                "Graph execution error:\n\n{reason}\n\t [[{{{{node {node}}}}}]] \
                 [Op:__inference_pruned_N]"
            ),
        };
        if let Some(message) = self.nothing_found() {
            return Some(failed("NotFoundError", message));
        }
        let names: HashSet<&str> = wanted.iter().map(|w| w.name).collect();
        let (found, shards) = match self.look_up(&names) {
            Ok(found) => found?,
            Err(words) => return Some(failed("DataLossError", words.to_string())),
        };
        let mut in_order: Vec<&Wanted<'_>> = wanted.iter().collect();
        in_order.sort_by_key(|w| w.name);
        let mut entries = Vec::with_capacity(in_order.len());
        for w in &in_order {
            let Some(entry) = found.get(w.name) else {
                return Some(failed(
                    "NotFoundError",
                    format!("Key {} not found in checkpoint", w.name),
                ));
            };
            entries.push(entry);
        }
        let mismatched: Vec<String> = in_order
            .iter()
            .zip(&entries)
            .filter(|(w, entry)| w.dtype != entry.dtype)
            .map(|(w, entry)| {
                format!(
                    "tensor_name = {}; expected dtype {} does not equal original dtype {}",
                    w.name,
                    d.dtype_string(w.dtype),
                    d.dtype_string(entry.dtype)
                )
            })
            .collect();
        if !mismatched.is_empty() {
            return Some(failed("InvalidArgumentError", mismatched.join("\n")));
        }
        let missing = entries
            .iter()
            .find(|entry| !self.shard_exists(entry.shard_id, shards))?;
        Some(failed(
            "NotFoundError",
            format!(
                "{}; No such file or directory",
                self.shard_name(missing.shard_id, shards)
            ),
        ))
    }
}
