//! The consumer side: may this binary read this data?
//!
//! [`Consumer::check`] is TensorFlow's `CheckVersions` (`tensorflow/core/framework/versions.cc`):
//! same order, same messages. The order matters when several things are wrong at once: a
//! misconfigured consumer first, then the producer, then `min_consumer`, then `bad_consumers`.
//! A producer *newer* than the consumer is not an error by itself: the data's `min_consumer`
//! alone says whether an older consumer can read it.

use std::borrow::Cow;

use crate::error::{Error, Refusal};
use crate::schema::VersionDef;
use crate::version::{Constants, Scheme, TF_VERSION, Version};

/// A binary that reads versioned data: its version, the oldest producer it reads, and the name
/// it gives itself in messages.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Consumer {
    scheme: Scheme,
    version: Version,
    min_producer: Version,
    tf_version: Cow<'static, str>,
}

impl Consumer {
    /// A consumer of `scheme` data with its own `version` and `min_producer`, naming itself
    /// `tf_version` in messages ("... supported by TensorFlow {tf_version}.").
    pub fn new(
        scheme: Scheme,
        version: Version,
        min_producer: Version,
        tf_version: impl Into<Cow<'static, str>>,
    ) -> Self {
        Consumer {
            scheme,
            version,
            min_producer,
            tf_version: tf_version.into(),
        }
    }

    /// The consumer a binary with these constants is.
    pub fn from_constants(constants: &Constants, tf_version: impl Into<Cow<'static, str>>) -> Self {
        Consumer::new(
            constants.scheme,
            constants.current,
            constants.min_producer,
            tf_version,
        )
    }

    /// TensorFlow 2.21 reading GraphDefs: version 2474, min producer 0.
    pub fn tensorflow_graph_def() -> Self {
        Consumer::from_constants(&crate::version::GRAPH_DEF, TF_VERSION)
    }

    /// TensorFlow 2.21 reading checkpoints: version 1, min producer 0.
    pub fn tensorflow_checkpoint() -> Self {
        Consumer::from_constants(&crate::version::CHECKPOINT, TF_VERSION)
    }

    /// The scheme this consumer reads.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The consumer's own version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The oldest producer version the consumer reads.
    pub fn min_producer(&self) -> Version {
        self.min_producer
    }

    /// The name the consumer gives itself in messages.
    pub fn tf_version(&self) -> &str {
        &self.tf_version
    }

    /// Whether the consumer accepts data stamped with `versions`; if not, why, in TensorFlow's
    /// words.
    pub fn check(&self, versions: &VersionDef) -> Result<(), Error> {
        let scheme = self.scheme;
        if self.version < self.min_producer {
            return Err(Refusal::ConsumerBelowMinProducer {
                scheme,
                consumer: self.version,
                min_producer: self.min_producer,
            }
            .into());
        }
        let producer = Version::new(versions.producer);
        if producer < self.min_producer {
            return Err(Refusal::ProducerTooOld {
                scheme,
                producer,
                min_producer: self.min_producer,
                tf_version: self.tf_version.to_string(),
            }
            .into());
        }
        let min_consumer = Version::new(versions.min_consumer);
        if min_consumer > self.version {
            return Err(Refusal::ConsumerTooOld {
                scheme,
                min_consumer,
                consumer: self.version,
                tf_version: self.tf_version.to_string(),
            }
            .into());
        }
        if versions.bad_consumers.contains(&self.version.get()) {
            return Err(Refusal::BadConsumer {
                scheme,
                consumer: self.version,
            }
            .into());
        }
        Ok(())
    }
}
