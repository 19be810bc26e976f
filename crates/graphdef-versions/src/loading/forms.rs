//! Node forms: what a release's importer judges of a node, apart from its name and its edges.
//!
//! Two nodes with the same op, the same attrs and as many data inputs pass or fail the same
//! checks in a release (the op lookup, `ValidateNodeDef`, the op's deprecation, the functions
//! they call, `_output_shapes`): only the node's name in the message differs. A graph of a
//! million nodes has a few dozen forms, so each is judged once per release, not once per node.
//!
//! A form is known by its key: the number of data inputs, and every field of the NodeDef but
//! its name (1), its inputs (3) and its device (4), as written (borrowed from the file, not
//! copied). Nodes whose bytes differ but mean the same (attrs written in another order) are
//! two forms judged alike. A form's first node is kept decoded when it is small; a large one
//! (a constant holding weights) is decoded again when it is wanted, so that a graph's weights
//! are not held twice.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use prost::Message;

use crate::schema::attr_value::Value;
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

/// A form's node is kept decoded when it is at most this long.
const KEPT_DECODED: usize = 64 << 10;

/// One form: its op, how many data inputs its nodes have, and the first of them.
pub(super) struct Form<'a> {
    pub(super) op: &'a str,
    pub(super) data_inputs: u32,
    pub(super) flow: Flow,
    /// The first node of this form, as written.
    example: &'a [u8],
    /// Where the form's fields are in [`Forms::fields`].
    fields: Range<usize>,
    /// The first node decoded, when it is small.
    decoded: OnceCell<NodeDef>,
    /// The nodes its colocation constraints name: `loc:@NAME` in its `_class` attr.
    pub(super) colocated_with: Vec<Vec<u8>>,
}

impl Form<'_> {
    /// The first node of this form, decoded: its attrs are every node's of the form.
    pub(super) fn node(&self) -> Cow<'_, NodeDef> {
        // Decoded once already, as part of a graph, when the form was added.
        let decode = || NodeDef::decode(self.example).unwrap_or_default();
        if self.example.len() > KEPT_DECODED {
            return Cow::Owned(decode());
        }
        Cow::Borrowed(self.decoded.get_or_init(decode))
    }
}

/// A form's key, made as a node is read (see the module's documentation).
#[derive(Default)]
pub(super) struct FormKey<'a> {
    data_inputs: u32,
    fields: Vec<&'a [u8]>,
}

impl<'a> FormKey<'a> {
    /// Starts the key of the next node.
    pub(super) fn clear(&mut self) {
        self.fields.clear();
    }

    /// Adds a field, as written (key, length and value).
    pub(super) fn push_field(&mut self, field: &'a [u8]) {
        self.fields.push(field);
    }

    /// Ends the key with the node's number of data inputs.
    pub(super) fn end(&mut self, data_inputs: u32) -> &Self {
        self.data_inputs = data_inputs;
        self
    }
}

/// The nodes a node's colocation constraints name: `loc:@NAME` in its `_class` attr.
fn colocation(node: &NodeDef) -> Vec<Vec<u8>> {
    match node.attr.get("_class").and_then(|v| v.value.as_ref()) {
        Some(Value::List(list)) => list
            .s
            .iter()
            .filter_map(|class| class.strip_prefix(b"loc:@"))
            .map(<[u8]>::to_vec)
            .collect(),
        _ => Vec::new(),
    }
}

/// The hash of a form's key.
fn hash_key(hasher: &RandomState, data_inputs: u32, fields: &[&[u8]]) -> u64 {
    let mut hasher = hasher.build_hasher();
    hasher.write_u32(data_inputs);
    // Each field holds its own key and length: written one after the other, two keys are the
    // same bytes only if their fields are.
    for field in fields {
        hasher.write(field);
    }
    hasher.finish()
}

/// The distinct forms of a graph's nodes.
pub(super) struct Forms<'a> {
    forms: Vec<Form<'a>>,
    /// Each form's fields, form after form.
    fields: Vec<&'a [u8]>,
    table: HashTable<u32>,
    hasher: RandomState,
}

impl<'a> Forms<'a> {
    pub(super) fn new() -> Self {
        Forms {
            forms: Vec::new(),
            fields: Vec::new(),
            table: HashTable::new(),
            hasher: RandomState::default(),
        }
    }

    fn hash(&self, data_inputs: u32, fields: &[&[u8]]) -> u64 {
        hash_key(&self.hasher, data_inputs, fields)
    }

    /// The form of `node` (a NodeDef as written), whose op is `op` (as written) and whose key
    /// is `key`. A new form's node is decoded by prost first, as part of a graph, since prost
    /// limits how deep messages nest from the outermost one: `None` when prost refuses it.
    /// `decoded` is the node the bytes were encoded from, when the caller has it (a function's
    /// body made here): a new form keeps it rather than decode the bytes back into it.
    pub(super) fn add(
        &mut self,
        node: &'a [u8],
        op: &'a [u8],
        key: &FormKey<'a>,
        decoded: Option<NodeDef>,
    ) -> Option<FormId> {
        let hash = self.hash(key.data_inputs, &key.fields);
        if let Some(id) = self.find_hashed(hash, key) {
            return Some(id);
        }
        let decoded = match decoded {
            Some(decoded) => decoded,
            None => {
                let mut graph = Vec::with_capacity(node.len() + 6);
                put_bytes_field(&mut graph, 1, node);
                GraphDef::decode(graph.as_slice()).ok()?.node.pop()?
            }
        };
        let op = std::str::from_utf8(op).ok()?;
        let id = u32::try_from(self.forms.len()).ok()?;
        let start = self.fields.len();
        self.fields.extend_from_slice(&key.fields);
        let colocated_with = colocation(&decoded);
        let kept = OnceCell::new();
        if node.len() <= KEPT_DECODED {
            let _ = kept.set(decoded);
        }
        self.forms.push(Form {
            op,
            data_inputs: key.data_inputs,
            flow: Flow::of(op),
            example: node,
            fields: start..self.fields.len(),
            decoded: kept,
            colocated_with,
        });
        let (forms, fields, hasher) = (&self.forms, &self.fields, &self.hasher);
        self.table.insert_unique(hash, id, |&other| {
            let form = &forms[other as usize];
            hash_key(hasher, form.data_inputs, &fields[form.fields.clone()])
        });
        Some(FormId(id))
    }

    fn find_hashed(&self, hash: u64, key: &FormKey<'_>) -> Option<FormId> {
        let same = |&id: &u32| {
            let form = &self.forms[id as usize];
            form.data_inputs == key.data_inputs && self.fields[form.fields.clone()] == key.fields
        };
        self.table.find(hash, same).map(|&id| FormId(id))
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
        forms.add(node, b"Op", key.end(data_inputs), None)
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

    #[test]
    fn a_large_form_is_decoded_again_when_wanted() {
        let big = NodeDef {
            name: "w".into(),
            op: "Op".into(),
            attr: [(
                "value".to_string(),
                AttrValue {
                    value: Some(Value::S(vec![7; KEPT_DECODED])),
                },
            )]
            .into(),
            ..NodeDef::default()
        };
        let bytes = &*Vec::leak(big.encode_to_vec());
        let mut forms = Forms::new();
        let id = add(&mut forms, bytes, 0).unwrap();
        let form = forms.get(id);
        assert!(form.decoded.get().is_none(), "not kept");
        assert!(matches!(form.node(), Cow::Owned(ref node) if *node == big));
        let small = &*Vec::leak(node_bytes("s", &[("n", 1)]));
        let id = add(&mut forms, small, 0).unwrap();
        assert!(matches!(forms.get(id).node(), Cow::Borrowed(node) if node.name == "s"));
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
