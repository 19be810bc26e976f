//! What `tf.saved_model.load` reads of a SavedModel besides its functions: the file decoded
//! whole, a TensorFlow 1 one's saver run against the checkpoint, and the tags it names when it
//! refuses several meta graphs. [`ReleaseJudge`](super::ReleaseJudge) takes the steps in order.

use prost::Message;

use super::graph::ImportedGraph;
use super::printing::Dialect;
use super::report::LoadError;
use super::restore::{Checkpoint, Wanted};
use crate::schema::SavedModel;
use crate::schema::attr_value::Value;

/// Running the saver's restore op: each `RestoreV2` it runs, in the graph's order, with the
/// tensors it names.
pub(super) fn restore_with_saver(
    graph: &ImportedGraph<'_>,
    checkpoint: &Checkpoint,
    saver: &crate::schema::SaverDef,
    d: &Dialect,
) -> Option<LoadError> {
    let restore = graph.find(&saver.restore_op_name)?;
    let filename = saver
        .filename_tensor_name
        .split(':')
        .next()
        .unwrap_or_default();
    let feed = graph.find(filename);
    let mut seen = vec![false; graph.len()];
    let mut stack = vec![restore];
    while let Some(n) = stack.pop() {
        if seen[n] || Some(n) == feed {
            continue;
        }
        seen[n] = true;
        stack.extend(graph.graph_inputs(n));
    }
    for n in (0..graph.len()).filter(|&n| seen[n] && graph.op_type(n) == "RestoreV2") {
        let names = graph
            .data_inputs(n)
            .nth(1)
            .and_then(|input| string_constants(graph, input.node));
        let dtypes = match graph
            .node(n)
            .attr
            .get("dtypes")
            .and_then(|v| v.value.as_ref())
        {
            Some(Value::List(list)) => list.r#type.clone(),
            _ => Vec::new(),
        };
        let Some(names) = names.filter(|names| names.len() == dtypes.len()) else {
            continue;
        };
        let wanted: Vec<Wanted<'_>> = names
            .iter()
            .zip(&dtypes)
            .map(|(name, &dtype)| Wanted { name, dtype })
            .collect();
        if let Some(error) = checkpoint.restore_v2(graph.name(n), &wanted, d) {
            return Some(error);
        }
    }
    None
}

/// The strings of a `Const` string tensor, when they are all UTF-8.
fn string_constants(graph: &ImportedGraph<'_>, n: usize) -> Option<Vec<String>> {
    if graph.op_type(n) != "Const" {
        return None;
    }
    let Some(Value::Tensor(tensor)) = graph.node(n).attr.get("value")?.value.as_ref() else {
        return None;
    };
    tensor
        .string_val
        .iter()
        .map(|bytes| String::from_utf8(bytes.clone()).ok())
        .collect()
}

/// `str()` of a Python list of strings: `['serve', 'gpu']`.
pub(super) fn python_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| format!("'{item}'")).collect();
    format!("[{}]", items.join(", "))
}

/// Decodes a `saved_model.pb` whole, as TensorFlow's loader does.
pub(super) fn decode_saved_model(bytes: &[u8]) -> Result<SavedModel, crate::Error> {
    SavedModel::decode(bytes).map_err(|source| {
        crate::error::DecodeError::Message {
            what: "SavedModel",
            source,
        }
        .into()
    })
}
