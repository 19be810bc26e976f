//! The producer side: stamping new data, banning buggy consumers, merging on import.

use std::collections::BTreeSet;

use crate::deprecation::Registry;
use crate::error::Error;
use crate::schema::{GraphDef, VersionDef};
use crate::version::{Constants, Scheme, Version};

/// A binary that writes versioned data.
///
/// New data inherits the producer's `(current, min_consumer)`. A producer that knows some
/// consumer version mishandles its data bans it through `bad_consumers`, either always or only
/// when the data uses given ops (the usual case: one kernel of one release is broken).
///
/// A GraphDef producer also knows its deprecated ops, and refuses to write a graph that uses
/// an op removed at or before its own version: the playbook's "make TensorFlow stop producing
/// GraphDefs with the banned functionality". TensorFlow's Python graph builder does the same
/// when an op is added (`_apply_op_helper` in `tensorflow/python/framework/op_def_library.py`),
/// with the message a consumer gives ([`Refusal::OpRemoved`](crate::Refusal::OpRemoved)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    constants: Constants,
    bans: Vec<Ban>,
    deprecations: Registry,
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
    /// A producer with these constants, no bans and no deprecated ops.
    pub fn new(constants: Constants) -> Self {
        Producer {
            constants,
            bans: Vec::new(),
            deprecations: Registry::empty(),
        }
    }

    /// TensorFlow 2.21 writing GraphDefs, with its deprecated ops.
    pub fn tensorflow_graph_def() -> Self {
        Producer::new(crate::version::GRAPH_DEF).with_deprecations(Registry::tensorflow())
    }

    /// The same producer, judging the ops of what it writes by `deprecations`.
    pub fn with_deprecations(mut self, deprecations: Registry) -> Self {
        self.deprecations = deprecations;
        self
    }

    /// The deprecated ops this producer knows.
    pub fn deprecations(&self) -> &Registry {
        &self.deprecations
    }

    /// The producer's version: what it stamps as `producer`.
    pub fn version(&self) -> Version {
        self.constants.current
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

    /// The VersionDef of new data that uses no op (or that says nothing of its ops): every
    /// unconditional ban, none of the conditional ones.
    pub fn stamp(&self) -> VersionDef {
        self.versions_using(&BTreeSet::new())
    }

    /// The VersionDef of new data that uses `ops`: `(current, min_consumer)` plus every
    /// unconditional ban and every ban whose ops the data uses, sorted and without repeats.
    ///
    /// Refused, in TensorFlow's words, when one of `ops` was removed at or before this
    /// producer's version (the first such op in the order given).
    pub fn stamp_for_ops<'a, I>(&self, ops: I) -> Result<VersionDef, Error>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let used = ops
            .into_iter()
            .map(|op| self.refuse_removed(op).map(|()| op))
            .collect::<Result<_, Error>>()?;
        Ok(self.versions_using(&used))
    }

    fn versions_using(&self, used: &BTreeSet<&str>) -> VersionDef {
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

    /// Stamps `graph` as new data of this producer: its ops (nodes and function bodies) are
    /// checked and its `versions` set as [`Producer::stamp_for_ops`] says, with `min_consumer`
    /// raised to at least [`MIN_CONSUMER_WITH_FUNCTIONS`] (12) when the graph has library
    /// functions, as TensorFlow's graph builder raises it when a function is added
    /// (`Graph._add_function`, `tensorflow/python/framework/ops.py`). On refusal the graph is
    /// left unchanged.
    pub fn stamp_graph(&self, graph: &mut GraphDef) -> Result<(), Error> {
        let functions = graph.library.iter().flat_map(|library| &library.function);
        let ops = graph
            .node
            .iter()
            .chain(functions.clone().flat_map(|function| &function.node_def));
        let mut versions = self.stamp_for_ops(ops.map(|node| node.op.as_str()))?;
        if functions.count() > 0 {
            versions.min_consumer = versions.min_consumer.max(MIN_CONSUMER_WITH_FUNCTIONS);
        }
        graph.versions = Some(versions);
        Ok(())
    }

    /// An error when `op` is gone at this producer's version.
    fn refuse_removed(&self, op: &str) -> Result<(), Error> {
        match self.deprecations.get(op) {
            Some(deprecated) => deprecated
                .judge(self.constants.current)
                .map(drop)
                .map_err(Error::from),
            None => Ok(()),
        }
    }
}

/// The `min_consumer` of a graph that has library functions: GraphDef version 12 is the first
/// whose consumers read a function library (`Graph._add_function`,
/// `tensorflow/python/framework/ops.py`, raises `min_consumer` to it).
pub const MIN_CONSUMER_WITH_FUNCTIONS: i32 = 12;

/// The VersionDef of a graph after `imported` is imported into it: the older producer, the
/// stricter `min_consumer`, and, when `imported` bans consumers, the sorted union of both
/// `bad_consumers`; when it bans none, the graph's own list is kept as it is.
///
/// This is what TensorFlow's graph importer does (`UpdateVersionDef` in
/// `tensorflow/core/common_runtime/graph_constructor.cc`), so a graph that absorbed old data
/// keeps being judged as old.
pub fn merge_on_import(into: &VersionDef, imported: &VersionDef) -> VersionDef {
    let bad_consumers = if imported.bad_consumers.is_empty() {
        into.bad_consumers.clone()
    } else {
        let union: BTreeSet<i32> = into
            .bad_consumers
            .iter()
            .chain(&imported.bad_consumers)
            .copied()
            .collect();
        union.into_iter().collect()
    };
    VersionDef {
        producer: into.producer.min(imported.producer),
        min_consumer: into.min_consumer.max(imported.min_consumer),
        bad_consumers,
    }
}
