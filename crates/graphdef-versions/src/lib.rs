//! TensorFlow's data-versioning scheme for GraphDefs and checkpoints.
//!
//! Every piece of data carries a [`VersionDef`] `{producer, min_consumer, bad_consumers}`; every
//! consumer binary knows its own `(consumer, min_producer)`. The consumer accepts the data when
//! `consumer >= min_consumer`, `producer >= min_producer`, and `consumer` is not one of the
//! `bad_consumers`. GraphDefs and checkpoints are two independent schemes with their own numbers.
//!
//! ```
//! use graphdef_versions::VersionDef;
//! use prost::Message;
//!
//! let versions = VersionDef { producer: 2474, min_consumer: 0, bad_consumers: vec![] };
//! let bytes = versions.encode_to_vec();
//! assert_eq!(VersionDef::decode(bytes.as_slice()).unwrap(), versions);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[rustfmt::skip]
pub mod generated;

pub use generated::tensorflow::VersionDef;
