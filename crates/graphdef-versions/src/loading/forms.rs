//! Node forms: what a release's importer judges of a node, apart from its name and its edges.
//!
//! Two nodes with the same op, the same attrs and as many data inputs pass or fail the same
//! checks in a release (the op lookup, `ValidateNodeDef`, the op's deprecation, the functions
//! they call, `_output_shapes`): only the node's name in the message differs. A graph of a
//! million nodes has a few dozen forms, so each is judged once per release, not once per node.
//!
//! A form is known by its key, the bytes that make it: every field of the NodeDef but its name
//! (1), its inputs (3) and its device (4), one after the other as written, then the number of
//! data inputs. Nodes whose bytes differ but mean the same (attrs written in another order) are
//! two forms judged alike.

use std::hash::BuildHasher;
use std::ops::Range;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use prost::Message;

use crate::schema::{GraphDef, NodeDef};
use crate::wire::put_bytes_field;

/// A form's number in its graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct FormId(pub(super) u32);

/// What an op is to the order nodes are made in (see [`Order`](super::edges::Order)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    /// `Merge`, `RefMerge`, `_XlaMerge`: made once one input is ready, and the only nodes a
    /// back edge may feed.
    Merge,
    /// `NextIteration`, `RefNextIteration`: the source of a loop's back edge.
    NextIteration,
    Other,
}

impl Flow {
    fn of(op: &str) -> Flow {
        match op {
            "Merge" | "RefMerge" | "_XlaMerge" => Flow::Merge,
            "NextIteration" | "RefNextIteration" => Flow::NextIteration,
            _ => Flow::Other,
        }
    }
}

/// One form: its op, how many data inputs its nodes have, and the first of them, decoded.
pub(super) struct Form<'a> {
    pub(super) op: &'a str,
    pub(super) data_inputs: u32,
    pub(super) flow: Flow,
    /// Where the form's key is in [`Forms::keys`].
    key: Range<usize>,
    /// The first node of this form, decoded.
    decoded: NodeDef,
}

impl Form<'_> {
    /// The first node of this form, decoded: its attrs are every node's of the form.
    pub(super) fn node(&self) -> &NodeDef {
        &self.decoded
    }
}

/// A form's key, made as a node is read: its fields but the name, inputs and device, then
/// its number of data inputs.
#[derive(Default)]
pub(super) struct FormKey {
    bytes: Vec<u8>,
}

impl FormKey {
    /// Starts the key of the next node.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
    }

    /// Adds a field, as written (key, length and value).
    pub(super) fn push_field(&mut self, field: &[u8]) {
        self.bytes.extend_from_slice(field);
    }

    /// Ends the key with the node's number of data inputs.
    pub(super) fn end(&mut self, data_inputs: u32) -> &[u8] {
        self.bytes.extend_from_slice(&data_inputs.to_le_bytes());
        &self.bytes
    }
}

/// How many data inputs a node has (they come before its control inputs).
fn decoded_data_inputs(node: &NodeDef) -> u32 {
    let data = node
        .input
        .iter()
        .take_while(|i| !i.starts_with('^'))
        .count();
    // Fewer than the node's bytes, which are below 2 GiB.
    data as u32
}

/// The distinct forms of a graph's nodes.
pub(super) struct Forms<'a> {
    forms: Vec<Form<'a>>,
    /// Each form's key, form after form.
    keys: Vec<u8>,
    table: HashTable<u32>,
    hasher: RandomState,
}

impl<'a> Forms<'a> {
    pub(super) fn new() -> Self {
        Forms {
            forms: Vec::new(),
            keys: Vec::new(),
            table: HashTable::new(),
            hasher: RandomState::default(),
        }
    }

    /// The form of `node` (a NodeDef as written), whose op is `op` (as written) and whose key
    /// is `key` (see [`FormKey`]). A new form's node is decoded by prost first, as part of a
    /// graph, since prost limits how deep messages nest from the outermost one: `None` when
    /// prost refuses it.
    pub(super) fn add(&mut self, node: &'a [u8], op: &'a [u8], key: &[u8]) -> Option<FormId> {
        let hash = self.hasher.hash_one(key);
        let (forms, keys) = (&self.forms, &self.keys);
        let same = |&id: &u32| keys[forms[id as usize].key.clone()] == *key;
        if let Some(&id) = self.table.find(hash, same) {
            return Some(FormId(id));
        }
        let mut graph = Vec::with_capacity(node.len() + 6);
        put_bytes_field(&mut graph, 1, node);
        let decoded = GraphDef::decode(graph.as_slice()).ok()?.node.pop()?;
        let op = std::str::from_utf8(op).ok()?;
        let id = u32::try_from(self.forms.len()).ok()?;
        let start = self.keys.len();
        self.keys.extend_from_slice(key);
        self.forms.push(Form {
            op,
            data_inputs: decoded_data_inputs(&decoded),
            flow: Flow::of(op),
            key: start..self.keys.len(),
            decoded,
        });
        let (forms, keys, hasher) = (&self.forms, &self.keys, &self.hasher);
        self.table.insert_unique(hash, id, |&other| {
            hasher.hash_one(&keys[forms[other as usize].key.clone()])
        });
        Some(FormId(id))
    }

    /// The form added before with the key `key`.
    pub(super) fn find(&self, key: &[u8]) -> Option<FormId> {
        let same = |&id: &u32| self.keys[self.forms[id as usize].key.clone()] == *key;
        self.table
            .find(self.hasher.hash_one(key), same)
            .map(|&id| FormId(id))
    }

    pub(super) fn get(&self, id: FormId) -> &Form<'a> {
        &self.forms[id.0 as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.forms.len()
    }

    /// Every form, by its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (FormId, &Form<'a>)> {
        self.forms
            .iter()
            .enumerate()
            .map(|(id, form)| (FormId(id as u32), form))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{AttrValue, NameAttrList, attr_value::Value};

    fn node_bytes(name: &str, attrs: &[(&str, i64)]) -> Vec<u8> {
        NodeDef {
            name: name.into(),
            op: "Op".into(),
            attr: attrs
                .iter()
                .map(|&(k, v)| {
                    (
                        k.to_string(),
                        AttrValue {
                            value: Some(Value::I(v)),
                        },
                    )
                })
                .collect(),
            ..NodeDef::default()
        }
        .encode_to_vec()
    }

    /// The form of `node`, whose fields after the name (as `node_bytes` writes them) make
    /// its key.
    fn add(forms: &mut Forms<'static>, node: &'static [u8], data_inputs: u32) -> Option<FormId> {
        let name_len = usize::from(node[1]) + 2;
        let mut key = FormKey::default();
        key.push_field(&node[name_len..]);
        forms.add(node, b"Op", key.end(data_inputs))
    }

    #[test]
    fn nodes_alike_but_for_their_names_share_a_form() {
        let [a, b, c] = [
            node_bytes("a", &[("n", 1)]),
            node_bytes("b", &[("n", 1)]),
            node_bytes("c", &[("n", 2)]),
        ]
        .map(|bytes| &*Vec::leak(bytes));
        let mut forms = Forms::new();
        let first = add(&mut forms, a, 1).unwrap();
        assert_eq!(add(&mut forms, b, 1), Some(first));
        assert_ne!(add(&mut forms, b, 2), Some(first));
        assert_ne!(add(&mut forms, c, 1), Some(first));
        assert_eq!(forms.len(), 3);
        assert_eq!(forms.get(first).node().name, "a");
        assert_eq!(forms.get(first).flow, Flow::Other);
    }

    /// An attr value nested `depth` times: `func` attrs inside `func` attrs.
    fn nested(depth: usize) -> AttrValue {
        let mut value = AttrValue {
            value: Some(Value::I(1)),
        };
        for _ in 0..depth {
            value = AttrValue {
                value: Some(Value::Func(NameAttrList {
                    name: "f".into(),
                    attr: [("a".to_string(), value)].into(),
                })),
            };
        }
        value
    }

    /// prost's recursion limit counts the messages around an attr value: a value that decodes on
    /// its own may not decode inside a node of a graph, and a form is judged where it is.
    #[test]
    fn a_form_is_decoded_at_its_depth_in_the_graph() {
        let mut alone_only = 0;
        for depth in 25..40 {
            let node = NodeDef {
                name: "n".into(),
                op: "Op".into(),
                attr: [("f".to_string(), nested(depth))].into(),
                ..NodeDef::default()
            };
            let bytes = node.encode_to_vec();
            let in_graph = GraphDef {
                node: vec![node],
                ..GraphDef::default()
            };
            let whole = GraphDef::decode(in_graph.encode_to_vec().as_slice()).is_ok();
            let added = add(&mut Forms::new(), Vec::leak(bytes), 0).is_some();
            assert_eq!(added, whole, "depth {depth}");
            let value = nested(depth).encode_to_vec();
            alone_only += usize::from(!whole && AttrValue::decode(value.as_slice()).is_ok());
        }
        assert!(
            alone_only > 0,
            "some values decode alone but not in a graph"
        );
    }
}
