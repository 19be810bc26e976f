//! Real files: a binary `GraphDef` or a `saved_model.pb`, told apart from their bytes.
//!
//! A `saved_model.pb` is a `SavedModel` holding one `MetaGraphDef` per tag set, each holding a
//! `GraphDef`. [`Artifact::open`] finds out which kind of file it has and where its graphs are,
//! without decoding them; the graphs are then sniffed, scanned or rewritten in place.
//!
//! [`Kind::detect`] says how the kind is told apart; [`Artifact::open_as`] skips the guess.

use prost::Message;

use crate::error::{DecodeError, Error};
use crate::schema::{GraphDef, SavedModel, VersionDef};
use crate::sniff::{GraphSummary, OpUse, rewrite_part, scan_part, sniff_part};
use crate::wire::{Fields, Value, check_size, put_payload};

/// `SavedModel` fields (`tensorflow/core/protobuf/saved_model.proto`).
const SAVED_MODEL_SCHEMA_VERSION: u32 = 1;
const SAVED_MODEL_META_GRAPHS: u32 = 2;
/// `MetaGraphDef` fields (`tensorflow/core/protobuf/meta_graph.proto`).
const META_GRAPH_META_INFO_DEF: u32 = 1;
const META_GRAPH_GRAPH_DEF: u32 = 2;
const META_GRAPH_OBJECT_GRAPH_DEF: u32 = 7;
/// `MetaGraphDef.MetaInfoDef` fields.
const META_INFO_TAGS: u32 = 4;
const META_INFO_TENSORFLOW_VERSION: u32 = 5;
/// `GraphDef` fields (`tensorflow/core/framework/graph.proto`).
const GRAPH_DEF_NODE: u32 = 1;
const GRAPH_DEF_VERSION: u32 = 3;
const GRAPH_DEF_VERSIONS: u32 = 4;
const GRAPH_DEF_DEBUG_INFO: u32 = 5;

/// Which kind of file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A binary `GraphDef` (`.pb`).
    GraphDef,
    /// A `saved_model.pb`.
    SavedModel,
}

impl Kind {
    /// Tells a binary GraphDef from a `saved_model.pb` by their top-level fields.
    ///
    /// The two messages share field numbers but not wire types: a GraphDef starts with nodes
    /// (field 1, length-delimited) and carries `versions` (field 4), a SavedModel starts with its
    /// schema version (field 1, a varint). When a file has only field 2 (a GraphDef with only a
    /// library, or a SavedModel whose schema version is 0 and so not written), it is a
    /// SavedModel if its first field 2 holds a meta graph whose `graph_def` carries `versions`,
    /// and a GraphDef otherwise. Empty bytes are an empty GraphDef.
    pub fn detect(bytes: &[u8]) -> Result<Kind, Error> {
        Kind::detect_counting_nodes(bytes).map(|(kind, _)| kind)
    }

    /// [`Kind::detect`], and how many top-level fields are a GraphDef's nodes (a reader that
    /// then reads them sizes its tables once).
    pub(crate) fn detect_counting_nodes(bytes: &[u8]) -> Result<(Kind, usize), Error> {
        check_size(bytes)?;
        if let Some(other) = other_format(bytes) {
            return Err(other.into());
        }
        let mut nodes = 0;
        let mut graph_evidence = false;
        let mut saved_model_evidence = false;
        let mut first_field_2 = None;
        for field in Fields::new(bytes, 0, "GraphDef or SavedModel") {
            let field = field?;
            match (field.number, field.value) {
                (SAVED_MODEL_SCHEMA_VERSION, Value::Varint(_)) => saved_model_evidence = true,
                (GRAPH_DEF_NODE, Value::Bytes(..))
                | (GRAPH_DEF_VERSION, Value::Varint(_))
                | (GRAPH_DEF_VERSIONS, Value::Bytes(..))
                | (GRAPH_DEF_DEBUG_INFO, Value::Bytes(..)) => {
                    nodes += usize::from(field.number == GRAPH_DEF_NODE);
                    graph_evidence = true;
                }
                (SAVED_MODEL_META_GRAPHS, Value::Bytes(payload, at)) => {
                    first_field_2.get_or_insert((payload, at));
                }
                (1..=5, _) => {
                    return Err(unknown(
                        "a field of GraphDef or SavedModel has a wire type neither message allows",
                    ));
                }
                _ => {}
            }
        }
        let kind = match (graph_evidence, saved_model_evidence) {
            (true, true) => {
                return Err(unknown(
                    "the top-level fields mix a GraphDef's and a SavedModel's",
                ));
            }
            (true, false) => Kind::GraphDef,
            (false, true) => Kind::SavedModel,
            (false, false) => match first_field_2 {
                Some((payload, at)) if looks_like_meta_graph(payload, at) => Kind::SavedModel,
                _ => Kind::GraphDef,
            },
        };
        Ok((kind, nodes))
    }

    /// `"graph_def"` or `"saved_model"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::GraphDef => "graph_def",
            Kind::SavedModel => "saved_model",
        }
    }
}

/// A file opened for version checks: its kind and where its graphs are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact<'a> {
    kind: Kind,
    saved_model_schema_version: Option<i64>,
    graphs: Vec<GraphBytes<'a>>,
}

/// One graph of an artifact, still serialized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphBytes<'a> {
    /// The serialized pieces of the graph, each with its offset in the file. A `GraphDef` file is
    /// one piece; protobuf lets a message be written in several pieces, which merge.
    parts: Vec<(&'a [u8], usize)>,
    /// For a SavedModel: which meta graph this is, its tags and the TensorFlow release that
    /// wrote it.
    pub meta_graph: Option<MetaGraphInfo<'a>>,
}

/// What a SavedModel's meta graph says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MetaGraphInfo<'a> {
    /// Position among the SavedModel's meta graphs, from 0.
    pub index: usize,
    /// Its tags, for example `["serve"]`.
    pub tags: Vec<&'a str>,
    /// The TensorFlow release that wrote it, for example `"2.21.0"`, when recorded.
    pub tensorflow_version: Option<&'a str>,
    /// Whether it holds a `SavedObjectGraph` (field 7): a TensorFlow 2 SavedModel, which
    /// `tf.saved_model.load` restores function by function. Without one (a TF1 SavedModel) it
    /// imports the graph instead.
    pub has_object_graph: bool,
}

impl<'a> Artifact<'a> {
    /// Tells what `bytes` is and finds its graphs.
    pub fn open(bytes: &'a [u8]) -> Result<Self, Error> {
        let kind = Kind::detect(bytes)?;
        Artifact::open_as(kind, bytes)
    }

    /// Reads `bytes` as the given kind.
    pub fn open_as(kind: Kind, bytes: &'a [u8]) -> Result<Self, Error> {
        check_size(bytes)?;
        match kind {
            Kind::GraphDef => Ok(Artifact {
                kind,
                saved_model_schema_version: None,
                graphs: vec![GraphBytes {
                    parts: vec![(bytes, 0)],
                    meta_graph: None,
                }],
            }),
            Kind::SavedModel => open_saved_model(bytes),
        }
    }

    /// The kind of file.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// For a SavedModel, its `saved_model_schema_version` (0 when not written).
    pub fn saved_model_schema_version(&self) -> Option<i64> {
        self.saved_model_schema_version
    }

    /// Its graphs: one for a GraphDef, one per meta graph for a SavedModel.
    pub fn graphs(&self) -> &[GraphBytes<'a>] {
        &self.graphs
    }
}

impl<'a> GraphBytes<'a> {
    /// The graph's versions and counts, read without decoding its nodes.
    pub fn sniff(&self) -> Result<GraphSummary, Error> {
        let mut summary = GraphSummary::default();
        for &(part, offset) in &self.parts {
            sniff_part(part, offset, &mut summary)?;
        }
        Ok(summary)
    }

    /// Calls `visit` with the op of every node, graph and library.
    pub fn scan_ops<F>(&self, mut visit: F) -> Result<(), Error>
    where
        F: FnMut(OpUse<'a>),
    {
        for &(part, offset) in &self.parts {
            scan_part(part, offset, &mut visit)?;
        }
        Ok(())
    }

    /// The distinct ops of the graph, in order of first use.
    pub fn ops(&self) -> Result<Vec<&'a str>, Error> {
        let mut seen = std::collections::HashSet::new();
        let mut ops = Vec::new();
        self.scan_ops(|site| {
            if seen.insert(site.op) {
                ops.push(site.op);
            }
        })?;
        Ok(ops)
    }

    /// The graph fully decoded.
    pub fn decode(&self) -> Result<GraphDef, Error> {
        let mut graph = GraphDef::default();
        for &(part, _) in &self.parts {
            graph.merge(part).map_err(|source| DecodeError::Message {
                what: "GraphDef",
                source,
            })?;
        }
        Ok(graph)
    }
}

/// Bytes that are neither a GraphDef nor a SavedModel, and why.
/// The model files of this workspace's other tools, by their magic bytes: read as protobuf, they
/// would only say that a field is malformed ("an end-group tag ends no group").
///
/// - a TensorFlow Lite model is a FlatBuffer whose file identifier, bytes 4 to 8, is `TFL3`
///   (`file_identifier "TFL3";`, `tensorflow/compiler/mlir/lite/schema/schema.fbs`);
/// - a shared library (a PluggableDevice plugin) is an ELF file, which starts with `\x7fELF`
///   (`ELFMAG`, `elf.h`).
pub(crate) fn other_format(bytes: &[u8]) -> Option<DecodeError> {
    let (what, tool) = if bytes.get(4..8) == Some(b"TFL3") {
        ("a TensorFlow Lite model", "tflite-opver")
    } else if bytes.starts_with(b"\x7fELF") {
        ("a shared library", "se-abi plugin-check")
    } else {
        return None;
    };
    Some(DecodeError::OtherFormat { what, tool })
}

fn unknown(reason: &'static str) -> Error {
    DecodeError::UnknownArtifact { reason }.into()
}

/// Whether a payload is a MetaGraphDef whose graph_def carries versions.
fn looks_like_meta_graph(payload: &[u8], at: usize) -> bool {
    Fields::new(payload, at, "MetaGraphDef").any(|field| match field {
        Ok(field) if field.number == META_GRAPH_GRAPH_DEF => match field.value {
            Value::Bytes(graph, at) => Fields::new(graph, at, "GraphDef").any(|inner| {
                matches!(inner, Ok(inner) if inner.number == GRAPH_DEF_VERSIONS
                    && matches!(inner.value, Value::Bytes(..)))
            }),
            _ => false,
        },
        _ => false,
    })
}

fn open_saved_model(bytes: &[u8]) -> Result<Artifact<'_>, Error> {
    let mut schema_version = 0;
    let mut graphs = Vec::new();
    for field in Fields::new(bytes, 0, "SavedModel") {
        let field = field?;
        // A known field with another wire type is an unknown field (see `Field::payload`).
        match (field.number, field.value) {
            (SAVED_MODEL_SCHEMA_VERSION, Value::Varint(value)) => schema_version = value as i64,
            (SAVED_MODEL_META_GRAPHS, Value::Bytes(meta_graph, at)) => {
                graphs.push(open_meta_graph(meta_graph, at, graphs.len())?);
            }
            _ => {}
        }
    }
    if graphs.is_empty() {
        return Err(unknown(
            "the SavedModel holds no meta graph, so there is no graph to check",
        ));
    }
    Ok(Artifact {
        kind: Kind::SavedModel,
        saved_model_schema_version: Some(schema_version),
        graphs,
    })
}

fn open_meta_graph(bytes: &[u8], offset: usize, index: usize) -> Result<GraphBytes<'_>, Error> {
    let mut parts = Vec::new();
    let mut info = MetaGraphInfo {
        index,
        ..MetaGraphInfo::default()
    };
    for field in Fields::new(bytes, offset, "MetaGraphDef") {
        let field = field?;
        let Some((payload, at)) = field.payload() else {
            continue;
        };
        match field.number {
            META_GRAPH_GRAPH_DEF => parts.push((payload, at)),
            META_GRAPH_OBJECT_GRAPH_DEF => info.has_object_graph = true,
            META_GRAPH_META_INFO_DEF => {
                for item in Fields::new(payload, at, "MetaInfoDef") {
                    let item = item?;
                    match item.number {
                        META_INFO_TAGS => {
                            if let Some(tag) = item.string("MetaInfoDef.tags")? {
                                info.tags.push(tag);
                            }
                        }
                        META_INFO_TENSORFLOW_VERSION => {
                            if let Some(version) = item.string("MetaInfoDef.tensorflow_version")? {
                                info.tensorflow_version = Some(version);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(GraphBytes {
        parts,
        meta_graph: Some(info),
    })
}

/// Every graph of a GraphDef or SavedModel file, fully decoded by prost.
pub fn decode_graphs(bytes: &[u8]) -> Result<(Kind, Vec<GraphDef>), Error> {
    let kind = Kind::detect(bytes)?;
    let graphs = match kind {
        Kind::GraphDef => vec![
            GraphDef::decode(bytes).map_err(|source| DecodeError::Message {
                what: "GraphDef",
                source,
            })?,
        ],
        Kind::SavedModel => SavedModel::decode(bytes)
            .map_err(|source| DecodeError::Message {
                what: "SavedModel",
                source,
            })?
            .meta_graphs
            .into_iter()
            .map(|meta_graph| meta_graph.graph_def.unwrap_or_default())
            .collect(),
    };
    Ok((kind, graphs))
}

/// A copy of a GraphDef or SavedModel file in which every graph's VersionDef is `versions`,
/// every other byte unchanged (only the length prefixes that enclose a changed VersionDef
/// change with it).
pub fn rewrite_versions(bytes: &[u8], versions: &VersionDef) -> Result<Vec<u8>, Error> {
    match Kind::detect(bytes)? {
        Kind::GraphDef => rewrite_part(bytes, 0, Some(versions)),
        Kind::SavedModel => rewrite_children(
            bytes,
            0,
            "SavedModel",
            SAVED_MODEL_META_GRAPHS,
            |meta_graph, at, _| {
                rewrite_children(
                    meta_graph,
                    at,
                    "MetaGraphDef",
                    META_GRAPH_GRAPH_DEF,
                    |graph, at, nth| {
                        // The first piece of the graph gets the new versions; later pieces lose theirs,
                        // so that the merged graph has exactly `versions`.
                        rewrite_part(graph, at, (nth == 0).then_some(versions))
                    },
                )
            },
        ),
    }
}

/// Copies `bytes`, replacing the payload of every length-delimited field `number` by
/// `rewrite(payload, offset, nth)`.
fn rewrite_children<F>(
    bytes: &[u8],
    offset: usize,
    message: &'static str,
    number: u32,
    mut rewrite: F,
) -> Result<Vec<u8>, Error>
where
    F: FnMut(&[u8], usize, usize) -> Result<Vec<u8>, Error>,
{
    let mut out = Vec::with_capacity(bytes.len() + 32);
    let mut copied = 0;
    let mut nth = 0;
    for field in Fields::new(bytes, offset, message) {
        let field = field?;
        let (true, Some((payload, at))) = (field.number == number, field.payload()) else {
            continue;
        };
        // Keep the tag exactly as written; only the length prefix and payload change.
        out.extend_from_slice(&bytes[copied..field.start - offset + field.key_len]);
        put_payload(&mut out, &rewrite(payload, at, nth)?);
        copied = field.end - offset;
        nth += 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    Ok(out)
}
