//! A graph's nodes as the importer reads them, and what importing them needs before any
//! release is asked: the node index and the edges (`BuildNodeIndex` and `InitFromEdges`,
//! `tensorflow/core/common_runtime/graph_constructor.cc`), the same for every release.
//!
//! A GraphDef file is read in place: a [`NodeView`] keeps where a node's name, op, inputs and
//! attrs are in the file's bytes, and decodes attrs only when the importer looks at them.

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::Failure;
use crate::schema::{AttrValue, GraphDef, NodeDef};
use prost::Message;

/// A hash of bytes, eight at a time, each word folded in by a 128-bit multiply. Names come from
/// the graph, and a graph that collides them on purpose only slows its own judging down.
pub(super) fn hash_bytes(bytes: &[u8]) -> u64 {
    const K0: u64 = 0x9e37_79b9_7f4a_7c15;
    const K1: u64 = 0xd6e8_feb8_6659_fd93;
    let fold = |a: u64, b: u64| {
        let product = u128::from(a) * u128::from(b);
        (product as u64) ^ ((product >> 64) as u64)
    };
    let mut hash = K0 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        hash = fold(hash ^ u64::from_le_bytes(w), K1);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        hash = fold(hash ^ u64::from_le_bytes(w), K1);
    }
    fold(hash, K0)
}

/// A [`Hasher`] over [`hash_bytes`], for the maps keyed by strings from the graph.
#[derive(Default)]
pub(super) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = hash_bytes(bytes) ^ self.0.rotate_left(23);
    }
}

/// A map hashed with [`FastHasher`].
pub(super) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A set hashed with [`FastHasher`].
pub(super) type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// A node as the importer reads it: a decoded [`NodeDef`], or a view of one in the file's bytes
/// that is decoded only when its attrs must be looked at.
pub(super) trait GraphNode {
    fn name(&self) -> &str;
    fn op(&self) -> &str;
    fn inputs(&self) -> impl Iterator<Item = &str>;
    fn input_len(&self) -> usize;
    /// Whether no regular input follows a control input (`^name`).
    fn controls_last(&self) -> bool;
    /// The attr named `key` (a view decodes that one attr).
    fn attr(&self, key: &str) -> Option<Cow<'_, AttrValue>>;
    /// Whether the two nodes' attrs are the same. A view compares them as written, and may
    /// say no for attrs that are equal but written differently.
    fn same_attrs(&self, other: &Self) -> bool;
    /// The node decoded.
    fn full(&self) -> Cow<'_, NodeDef>;
}

fn controls_last<'s>(inputs: impl Iterator<Item = &'s str>) -> bool {
    let mut in_control = false;
    for input in inputs {
        if input.starts_with('^') {
            in_control = true;
        } else if in_control {
            return false;
        }
    }
    true
}

impl GraphNode for NodeDef {
    fn name(&self) -> &str {
        &self.name
    }

    fn op(&self) -> &str {
        &self.op
    }

    fn inputs(&self) -> impl Iterator<Item = &str> {
        self.input.iter().map(String::as_str)
    }

    fn input_len(&self) -> usize {
        self.input.len()
    }

    fn controls_last(&self) -> bool {
        controls_last(self.inputs())
    }

    fn attr(&self, key: &str) -> Option<Cow<'_, AttrValue>> {
        self.attr.get(key).map(Cow::Borrowed)
    }

    fn same_attrs(&self, other: &Self) -> bool {
        self.attr == other.attr
    }

    fn full(&self) -> Cow<'_, NodeDef> {
        Cow::Borrowed(self)
    }
}

/// The fields of a message, read fast: `(number, wire type, payload, field bytes)`, the
/// payload being a length-delimited field's contents (empty for other wire types). `Err` for
/// anything the fast reading leaves to prost: malformed bytes, groups, invalid wire types.
struct RawFields<'a> {
    rest: &'a [u8],
}

type RawField<'a> = (u32, u8, &'a [u8], &'a [u8]);

impl<'a> RawFields<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        RawFields { rest: bytes }
    }

    fn read(&mut self) -> Result<RawField<'a>, ()> {
        let start = self.rest;
        let mut buf = self.rest;
        let key = varint(&mut buf).ok_or(())?;
        let number = u32::try_from(key >> 3).map_err(|_| ())?;
        if number == 0 {
            return Err(());
        }
        let wire = (key & 7) as u8;
        let payload = match wire {
            0 => {
                varint(&mut buf).ok_or(())?;
                &[][..]
            }
            1 | 5 => {
                let width = if wire == 1 { 8 } else { 4 };
                buf = buf.get(width..).ok_or(())?;
                &[][..]
            }
            2 => {
                let len = usize::try_from(varint(&mut buf).ok_or(())?).map_err(|_| ())?;
                if len > buf.len() {
                    return Err(());
                }
                let (payload, after) = buf.split_at(len);
                buf = after;
                payload
            }
            _ => return Err(()),
        };
        let consumed = start.len() - buf.len();
        self.rest = buf;
        Ok((number, wire, payload, &start[..consumed]))
    }
}

impl<'a> Iterator for RawFields<'a> {
    type Item = Result<RawField<'a>, ()>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.read();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

/// A base-128 varint as prost reads it: at most ten bytes, the tenth at most 1.
fn varint(buf: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for (i, &byte) in buf.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            if i == 9 && byte > 1 {
                return None;
            }
            *buf = &buf[i + 1..];
            return Some(value);
        }
    }
    None
}

/// The string fields numbered `number` of a message whose bytes were read once already.
fn strings(bytes: &[u8], number: u32) -> impl Iterator<Item = &str> {
    RawFields::new(bytes)
        .map_while(Result::ok)
        .filter(move |field| field.0 == number && field.1 == 2)
        .filter_map(|field| std::str::from_utf8(field.2).ok())
}

/// A byte range of a node's bytes, as offsets.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn of<'a>(&self, raw: &'a [u8]) -> &'a [u8] {
        raw.get(self.start as usize..self.end as usize)
            .unwrap_or_default()
    }

    fn cover(&mut self, start: usize, end: usize) {
        if self.start == self.end {
            self.start = start as u32;
        }
        self.end = end as u32;
    }
}

/// A NodeDef read in place: its name and op, and where its inputs and attr entries are.
pub(super) struct NodeView<'a> {
    raw: &'a [u8],
    name: &'a str,
    op: &'a str,
    /// The bytes from the first input field to the last.
    inputs: Span,
    /// The bytes from the first attr field to the last.
    attrs: Span,
    input_len: u32,
    flags: u8,
}

impl NodeView<'_> {
    /// Some input follows a control input.
    const CONTROL_BEFORE_INPUT: u8 = 1;
    /// Some field comes between two attr fields.
    const ATTRS_APART: u8 = 2;
    /// It has a `_class` attr.
    const CLASS: u8 = 4;
    /// It has an `_output_shapes` attr.
    const OUTPUT_SHAPES: u8 = 8;

    /// The attr entries, in order.
    fn attr_entries(&self) -> impl Iterator<Item = &[u8]> {
        RawFields::new(self.attrs.of(self.raw))
            .map_while(Result::ok)
            .filter(|field| field.0 == 5 && field.1 == 2)
            .map(|field| field.2)
    }
}

/// An attr entry's key and value bytes (`None` for an entry with a repeated key or value).
fn attr_entry(entry: &[u8]) -> Option<(&str, &[u8])> {
    let (mut key, mut value) = (None, None);
    for field in RawFields::new(entry) {
        let (number, wire, payload, _) = field.ok()?;
        match (number, wire) {
            (1, 2) if key.is_none() => key = Some(std::str::from_utf8(payload).ok()?),
            (2, 2) if value.is_none() => value = Some(payload),
            (1 | 2, _) => return None,
            _ => {}
        }
    }
    Some((key.unwrap_or(""), value.unwrap_or_default()))
}

impl GraphNode for NodeView<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn op(&self) -> &str {
        self.op
    }

    fn inputs(&self) -> impl Iterator<Item = &str> {
        strings(self.inputs.of(self.raw), 3)
    }

    fn input_len(&self) -> usize {
        self.input_len as usize
    }

    fn controls_last(&self) -> bool {
        self.flags & Self::CONTROL_BEFORE_INPUT == 0
    }

    fn attr(&self, key: &str) -> Option<Cow<'_, AttrValue>> {
        let flag = match key {
            "_class" => Self::CLASS,
            "_output_shapes" => Self::OUTPUT_SHAPES,
            _ => 0,
        };
        if flag != 0 && self.flags & flag == 0 {
            return None;
        }
        // The last entry of a key wins, as in a decoded map. Every entry's value was decoded
        // once already (see `GraphViews::read_node`).
        let value = self
            .attr_entries()
            .filter_map(attr_entry)
            .filter(|(k, _)| *k == key)
            .last()?
            .1;
        Some(Cow::Owned(AttrValue::decode(value).unwrap_or_default()))
    }

    fn same_attrs(&self, other: &Self) -> bool {
        if (self.flags | other.flags) & Self::ATTRS_APART == 0 {
            // Attr fields written side by side: the same bytes are the same entries.
            return self.attrs.of(self.raw) == other.attrs.of(other.raw);
        }
        self.attr_entries().eq(other.attr_entries())
    }

    fn full(&self) -> Cow<'_, NodeDef> {
        // The view was only made of bytes prost reads (see `GraphViews::read`).
        Cow::Owned(NodeDef::decode(self.raw).unwrap_or_default())
    }
}

/// A GraphDef's nodes read in place, and the rest of the graph decoded.
pub(super) struct GraphViews<'a> {
    pub(super) nodes: Vec<NodeView<'a>>,
    /// The GraphDef without its nodes: versions and library.
    pub(super) rest: GraphDef,
}

/// Attr entries whose value was decoded once already: the last few, then all of them.
#[derive(Default)]
struct CheckedEntries<'a> {
    recent: [&'a [u8]; 4],
    next: usize,
    all: FastSet<&'a [u8]>,
}

impl<'a> CheckedEntries<'a> {
    /// Whether `entry` is new (then it is remembered).
    fn is_new(&mut self, entry: &'a [u8]) -> bool {
        if self.recent.contains(&entry) {
            return false;
        }
        self.recent[self.next % self.recent.len()] = entry;
        self.next += 1;
        self.all.insert(entry)
    }
}

impl<'a> GraphViews<'a> {
    /// Reads a GraphDef's nodes in place. `None` for anything a plain reading might get wrong
    /// (a known field with another wire type, text that is not UTF-8, a repeated name or op,
    /// a graph of 4 GB or more): the caller then decodes the whole graph instead.
    pub(super) fn read(bytes: &'a [u8]) -> Option<GraphViews<'a>> {
        u32::try_from(bytes.len()).ok()?;
        let mut nodes = Vec::new();
        let mut checked = CheckedEntries::default();
        let mut rest = Vec::new();
        for field in RawFields::new(bytes) {
            let (number, wire, payload, whole) = field.ok()?;
            match (number, wire) {
                (1, 2) => nodes.push(read_node(payload, &mut checked)?),
                (1, _) => return None,
                _ => rest.extend_from_slice(whole),
            }
        }
        let rest = GraphDef::decode(rest.as_slice()).ok()?;
        Some(GraphViews { nodes, rest })
    }
}

fn read_node<'a>(raw: &'a [u8], checked: &mut CheckedEntries<'a>) -> Option<NodeView<'a>> {
    let mut view = NodeView {
        raw,
        name: "",
        op: "",
        inputs: Span::default(),
        attrs: Span::default(),
        input_len: 0,
        flags: 0,
    };
    let (mut name, mut op) = (0..0, 0..0);
    let mut in_control = false;
    let mut after_attr = false;
    // The text fields (name, op, inputs, device) are checked for UTF-8 at once when they come
    // first, side by side, each with a one-byte tag and length: then the bytes from the
    // start to the end of the last one are text if and only if each field is.
    let mut text_end = 0;
    let mut text_together = true;
    let mut fields = RawFields::new(raw);
    while !fields.rest.is_empty() {
        let start = raw.len() - fields.rest.len();
        let (number, wire, payload, _) = fields.read().ok()?;
        let end = raw.len() - fields.rest.len();
        let payload_start = end - payload.len();
        match (number, wire) {
            (5, 2) => {
                let (key, value) = attr_entry(payload)?;
                // Each distinct value is decoded once, so that a file prost would refuse is
                // refused here too (by the full decoder the caller falls back to).
                if checked.is_new(payload) {
                    AttrValue::decode(value).ok()?;
                }
                match key {
                    "_class" => view.flags |= NodeView::CLASS,
                    "_output_shapes" => view.flags |= NodeView::OUTPUT_SHAPES,
                    _ => {}
                }
                if after_attr {
                    view.flags |= NodeView::ATTRS_APART;
                }
                view.attrs.cover(start, end);
                continue;
            }
            (1, 2) if name.end == 0 => name = payload_start..end,
            (2, 2) if op.end == 0 => op = payload_start..end,
            (1 | 2, 2) => return None,
            (3, 2) => {
                if payload.first() == Some(&b'^') {
                    in_control = true;
                } else if in_control {
                    view.flags |= NodeView::CONTROL_BEFORE_INPUT;
                }
                view.input_len += 1;
                view.inputs.cover(start, end);
            }
            (4, 2) => {}
            (1..=4, _) => return None,
            _ => {
                after_attr = view.attrs.end != 0;
                text_together = false;
                continue;
            }
        }
        after_attr = view.attrs.end != 0;
        text_together &= text_end == start && payload_start == start + 2;
        text_end = end;
    }
    let text = if text_together {
        Some(std::str::from_utf8(&raw[..text_end]).ok()?)
    } else {
        None
    };
    let str_at = |range: std::ops::Range<usize>| match text {
        Some(text) => text.get(range),
        None => std::str::from_utf8(&raw[range]).ok(),
    };
    view.name = str_at(name)?;
    view.op = str_at(op)?;
    if text.is_none() {
        for field in RawFields::new(raw) {
            let (number, wire, payload, _) = field.ok()?;
            if (number == 3 || number == 4) && wire == 2 {
                std::str::from_utf8(payload).ok()?;
            }
        }
    }
    Some(view)
}

/// Where each node's name is: an open-addressed table of node positions, probed linearly.
/// A slot holds the high half of the name's hash and the node's position plus one (0 is empty).
struct NameIndex {
    slots: Vec<u64>,
    mask: usize,
}

impl NameIndex {
    fn with_capacity(nodes: usize) -> Self {
        let len = (nodes.saturating_mul(2)).max(16).next_power_of_two();
        NameIndex {
            slots: vec![0; len],
            mask: len - 1,
        }
    }

    /// Reads the slots where these hashes start, so that the table's memory is on its way to
    /// the cache before the names are looked up one by one.
    fn touch(&self, hashes: &[u64]) {
        let mut any = 0;
        for &hash in hashes {
            any |= self.slots[hash as usize & self.mask];
        }
        std::hint::black_box(any);
    }

    /// The slot where `name`, whose hash is `hash`, is, or the empty one where it would go.
    fn find<'n>(
        &self,
        name: &str,
        hash: u64,
        name_of: impl Fn(usize) -> &'n str,
    ) -> (usize, Option<usize>) {
        let tag = hash >> 32;
        let mut slot = hash as usize & self.mask;
        loop {
            let entry = self.slots[slot];
            if entry == 0 {
                return (slot, None);
            }
            let node = (entry & 0xffff_ffff) as usize - 1;
            if entry >> 32 == tag && name_of(node) == name {
                return (slot, Some(node));
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// Adds node `node` named `name` (hashed `hash`), unless a node has that name already:
    /// that one then.
    fn insert<'n>(
        &mut self,
        name: &str,
        hash: u64,
        node: usize,
        name_of: impl Fn(usize) -> &'n str,
    ) -> Option<usize> {
        let (slot, found) = self.find(name, hash, name_of);
        if found.is_none() {
            self.slots[slot] = (hash >> 32 << 32) | (node as u64 + 1);
        }
        found
    }

    fn get<'n>(&self, name: &str, name_of: impl Fn(usize) -> &'n str) -> Option<usize> {
        self.find(name, hash_bytes(name.as_bytes()), name_of).1
    }
}

/// A node whose types are not known yet (see [`Scratch::types`]).
pub(super) const NOT_YET: u32 = u32::MAX;

/// The per-node state of one import.
#[derive(Default)]
pub(super) struct Scratch {
    /// How many inputs each node still waits for.
    pub(super) pending: Vec<u32>,
    /// Each node's input and output types, as an index into the import's distinct signatures
    /// ([`NOT_YET`] until the node is made), so that a million nodes cost four bytes each.
    pub(super) types: Vec<u32>,
}

/// A graph's nodes indexed and their edges resolved: what importing them needs before any
/// release is asked.
pub(super) struct Prepared<'a, N> {
    pub(super) nodes: &'a [N],
    index: NameIndex,
    /// Each node's data inputs as (source node, output slot):
    /// `data[data_starts[n]..data_starts[n + 1]]`.
    data: Vec<(u32, usize)>,
    data_starts: Vec<u32>,
    /// Whether each node is a `NextIteration`.
    next_iteration: Vec<bool>,
    /// How many inputs each node waits for.
    pub(super) pending: Vec<u32>,
    /// The nodes each node feeds: `targets[starts[n]..starts[n + 1]]`.
    starts: Vec<u32>,
    targets: Vec<u32>,
    /// Nodes with no pending input, smallest index first (TensorFlow's `std::set`).
    pub(super) ready: BinaryHeap<Reverse<u32>>,
    /// Buffers for the imports, reused from one release to the next.
    pub(super) scratch: RefCell<Scratch>,
}

impl<'a, N: GraphNode> Prepared<'a, N> {
    pub(super) fn new(nodes: &'a [N]) -> Result<Self, Failure> {
        if u32::try_from(nodes.len()).is_err() {
            return Err(Failure::invalid(format!(
                "A graph of {} nodes is more than this importer indexes",
                nodes.len()
            )));
        }
        let name_of = |i: usize| nodes[i].name();
        // BuildNodeIndex.
        let mut index = NameIndex::with_capacity(nodes.len());
        let mut next_iteration = Vec::with_capacity(nodes.len());
        // Names are hashed a batch at a time and their slots touched together, so that the
        // table's cache misses overlap rather than come one after the other.
        const BATCH: usize = 16;
        let mut hashes = [0u64; BATCH];
        for (i, node) in nodes.iter().enumerate() {
            if i % BATCH == 0 {
                let batch = &nodes[i..nodes.len().min(i + BATCH)];
                for (hash, node) in hashes.iter_mut().zip(batch) {
                    *hash = hash_bytes(node.name().as_bytes());
                }
                index.touch(&hashes[..batch.len()]);
            }
            if !valid_node_name(node.name()) {
                return Err(Failure::invalid(format!(
                    "Node '{}': Node name contains invalid characters",
                    node.name()
                )));
            }
            if index
                .insert(node.name(), hashes[i % BATCH], i, name_of)
                .is_some()
            {
                return Err(Failure::invalid(format!(
                    "Node '{}' is not unique",
                    node.name()
                )));
            }
            if node.op().is_empty() {
                return Err(Failure::invalid(format!(
                    "Node '{}' does not specify an operation",
                    node.name()
                )));
            }
            if !node.controls_last() {
                return Err(Failure::invalid(format!(
                    "Node '{}': Control dependencies must come after regular dependencies",
                    node.name()
                )));
            }
            next_iteration.push(matches!(node.op(), "NextIteration" | "RefNextIteration"));
        }
        // InitFromEdges.
        let mut data = Vec::with_capacity(nodes.len());
        let mut data_starts = Vec::with_capacity(nodes.len() + 1);
        let mut sources: Vec<u32> = Vec::with_capacity(nodes.len());
        let mut pending = Vec::with_capacity(nodes.len());
        let mut ready = Vec::new();
        let mut starts = vec![0u32; nodes.len() + 1];
        for (i, node) in nodes.iter().enumerate() {
            data_starts.push(data.len() as u32);
            let (mut controls, mut back) = (0, false);
            for input in node.inputs() {
                let (name, slot) = tensor_id(input);
                // A node's input is most often the node before it.
                let src = match i.checked_sub(1) {
                    Some(previous) if nodes[previous].name() == name => previous,
                    _ => index.get(name, name_of).ok_or_else(|| {
                        Failure::invalid(format!(
                            "Node '{}': Unknown input node '{input}'",
                            node.name()
                        ))
                    })?,
                };
                if input.starts_with('^') {
                    controls += 1;
                } else {
                    back |= next_iteration[src];
                    data.push((src as u32, slot));
                }
                sources.push(src as u32);
                starts[src + 1] += 1;
            }
            let count = if back && is_merge(node.op()) {
                controls + 1
            } else {
                node.input_len() as u32
            };
            if count == 0 {
                ready.push(Reverse(i as u32));
            }
            pending.push(count);
        }
        data_starts.push(data.len() as u32);
        for k in 0..nodes.len() {
            starts[k + 1] += starts[k];
        }
        // The edges, grouped by source node in the order they were met.
        let mut fill = starts.clone();
        let mut targets = vec![0u32; sources.len()];
        let mut next_source = sources.iter();
        for (i, node) in nodes.iter().enumerate() {
            for _ in 0..node.input_len() {
                let Some(&src) = next_source.next() else {
                    break;
                };
                targets[fill[src as usize] as usize] = i as u32;
                fill[src as usize] += 1;
            }
        }
        Ok(Prepared {
            nodes,
            index,
            data,
            data_starts,
            next_iteration,
            pending,
            starts,
            targets,
            ready: BinaryHeap::from(ready),
            scratch: RefCell::default(),
        })
    }

    /// Whether a node is named `name`.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.index.get(name, |i| self.nodes[i].name()).is_some()
    }

    /// Node `n`'s data inputs, as (source node, output slot).
    pub(super) fn data_inputs(&self, n: usize) -> &[(u32, usize)] {
        &self.data[self.data_starts[n] as usize..self.data_starts[n + 1] as usize]
    }

    /// The nodes node `n` feeds, once per edge.
    pub(super) fn outputs(&self, n: usize) -> &[u32] {
        &self.targets[self.starts[n] as usize..self.starts[n + 1] as usize]
    }

    /// Whether node `n` is a `NextIteration`.
    pub(super) fn is_next_iteration(&self, n: usize) -> bool {
        self.next_iteration[n]
    }
}

pub(super) fn is_merge(op: &str) -> bool {
    op == "Merge" || op == "RefMerge" || op == "_XlaMerge"
}

/// `ParseTensorName`: `name:3` is output 3 of `name`, `name` output 0, `^name` a control input.
pub(super) fn tensor_id(input: &str) -> (&str, usize) {
    let input = input.strip_prefix('^').unwrap_or(input);
    let bytes = input.as_bytes();
    let digits = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let colon = bytes.len() - digits;
    if digits > 0
        && colon > 0
        && bytes[colon - 1] == b':'
        && let Ok(slot) = input[colon..].parse()
    {
        return (&input[..colon - 1], slot);
    }
    (input, 0)
}

/// `IsValidNodeName` as an import checks it (internal ops not allowed): segments joined by
/// `>`, each `[A-Za-z0-9.][A-Za-z0-9_./-]*`.
pub(super) fn valid_node_name(name: &str) -> bool {
    let mut segment_start = true;
    for &b in name.as_bytes() {
        let valid = if segment_start {
            b.is_ascii_alphanumeric() || b == b'.'
        } else if b == b'>' {
            segment_start = true;
            continue;
        } else {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/')
        };
        if !valid {
            return false;
        }
        segment_start = false;
    }
    !segment_start
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `IsValidNodeName` as a plain reading of its pattern.
    fn valid_by_pattern(name: &str) -> bool {
        name.split('>').all(|part| {
            let mut bytes = part.bytes();
            bytes
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
                && bytes
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/'))
        })
    }

    #[test]
    fn tensor_names() {
        assert_eq!(tensor_id("a"), ("a", 0));
        assert_eq!(tensor_id("a:3"), ("a", 3));
        assert_eq!(tensor_id("^a"), ("a", 0));
        assert_eq!(tensor_id("a:b:12"), ("a:b", 12));
        assert_eq!(tensor_id("a:"), ("a:", 0));
        assert_eq!(tensor_id("a:1x"), ("a:1x", 0));
        assert_eq!(tensor_id(":5"), ("", 5));
        assert_eq!(
            tensor_id("a:99999999999999999999999"),
            ("a:99999999999999999999999", 0)
        );
    }

    proptest! {
        #[test]
        fn node_names_as_the_pattern_says(name in "[a-c0.>_/:-]{0,8}") {
            prop_assert_eq!(valid_node_name(&name), valid_by_pattern(&name));
        }

        #[test]
        fn the_index_finds_each_name_once(names in proptest::collection::vec("[ab]{0,4}", 0..40)) {
            let mut index = NameIndex::with_capacity(names.len());
            let mut first = HashMap::new();
            for (i, name) in names.iter().enumerate() {
                let hash = hash_bytes(name.as_bytes());
                let found = index.insert(name, hash, i, |n| names[n].as_str());
                prop_assert_eq!(found, first.get(name.as_str()).copied());
                first.entry(name.as_str()).or_insert(i);
            }
            for name in ["", "a", "ab", "ba", "bbbb", "abc"] {
                prop_assert_eq!(
                    index.get(name, |n| names[n].as_str()),
                    first.get(name).copied()
                );
            }
        }
    }

    fn node_bytes(fields: &[(u8, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(number, payload) in fields {
            out.push(number << 3 | 2);
            out.push(payload.len() as u8);
            out.extend_from_slice(payload);
        }
        out
    }

    #[test]
    fn text_fields_are_checked_for_utf8_together_or_apart() {
        let attr = node_bytes(&[(1, b"T"), (2, &[0x30, 0x01])]);
        fn read(raw: &[u8]) -> Option<NodeView<'_>> {
            read_node(raw, &mut CheckedEntries::default())
        }
        // Together, first: one check; a multi-byte name stays whole.
        let raw = node_bytes(&[(1, "n\u{e9}".as_bytes()), (2, b"Op"), (3, b"x"), (5, &attr)]);
        let view = read(&raw).expect("read");
        assert_eq!((view.name, view.op, view.input_len), ("n\u{e9}", "Op", 1));
        // An attr first: each field on its own.
        let raw = node_bytes(&[(5, &attr), (1, b"n"), (2, b"Op"), (3, b"x:1")]);
        let view = read(&raw).expect("read");
        assert_eq!((view.name, view.op), ("n", "Op"));
        assert_eq!(view.inputs().collect::<Vec<_>>(), ["x:1"]);
        // Bytes that are not UTF-8 in an input or a device, together or apart: left to prost.
        for raw in [
            node_bytes(&[(1, b"n"), (3, &[0xff])]),
            node_bytes(&[(5, &attr), (1, b"n"), (3, &[0xc3])]),
            node_bytes(&[(1, b"n"), (5, &attr), (4, &[0x80])]),
        ] {
            assert!(read(&raw).is_none());
        }
    }
}
