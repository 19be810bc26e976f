//! Checking a file for one consumer, as TensorFlow's importer checks it: versions first, then
//! the ops of every node against the deprecation registry. (Which of ten real releases load a
//! file, each with its own ops, is [`ReleaseJudge`](crate::ReleaseJudge)'s question.)

use crate::artifact::{Artifact, Kind};
use crate::consumer::Consumer;
use crate::deprecation::{OpAssessment, Registry};
use crate::error::Error;
use crate::sniff::GraphSummary;
use crate::version::Version;

/// The check of one graph of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphCheck {
    /// For a SavedModel: which meta graph, from 0.
    pub meta_graph: Option<usize>,
    /// The graph's versions and counts.
    pub summary: GraphSummary,
    /// The deprecated ops it uses, judged at its producer version.
    pub ops: OpAssessment,
    /// Why the consumer refuses the graph (TensorFlow's message), or `None` when it accepts it.
    /// A version problem comes first; otherwise the first removed op.
    pub error: Option<Error>,
}

/// The check of a file: one [`GraphCheck`] per graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// What the file is.
    pub kind: Kind,
    /// One per graph (one for a GraphDef, one per meta graph for a SavedModel).
    pub graphs: Vec<GraphCheck>,
}

impl CheckReport {
    /// Whether the consumer accepts every graph of the file.
    pub fn accepted(&self) -> bool {
        self.graphs.iter().all(|graph| graph.error.is_none())
    }

    /// The first refusal, if any.
    pub fn first_error(&self) -> Option<&Error> {
        self.graphs.iter().find_map(|graph| graph.error.as_ref())
    }
}

/// Checks a GraphDef or SavedModel file for `consumer`, with `registry`'s deprecations.
///
/// `Err` means the bytes could not be read; a graph the consumer refuses is an `Ok` report
/// whose graphs carry the error.
pub fn check_file(
    bytes: &[u8],
    consumer: &Consumer,
    registry: &Registry,
) -> Result<CheckReport, Error> {
    let artifact = Artifact::open(bytes)?;
    let mut graphs = Vec::with_capacity(artifact.graphs().len());
    for graph in artifact.graphs() {
        let summary = graph.sniff()?;
        let producer = Version::new(summary.versions.producer);
        // Keep only the first use of each deprecated op: a million-node graph costs no list of
        // its ops, and each node one hash probe.
        let mut seen = vec![false; registry.len()];
        let mut used = Vec::new();
        graph.scan_ops(|site| {
            if let Some(at) = registry.position(site.op)
                && !std::mem::replace(&mut seen[at], true)
            {
                used.push(site.op);
            }
        })?;
        let ops = registry.assess(used, producer);
        let error = consumer
            .check(&summary.versions)
            .err()
            .or_else(|| ops.first_error());
        graphs.push(GraphCheck {
            meta_graph: graph.meta_graph.as_ref().map(|info| info.index),
            summary,
            ops,
            error,
        });
    }
    Ok(CheckReport {
        kind: artifact.kind(),
        graphs,
    })
}
