//! Version numbers, the two versioning schemes, and TensorFlow's constants for each.
//!
//! A [`Version`] is one number of one scheme. GraphDef versions and checkpoint versions are two
//! separate number lines that evolve at their own rates; [`Scheme`] says which one a number
//! belongs to, and [`Constants`] holds one binary's three numbers for one scheme.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// One version number of a scheme (a GraphDef version or a checkpoint version).
///
/// TensorFlow stores these as `int32`, and data in the wild does hold negative numbers (a graph
/// with producer `-1` is simply too old for everybody), so the full `i32` range is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Version(i32);

impl Version {
    /// Wraps a raw version number.
    pub const fn new(number: i32) -> Self {
        Version(number)
    }

    /// The raw number, as it is stored in a [`VersionDef`](crate::schema::VersionDef).
    pub const fn get(self) -> i32 {
        self.0
    }
}

impl From<i32> for Version {
    fn from(number: i32) -> Self {
        Version(number)
    }
}

impl From<Version> for i32 {
    fn from(version: Version) -> Self {
        version.0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for Version {
    type Err = Error;

    /// Parses a decimal `int32`, as TensorFlow stores versions: `2474`, `0`, `-1`.
    fn from_str(text: &str) -> Result<Self, Error> {
        text.parse()
            .map(Version)
            .map_err(|_| Error::InvalidVersion {
                input: text.chars().take(32).collect(),
            })
    }
}

/// Which data-versioning scheme a number belongs to.
///
/// Both schemes follow the same rules with separate numbers; they differ only in their numbers
/// and in the words TensorFlow uses in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// GraphDefs: the `versions` field of `GraphDef` (and of every graph in a SavedModel).
    GraphDef,
    /// Checkpoints: the `version` field of a tensor bundle's `BundleHeaderProto`.
    Checkpoint,
}

impl Scheme {
    /// The capitalised name TensorFlow starts its messages with: `GraphDef` or `Checkpoint`.
    pub const fn upper_name(self) -> &'static str {
        match self {
            Scheme::GraphDef => "GraphDef",
            Scheme::Checkpoint => "Checkpoint",
        }
    }

    /// The noun TensorFlow uses inside its messages: `graph` or `checkpoint`.
    pub const fn lower_name(self) -> &'static str {
        match self {
            Scheme::GraphDef => "graph",
            Scheme::Checkpoint => "checkpoint",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.upper_name())
    }
}

/// One binary's three numbers for one scheme.
///
/// As a consumer the binary reads data whose producer is at least `min_producer`, provided the
/// data's `min_consumer` is at most `current`; as a producer it stamps new data with
/// `(current, min_consumer)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Constants {
    /// The scheme these numbers belong to.
    pub scheme: Scheme,
    /// The version this binary produces, and its own version as a consumer.
    pub current: Version,
    /// The oldest producer version this binary still reads.
    pub min_producer: Version,
    /// The oldest consumer version that can read data this binary produces.
    pub min_consumer: Version,
}

/// The TensorFlow release whose constants this crate ships.
pub const TF_VERSION: &str = "2.21.0";

/// TensorFlow 2.21's GraphDef constants.
///
/// From `tensorflow/core/public/version.h` at v2.21.0: `TF_GRAPH_DEF_VERSION` 2474,
/// `TF_GRAPH_DEF_VERSION_MIN_PRODUCER` 0, `TF_GRAPH_DEF_VERSION_MIN_CONSUMER` 0.
pub const GRAPH_DEF: Constants = Constants {
    scheme: Scheme::GraphDef,
    current: Version::new(2474),
    min_producer: Version::new(0),
    min_consumer: Version::new(0),
};

/// TensorFlow 2.21's checkpoint constants.
///
/// From `tensorflow/core/public/version.h` at v2.21.0: `TF_CHECKPOINT_VERSION` 1,
/// `TF_CHECKPOINT_VERSION_MIN_PRODUCER` 0, `TF_CHECKPOINT_VERSION_MIN_CONSUMER` 0 (the tensor
/// bundle reader, `tensorflow/core/util/tensor_bundle/tensor_bundle.cc`, uses the same numbers).
pub const CHECKPOINT: Constants = Constants {
    scheme: Scheme::Checkpoint,
    current: Version::new(1),
    min_producer: Version::new(0),
    min_consumer: Version::new(0),
};

impl Constants {
    /// The constants of `scheme` in the TensorFlow release this crate ships ([`TF_VERSION`]).
    pub const fn tensorflow(scheme: Scheme) -> Constants {
        match scheme {
            Scheme::GraphDef => GRAPH_DEF,
            Scheme::Checkpoint => CHECKPOINT,
        }
    }
}
