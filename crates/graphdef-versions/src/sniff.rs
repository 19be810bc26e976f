//! Reading a GraphDef's versions and ops straight from its bytes.
//!
//! A GraphDef is mostly `node` fields. To judge its versions, nothing inside them matters: the
//! sniffer reads the top-level fields, decodes `versions` (field 4), and steps over each node by
//! its length prefix. It allocates nothing per node, so a million-node graph costs a million
//! length reads instead of a million decoded messages. The op scan goes one level deeper and
//! reads only `NodeDef.op` (field 2) of every node, in the graph and in every function of the
//! library, borrowing each name from the input.
//!
//! What is read is validated as TensorFlow's own parser (upb, or protobuf's C++ runtime)
//! validates it: lengths, and UTF-8 of op names; a known field with another wire type than
//! its declaration is an unknown field, skipped as TF skips it (prost would refuse it). What
//! is skipped is only checked for framing. A
//! graph written by TensorFlow in several pieces (protobuf's "concatenated messages merge")
//! reads the same as the merged graph: later `producer` and `min_consumer` values win and
//! `bad_consumers` accumulate.

use std::collections::HashSet;

use prost::Message;

use crate::error::{DecodeError, Error};
use crate::schema::VersionDef;
use crate::wire::{
    Fields, Value, check_size, last_payload, packed_varints, put_bytes_field, put_payload,
};

/// Field numbers of `GraphDef` (`tensorflow/core/framework/graph.proto`).
mod graph_def {
    pub const NODE: u32 = 1;
    pub const LIBRARY: u32 = 2;
    pub const VERSION: u32 = 3;
    pub const VERSIONS: u32 = 4;
}

/// Field numbers of `VersionDef` (`tensorflow/core/framework/versions.proto`).
mod version_def {
    pub const PRODUCER: u32 = 1;
    pub const MIN_CONSUMER: u32 = 2;
    pub const BAD_CONSUMERS: u32 = 3;
}

/// `NodeDef.op` (`tensorflow/core/framework/node_def.proto`).
const NODE_DEF_OP: u32 = 2;
/// `FunctionDefLibrary.function` (`tensorflow/core/framework/function.proto`).
const LIBRARY_FUNCTION: u32 = 1;
/// `FunctionDef.node_def` (`tensorflow/core/framework/function.proto`).
const FUNCTION_NODE_DEF: u32 = 3;

/// What the top level of a GraphDef says, read without decoding its nodes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GraphSummary {
    /// The graph's VersionDef; all zero when the graph has none (a graph from before
    /// versioning, which TensorFlow reads as producer 0).
    pub versions: VersionDef,
    /// Whether the graph has a `versions` field at all.
    pub has_versions: bool,
    /// The deprecated single `version` field (GraphDef field 3), if present.
    pub legacy_version: Option<i32>,
    /// How many nodes the graph has (not counting function bodies).
    pub nodes: usize,
    /// How many functions its library holds.
    pub library_functions: usize,
}

/// Where an op is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpUse<'a> {
    /// The op's name, borrowed from the input.
    pub op: &'a str,
    /// Whether the node is in a function body of the library rather than in the graph itself.
    pub in_library: bool,
}

/// Reads the versions and counts of a serialized `GraphDef`.
pub fn sniff(graph_def: &[u8]) -> Result<GraphSummary, Error> {
    check_size(graph_def)?;
    let mut summary = GraphSummary::default();
    sniff_part(graph_def, 0, &mut summary)?;
    Ok(summary)
}

/// Adds one serialized piece of a GraphDef, starting at `offset` of the whole input, to
/// `summary` (pieces of one message merge).
pub(crate) fn sniff_part(
    bytes: &[u8],
    offset: usize,
    summary: &mut GraphSummary,
) -> Result<(), Error> {
    for field in Fields::new(bytes, offset, "GraphDef") {
        let field = field?;
        match field.number {
            graph_def::NODE if field.payload().is_some() => summary.nodes += 1,
            graph_def::LIBRARY => {
                let Some((library, at)) = field.payload() else {
                    continue;
                };
                for function in Fields::new(library, at, "FunctionDefLibrary") {
                    let function = function?;
                    if function.number == LIBRARY_FUNCTION && function.payload().is_some() {
                        summary.library_functions += 1;
                    }
                }
            }
            graph_def::VERSION => {
                // int32 on the wire: a varint whose low 32 bits are the value.
                if let Some(value) = field.varint() {
                    summary.legacy_version = Some(value as i32);
                }
            }
            graph_def::VERSIONS => {
                if let Some((payload, at)) = field.payload() {
                    merge_version_def(payload, at, &mut summary.versions)?;
                    summary.has_versions = true;
                }
            }
            // Any other field, or a known one with another wire type: unknown, skipped.
            _ => {}
        }
    }
    Ok(())
}

/// Merges a serialized VersionDef into `versions`, as a protobuf decoder would.
pub(crate) fn merge_version_def(
    bytes: &[u8],
    offset: usize,
    versions: &mut VersionDef,
) -> Result<(), Error> {
    const MESSAGE: &str = "VersionDef";
    for field in Fields::new(bytes, offset, MESSAGE) {
        let field = field?;
        match (field.number, field.value) {
            (version_def::PRODUCER, Value::Varint(value)) => versions.producer = value as i32,
            (version_def::MIN_CONSUMER, Value::Varint(value)) => {
                versions.min_consumer = value as i32;
            }
            // Repeated int32: one varint per field, or packed.
            (version_def::BAD_CONSUMERS, Value::Varint(value)) => {
                versions.bad_consumers.push(value as i32);
            }
            (version_def::BAD_CONSUMERS, Value::Bytes(packed, at)) => {
                packed_varints(packed, at, MESSAGE, |value| {
                    versions.bad_consumers.push(value as i32);
                })?;
            }
            // Unknown fields, and known ones with another wire type, are skipped.
            _ => {}
        }
    }
    Ok(())
}

/// Calls `visit` with the op of every node of a serialized `GraphDef`, graph nodes and function
/// bodies alike, in wire order. Reads nothing else of the nodes.
pub fn scan_ops<'a, F>(graph_def: &'a [u8], mut visit: F) -> Result<(), Error>
where
    F: FnMut(OpUse<'a>),
{
    check_size(graph_def)?;
    scan_part(graph_def, 0, &mut visit)
}

pub(crate) fn scan_part<'a, F>(bytes: &'a [u8], offset: usize, visit: &mut F) -> Result<(), Error>
where
    F: FnMut(OpUse<'a>),
{
    let mut names = OpNames::new();
    for field in Fields::new(bytes, offset, "GraphDef") {
        let field = field?;
        // A known field with another wire type is an unknown field (see `Field::payload`).
        let Some((payload, at)) = field.payload() else {
            continue;
        };
        match field.number {
            graph_def::NODE => visit(OpUse {
                op: node_op(payload, at, &mut names)?,
                in_library: false,
            }),
            graph_def::LIBRARY => {
                for function in Fields::new(payload, at, "FunctionDefLibrary") {
                    let function = function?;
                    let Some((body, at)) = function.payload() else {
                        continue;
                    };
                    if function.number != LIBRARY_FUNCTION {
                        continue;
                    }
                    for node in Fields::new(body, at, "FunctionDef") {
                        let node = node?;
                        if let (FUNCTION_NODE_DEF, Some((node, at))) = (node.number, node.payload())
                        {
                            visit(OpUse {
                                op: node_op(node, at, &mut names)?,
                                in_library: true,
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The `op` of a serialized NodeDef: the last occurrence wins, absent means "".
fn node_op<'a>(node: &'a [u8], offset: usize, names: &mut OpNames<'a>) -> Result<&'a str, Error> {
    match last_payload(node, offset, "NodeDef", NODE_DEF_OP)? {
        Some((op, at)) => names.text(op, at),
        None => Ok(""),
    }
}

/// The op names met so far, to check each distinct name's UTF-8 about once.
///
/// A graph uses few distinct ops over many nodes. A name equal to one checked before is the
/// same valid text, so comparing it with the name last seen in its bucket (by length, first
/// and last byte) replaces most UTF-8 checks. The `&str` returned is then that earlier name:
/// equal text, borrowed from the same input.
struct OpNames<'a> {
    recent: [&'a str; OpNames::BUCKETS],
}

impl<'a> OpNames<'a> {
    const BUCKETS: usize = 64;

    fn new() -> Self {
        OpNames {
            recent: [""; OpNames::BUCKETS],
        }
    }

    fn text(&mut self, name: &'a [u8], offset: usize) -> Result<&'a str, Error> {
        let (first, last) = match name {
            [first, .., last] => (usize::from(*first), usize::from(*last)),
            [only] => (usize::from(*only), 0),
            [] => (0, 0),
        };
        let bucket = (name.len().wrapping_mul(7) ^ first ^ last.wrapping_mul(3)) % OpNames::BUCKETS;
        if self.recent[bucket].as_bytes() == name {
            return Ok(self.recent[bucket]);
        }
        let text = std::str::from_utf8(name).map_err(|_| DecodeError::NotUtf8 {
            what: "NodeDef.op",
            offset,
        })?;
        self.recent[bucket] = text;
        Ok(text)
    }
}

/// The distinct ops a serialized GraphDef uses (graph and library), in order of first use.
pub fn distinct_ops(graph_def: &[u8]) -> Result<Vec<&str>, Error> {
    let mut seen = HashSet::new();
    let mut ops = Vec::new();
    scan_ops(graph_def, |site| {
        if seen.insert(site.op) {
            ops.push(site.op);
        }
    })?;
    Ok(ops)
}

/// A copy of a serialized GraphDef whose VersionDef is `versions`, every other byte unchanged.
///
/// The first `versions` field is replaced in place; any later one (a merged-in piece) is
/// dropped so that `versions` is exactly what a decoder sees. A graph without one gets it
/// appended. [`rewrite_versions`](crate::rewrite_versions) does the same to a GraphDef or a
/// SavedModel, telling them apart first.
pub fn rewrite_graph_def_versions(
    graph_def: &[u8],
    versions: &VersionDef,
) -> Result<Vec<u8>, Error> {
    check_size(graph_def)?;
    rewrite_part(graph_def, 0, Some(versions))
}

/// Rewrites one piece of a GraphDef: with `Some`, the first `versions` becomes it (appended if
/// there is none); with `None`, every `versions` is removed.
pub(crate) fn rewrite_part(
    bytes: &[u8],
    offset: usize,
    versions: Option<&VersionDef>,
) -> Result<Vec<u8>, Error> {
    let payload = versions.map(Message::encode_to_vec);
    let mut out = Vec::with_capacity(bytes.len() + payload.as_ref().map_or(0, |p| p.len() + 11));
    let mut copied = 0;
    let mut written = false;
    for field in Fields::new(bytes, offset, "GraphDef") {
        let field = field?;
        // Only a length-delimited `versions` is one; another wire type is an unknown field,
        // which stays.
        if field.number != graph_def::VERSIONS || field.payload().is_none() {
            continue;
        }
        if let (Some(payload), false) = (&payload, written) {
            // Keep the tag exactly as written; only the length prefix and payload change.
            out.extend_from_slice(&bytes[copied..field.start - offset + field.key_len]);
            put_payload(&mut out, payload);
            written = true;
        } else {
            out.extend_from_slice(&bytes[copied..field.start - offset]);
        }
        copied = field.end - offset;
    }
    out.extend_from_slice(&bytes[copied..]);
    if let (Some(payload), false) = (&payload, written) {
        put_bytes_field(&mut out, graph_def::VERSIONS, payload);
    }
    Ok(out)
}
