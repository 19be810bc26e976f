//! The crate's one error type, [`Error`], and the families it groups.
//!
//! As in rustls, the top-level enum is small and each large group of causes is an enum of its
//! own that a caller can match on: [`DecodeError`] (the bytes are not a readable GraphDef,
//! SavedModel or bundle header), [`FileError`] (a path names nothing readable) and [`Refusal`] (TensorFlow would not load the data, in its own
//! words). Every family displays as itself: the family variants of [`Error`] are transparent, so
//! `error.to_string()` is the family's message, byte for byte.
//!
//! Refusals carry TensorFlow's own messages, to the byte (see
//! `tensorflow/core/framework/versions.cc` and `tensorflow/core/framework/op_def_util.cc`);
//! decode errors say where in the bytes the problem is and what to do.

use std::path::PathBuf;

use crate::version::{Scheme, Version};

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a readable GraphDef, SavedModel or bundle header.
    #[error(transparent)]
    Decode(#[from] DecodeError),

    /// The data is well formed, but a consumer refuses it: TensorFlow's own message.
    #[error(transparent)]
    Refused(#[from] Refusal),

    /// A checkpoint's `.index` file is not a readable table, or holds no header.
    #[error(transparent)]
    Index(#[from] IndexError),

    /// A path given to judge names no file that can be read as a model.
    #[error(transparent)]
    File(#[from] FileError),

    /// A version number could not be parsed.
    #[error("invalid version {input:?}: write it as a whole number, for example 2474")]
    InvalidVersion {
        /// The offending text (at most its first 32 characters).
        input: String,
    },

    /// A TensorFlow release string could not be parsed.
    #[error(
        "invalid TensorFlow release {input:?}: write it as MAJOR.MINOR.PATCH, for example 2.21.0"
    )]
    InvalidRelease {
        /// The offending text (at most its first 32 characters).
        input: String,
    },

    /// A registry already holds a deprecation for this op.
    #[error("op {op} is already registered as deprecated; register each op once")]
    DuplicateOp {
        /// The op's name.
        op: String,
    },
}

/// Why a consumer refuses data it could read: TensorFlow's checks, in TensorFlow's words.
///
/// The four version refusals are `CheckVersions` (`tensorflow/core/framework/versions.cc`), in
/// its order; the op refusal is `CheckOpDeprecation` (`tensorflow/core/framework/op_def_util.cc`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The consumer itself is misconfigured: its version is below its own minimum producer.
    /// TensorFlow reports this as an internal error, before looking at the data.
    #[error("{} version check has consumer {consumer} < min_producer {min_producer}.", scheme.upper_name())]
    ConsumerBelowMinProducer {
        /// The scheme being checked.
        scheme: Scheme,
        /// The consumer's version.
        consumer: Version,
        /// The consumer's minimum producer.
        min_producer: Version,
    },

    /// The data was produced by a binary older than the consumer still reads.
    #[error(
        "{} producer version {producer} below min producer {min_producer} supported by TensorFlow {tf_version}.  Please regenerate your {}.",
        scheme.upper_name(),
        scheme.lower_name()
    )]
    ProducerTooOld {
        /// The scheme being checked.
        scheme: Scheme,
        /// The data's producer.
        producer: Version,
        /// The consumer's minimum producer.
        min_producer: Version,
        /// The consumer's release, as it names itself (for example `2.21.0`).
        tf_version: String,
    },

    /// The data requires a newer consumer.
    #[error(
        "{} min consumer version {min_consumer} above current version {consumer} for TensorFlow {tf_version}.  Please upgrade TensorFlow.",
        scheme.upper_name()
    )]
    ConsumerTooOld {
        /// The scheme being checked.
        scheme: Scheme,
        /// The data's minimum consumer.
        min_consumer: Version,
        /// The consumer's version.
        consumer: Version,
        /// The consumer's release, as it names itself.
        tf_version: String,
    },

    /// The data names this consumer's version as known to be buggy with it.
    #[error(
        "{} disallows consumer version {consumer}.  Please upgrade TensorFlow: this version is likely buggy.",
        scheme.upper_name()
    )]
    BadConsumer {
        /// The scheme being checked.
        scheme: Scheme,
        /// The consumer's version, found in the data's `bad_consumers`.
        consumer: Version,
    },

    /// The graph uses an op that was removed at or before the graph's producer version.
    ///
    /// TensorFlow appends a period after the explanation even when the explanation already ends
    /// with one; so does this message.
    #[error(
        "Op {op} is not available in GraphDef version {producer}. It has been removed in version {removed_in}. {explanation}."
    )]
    OpRemoved {
        /// The op's name.
        op: String,
        /// The graph's producer version.
        producer: Version,
        /// The version the op was deprecated at.
        removed_in: Version,
        /// What to use instead.
        explanation: String,
    },
}

/// Why bytes could not be read as the message they should be.
///
/// Offsets count bytes from the start of the whole input. A variant that keeps an underlying
/// cause ([`WireError`], or prost's error) as its [`source`](std::error::Error::source) does
/// not repeat that cause's text in its own message: print the chain to see both.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A length or value ran past the end of its enclosing bytes.
    #[error(
        "truncated input: {what} at byte {offset} needs {needed} bytes but only {available} remain; the file is cut short or is not a {expected}"
    )]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset where it starts.
        offset: usize,
        /// How many bytes it claims.
        needed: u64,
        /// How many bytes are left in the enclosing message.
        available: usize,
        /// The message being read.
        expected: &'static str,
    },

    /// The bytes are not valid protobuf framing (bad varint, bad tag, bad group).
    #[error(
        "malformed protobuf at byte {offset} while reading {expected}: the file is damaged or is not a {expected}"
    )]
    Malformed {
        /// Byte offset where the bad field starts.
        offset: usize,
        /// The message being read.
        expected: &'static str,
        /// What is wrong with the field's framing.
        #[source]
        source: WireError,
    },

    /// A string field does not hold UTF-8.
    #[error("{what} at byte {offset} is not valid UTF-8; protobuf strings must be UTF-8")]
    NotUtf8 {
        /// Which field.
        what: &'static str,
        /// Byte offset of its contents.
        offset: usize,
    },

    /// The input is larger than any protobuf message may be.
    #[error(
        "the input is {len} bytes; a protobuf message is at most 2 GiB, so this is not a GraphDef or SavedModel"
    )]
    TooLarge {
        /// The input's size.
        len: u64,
    },

    /// The bytes are another kind of model file that another tool of this workspace reads:
    /// told by its magic bytes, before any protobuf is read.
    #[error("this is {what}, not a GraphDef or SavedModel; {tool} reads it")]
    OtherFormat {
        /// What the file is, for example "a TensorFlow Lite model".
        what: &'static str,
        /// The tool that reads it, for example "tflite-opver".
        tool: &'static str,
    },

    /// The bytes decode, but are neither a GraphDef nor a SavedModel.
    #[error("not a GraphDef or SavedModel: {reason}")]
    UnknownArtifact {
        /// Why.
        reason: &'static str,
    },

    /// A full protobuf decode (every field, as prost reads it) failed.
    #[error("cannot decode {what}: the file is damaged or is not a {what}")]
    Message {
        /// The message being decoded.
        what: &'static str,
        /// prost's error.
        #[source]
        source: prost::DecodeError,
    },
}

/// What is wrong with a protobuf field's framing: the cause of a [`DecodeError::Malformed`].
///
/// Each is a way bytes fail to be the protobuf wire format at all, whatever message they were
/// meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The bytes end inside a varint.
    #[error("a varint is cut short")]
    VarintCutShort,
    /// A varint runs on past ten bytes, the most a 64-bit value takes.
    #[error("a varint is longer than ten bytes")]
    VarintTooLong,
    /// A field key does not fit in 32 bits.
    #[error("a field key is larger than 32 bits")]
    KeyTooLarge,
    /// A field key names field 0, which no message has.
    #[error("a field key names field number 0")]
    FieldNumberZero,
    /// A field key's wire type is 6 or 7, which protobuf does not define.
    #[error("a field key has wire type {0}, which protobuf does not define")]
    NoSuchWireType(u8),
    /// A fixed-width or length-delimited value runs past the end of the bytes.
    #[error("a field's value runs past the end of the bytes")]
    ValueCutShort,
    /// A group has no end tag before the bytes end.
    #[error("a group is not ended")]
    GroupNotEnded,
    /// A group is ended by the end tag of another field.
    #[error("the group of field {started} is ended by the end tag of field {ended}")]
    GroupEndMismatch {
        /// The group's field.
        started: u32,
        /// The field the end tag names.
        ended: u32,
    },
    /// An end-group tag where no group was started.
    #[error("an end-group tag ends no group")]
    EndGroupOutsideGroup,
    /// Groups nested more than 100 deep, past protobuf's parsers' limit.
    #[error("groups nest more than 100 deep")]
    GroupsTooDeep,
}

/// Why a path given to judge ([`ReleaseJudge::judge_path`](crate::ReleaseJudge::judge_path))
/// names no file that can be read: each message names the path and what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file could not be opened or read (it does not exist, it may not be read...).
    #[error("cannot read {}: {reason}", path.display())]
    Read {
        /// The path, as given.
        path: PathBuf,
        /// What the operating system said (`std::io::Error`'s text).
        reason: String,
    },
    /// The path names a pipe, a socket or a device: nothing is opened (opening a pipe no one
    /// writes to would wait forever).
    #[error(
        "{} is a pipe, socket or device, not a file: give a binary GraphDef, a SavedModel's \
         saved_model.pb or its directory",
        path.display()
    )]
    NotAFile {
        /// The path, as given.
        path: PathBuf,
    },
    /// A directory without a `saved_model.pb`, in TensorFlow's words (`loader_impl.py`).
    #[error(
        "{} is not a SavedModel directory: SavedModel file does not exist at: \
         {}/{{saved_model.pbtxt|saved_model.pb}}",
        dir.display(),
        dir.display()
    )]
    NoSavedModel {
        /// The directory, as given.
        dir: PathBuf,
    },
    /// The file is larger than any protobuf message: nothing is read.
    #[error(
        "{} is {len} bytes, above protobuf's limit of {} bytes (2 GiB) for one message: \
         TensorFlow cannot parse it as a GraphDef or SavedModel",
        path.display(),
        crate::wire::MAX_MESSAGE_LEN
    )]
    TooLarge {
        /// The file read.
        path: PathBuf,
        /// Its length.
        len: u64,
    },
}

/// Why the bytes of a checkpoint's `.index` file are not a table with a header in it.
///
/// Each message starts with the words TensorFlow's table reader uses for the same fault
/// (`tensorflow/core/lib/io/{format,block,table}.cc`, and `BundleReader` in
/// `tensorflow/core/util/tensor_bundle/tensor_bundle.cc`; TensorFlow raises them all as
/// `DATA_LOSS`), then says where and what to do. Offsets count bytes from the start of the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// Shorter than a table's footer.
    #[error(
        "file is too short to be an sstable: {len} bytes, but a table ends in a 48-byte footer; \
         give the checkpoint's .index file"
    )]
    TooShort {
        /// The file's length.
        len: usize,
    },

    /// The footer does not end in the table magic number.
    #[error(
        "not an sstable (bad magic number): this is not a checkpoint .index file, or its end is \
         missing; give the PREFIX.index file that tf.train.Checkpoint wrote"
    )]
    BadMagic,

    /// A block handle (two varints) does not decode.
    #[error(
        "bad block handle at byte {at}: the .index file is damaged; write the checkpoint again"
    )]
    BadBlockHandle {
        /// Where the handle starts.
        at: usize,
    },

    /// A block handle points past the end of the file.
    #[error(
        "Read less bytes than requested: a block at byte {offset} needs {needed} bytes with its \
         trailer, but the file is {len} bytes; the .index file is cut short"
    )]
    ShortRead {
        /// Where the block starts.
        offset: u64,
        /// Its size with the 5-byte trailer.
        needed: u64,
        /// The file's length.
        len: usize,
    },

    /// A block's CRC-32C does not match its trailer.
    #[error(
        "block checksum mismatch: the block at byte {offset} is damaged; write the checkpoint again"
    )]
    ChecksumMismatch {
        /// Where the block starts.
        offset: usize,
    },

    /// A block's trailer names no compression TensorFlow knows.
    #[error(
        "bad block type {kind}: the block at byte {offset} is damaged; write the checkpoint again"
    )]
    BadBlockType {
        /// Where the block starts.
        offset: usize,
        /// The compression byte found.
        kind: u8,
    },

    /// A block is snappy-compressed, which this crate does not decompress.
    #[error(
        "the block at byte {offset} is snappy-compressed: TensorFlow has written uncompressed \
         checkpoint tables since 1.2 and this crate reads only those; re-save the checkpoint \
         with a current TensorFlow"
    )]
    Compressed {
        /// Where the block starts.
        offset: usize,
    },

    /// A block's restart array does not fit in it.
    #[error(
        "bad block contents: the block at byte {offset} is damaged; write the checkpoint again"
    )]
    BadBlockContents {
        /// Where the block starts.
        offset: usize,
    },

    /// An entry of a block does not decode.
    #[error(
        "bad entry in block: the block at byte {offset} is damaged; write the checkpoint again"
    )]
    BadEntry {
        /// Where the block starts.
        offset: usize,
    },

    /// The table holds no entry at all, so no header.
    #[error(
        "failed to seek to header entry: the table is empty, so it holds no BundleHeaderProto; \
         this is not a checkpoint's .index file"
    )]
    NoHeader,
}

impl IndexError {
    /// What TensorFlow's table reader says of the fault, without this crate's advice
    /// (`tensorflow/core/lib/io/{table,block,format}.cc`); `None` for a table this crate does
    /// not read but TensorFlow does (a snappy-compressed block).
    pub(crate) fn tensorflow_words(&self) -> Option<&'static str> {
        Some(match self {
            IndexError::TooShort { .. } => "file is too short to be an sstable",
            IndexError::BadMagic => "not an sstable (bad magic number)",
            IndexError::BadBlockHandle { .. } => "bad block handle",
            IndexError::ShortRead { .. } => "Read less bytes than requested",
            IndexError::ChecksumMismatch { .. } => "block checksum mismatch",
            IndexError::BadBlockType { .. } => "bad block type",
            IndexError::Compressed { .. } => return None,
            IndexError::BadBlockContents { .. } => "bad block contents",
            IndexError::BadEntry { .. } => "bad entry in block",
            IndexError::NoHeader => "failed to seek to header entry",
        })
    }
}
