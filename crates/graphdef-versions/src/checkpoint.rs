//! Checkpoints: the same scheme with its own numbers.
//!
//! A TensorFlow checkpoint (tensor bundle) stores a `BundleHeaderProto` under the empty key of
//! its `.index` file; the header's `version` is a VersionDef of the checkpoint scheme, checked
//! by the reader exactly like a graph's, with "Checkpoint"/"checkpoint" in the messages
//! (`tensorflow/core/util/tensor_bundle/tensor_bundle.cc`). Reading the `.index` table format
//! itself is outside this crate: hand it the header record's bytes.

use prost::Message;

use crate::check::Consumer;
use crate::error::{DecodeError, Error};
use crate::schema::BundleHeaderProto;
use crate::wire::check_size;

/// Decodes a serialized `BundleHeaderProto` and checks its version for `consumer` (normally
/// [`Consumer::tensorflow_checkpoint`]). A header without a version reads as producer 0.
pub fn check_bundle_header(header: &[u8], consumer: &Consumer) -> Result<BundleHeaderProto, Error> {
    check_size(header)?;
    let decoded = BundleHeaderProto::decode(header).map_err(|source| DecodeError::Message {
        what: "BundleHeaderProto",
        source,
    })?;
    consumer.check(&decoded.version.clone().unwrap_or_default())?;
    Ok(decoded)
}
