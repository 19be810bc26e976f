//! The producer side: stamping new data, banning buggy consumers, merging on import.

use crate::schema::VersionDef;
use crate::version::{Constants, Scheme, Version};

/// A binary that writes versioned data.
///
/// New data inherits the producer's `(current, min_consumer)`. A producer that knows some
/// consumer version mishandles its data bans it through `bad_consumers`, either always or only
/// when the data uses given ops (the usual case: one kernel of one release is broken).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    constants: Constants,
    bans: Vec<Ban>,
}

/// One banned consumer version, unconditional or tied to ops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ban {
    /// The consumer version that must not read the data.
    pub consumer: Version,
    /// The ban applies only when the data uses one of these ops; empty means always.
    pub when_ops: Vec<String>,
}

impl Producer {
    /// A producer with these constants and no bans.
    pub fn new(constants: Constants) -> Self {
        Producer {
            constants,
            bans: Vec::new(),
        }
    }

    /// TensorFlow 2.21 writing GraphDefs.
    pub fn tensorflow_graph_def() -> Self {
        Producer::new(crate::version::GRAPH_DEF)
    }

    /// The scheme this producer writes.
    pub fn scheme(&self) -> Scheme {
        self.constants.scheme
    }

    /// Bans `consumer` from reading anything this producer writes.
    pub fn ban(mut self, consumer: Version) -> Self {
        self.bans.push(Ban {
            consumer,
            when_ops: Vec::new(),
        });
        self
    }

    /// Bans `consumer` from reading data that uses any of `ops`.
    pub fn ban_when_ops<I, S>(mut self, consumer: Version, ops: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.bans.push(Ban {
            consumer,
            when_ops: ops.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// The bans this producer applies.
    pub fn bans(&self) -> &[Ban] {
        &self.bans
    }

    /// The VersionDef of new data that uses none of the conditionally banned ops.
    pub fn stamp(&self) -> VersionDef {
        self.stamp_for_ops(std::iter::empty::<&str>())
    }

    /// The VersionDef of new data that uses `ops`: `(current, min_consumer)` plus every
    /// unconditional ban and every ban whose ops the data uses, sorted and without repeats.
    pub fn stamp_for_ops<'a, I>(&self, ops: I) -> VersionDef
    where
        I: IntoIterator<Item = &'a str>,
    {
        let used: std::collections::BTreeSet<&str> = ops.into_iter().collect();
        let mut bad: Vec<i32> = self
            .bans
            .iter()
            .filter(|ban| {
                ban.when_ops.is_empty() || ban.when_ops.iter().any(|op| used.contains(op.as_str()))
            })
            .map(|ban| ban.consumer.get())
            .collect();
        bad.sort_unstable();
        bad.dedup();
        VersionDef {
            producer: self.constants.current.get(),
            min_consumer: self.constants.min_consumer.get(),
            bad_consumers: bad,
        }
    }
}

/// The VersionDef of a graph after `imported` is imported into it: the older producer, the
/// stricter `min_consumer`, and the sorted union of both `bad_consumers`.
///
/// This is what TensorFlow's graph importer does (`UpdateVersionDef` in
/// `tensorflow/core/common_runtime/graph_constructor.cc`), so a graph that absorbed old data
/// keeps being judged as old.
pub fn merge_on_import(into: &VersionDef, imported: &VersionDef) -> VersionDef {
    let mut bad: Vec<i32> = into
        .bad_consumers
        .iter()
        .chain(&imported.bad_consumers)
        .copied()
        .collect();
    bad.sort_unstable();
    bad.dedup();
    VersionDef {
        producer: into.producer.min(imported.producer),
        min_consumer: into.min_consumer.max(imported.min_consumer),
        bad_consumers: bad,
    }
}
