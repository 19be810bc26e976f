//! Checkpoints: the same scheme with its own numbers.
//!
//! A TensorFlow checkpoint (tensor bundle) stores a `BundleHeaderProto` under the empty key of
//! its `.index` file; the header's `version` is a VersionDef of the checkpoint scheme, checked
//! by the reader exactly like a graph's, with "Checkpoint"/"checkpoint" in the messages
//! (`tensorflow/core/util/tensor_bundle/tensor_bundle.cc`).
//!
//! [`check_checkpoint_index`] takes the whole `.index` file; [`check_bundle_header`] takes the
//! header record's bytes, found with [`bundle_header`].

mod table;

use prost::Message;

pub(crate) use table::for_each_entry;
pub use table::{bundle_header, looks_like_index};

use crate::consumer::Consumer;
use crate::error::{DecodeError, Error};
use crate::schema::BundleHeaderProto;
use crate::wire::check_size;

/// Reads the header of a checkpoint's `.index` file and checks its version for `consumer`
/// (normally [`Consumer::tensorflow_checkpoint`]), as `BundleReader` does when it opens a
/// checkpoint.
///
/// ```
/// use graphdef_versions::{Consumer, Error, IndexError, check_checkpoint_index};
///
/// let error = check_checkpoint_index(b"not a table", &Consumer::tensorflow_checkpoint());
/// assert_eq!(error.unwrap_err(), Error::Index(IndexError::TooShort { len: 11 }));
/// ```
pub fn check_checkpoint_index(
    index: &[u8],
    consumer: &Consumer,
) -> Result<BundleHeaderProto, Error> {
    let header = read_checkpoint_header(index)?;
    consumer.check(&header.version.clone().unwrap_or_default())?;
    Ok(header)
}

/// Reads and decodes the header of a checkpoint's `.index` file, without judging it: for a
/// report that shows the header of a checkpoint a consumer refuses.
pub fn read_checkpoint_header(index: &[u8]) -> Result<BundleHeaderProto, Error> {
    check_size(index)?;
    decode_header(bundle_header(index)?)
}

/// Decodes a serialized `BundleHeaderProto` (TensorFlow: "Entry for key  not parseable.").
fn decode_header(header: &[u8]) -> Result<BundleHeaderProto, Error> {
    check_size(header)?;
    BundleHeaderProto::decode(header).map_err(|source| {
        DecodeError::Message {
            what: "BundleHeaderProto",
            source,
        }
        .into()
    })
}

/// Decodes a serialized `BundleHeaderProto` and checks its version for `consumer` (normally
/// [`Consumer::tensorflow_checkpoint`]). A header without a version reads as producer 0.
pub fn check_bundle_header(header: &[u8], consumer: &Consumer) -> Result<BundleHeaderProto, Error> {
    let decoded = decode_header(header)?;
    consumer.check(&decoded.version.clone().unwrap_or_default())?;
    Ok(decoded)
}
