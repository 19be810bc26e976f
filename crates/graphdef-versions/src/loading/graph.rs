//! A graph's nodes as the importer reads them, and what importing them needs before any
//! release is asked: the node index and the edges (`BuildNodeIndex` and `InitFromEdges`,
//! `tensorflow/core/common_runtime/graph_constructor.cc`), the same for every release.
//!
//! A GraphDef file is read in place: a [`NodeView`] keeps where a node's name, op, inputs and
//! attrs are in the file's bytes, and decodes attrs only when the importer looks at them.
//!
//! TensorFlow checks every node's name, and looks up every input, before it looks at any node;
//! most imports are refused at their first node. So the nodes are first taken in order, each
//! with only what those checks need: its name's hash goes to one of 256 parts by the hash's
//! top bits, and an input naming the node just before (most first inputs) needs nothing more.
//! Once every node is in, each part is sorted into groups by more bits of the hash: repeated
//! names are found there, and the other inputs are looked up. The edges are made only when an
//! import gets past its first node. Memory is read and written mostly in order, and each node
//! costs a few bytes: the place of its bytes in the file (its name is read again from them
//! when a message wants it), its op, and an index entry.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::cmp::Reverse;
use std::collections::hash_map::RandomState;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use super::Failure;
use crate::schema::{AttrValue, GraphDef, NodeDef};
use prost::Message;
use prost::bytes::Buf;

/// A hash of bytes, eight at a time, each word folded in by a 128-bit multiply. Names come from
/// the graph, so the hash starts from a seed drawn once per process: a graph cannot be made to
/// collide its names on purpose and turn the index's probing quadratic.
pub(super) fn hash_bytes(bytes: &[u8]) -> u64 {
    const K0: u64 = 0x9e37_79b9_7f4a_7c15;
    const K1: u64 = 0xd6e8_feb8_6659_fd93;
    static SEED: OnceLock<u64> = OnceLock::new();
    let seed = *SEED.get_or_init(|| RandomState::new().hash_one(K1));
    let fold = |a: u64, b: u64| {
        let product = u128::from(a) * u128::from(b);
        (product as u64) ^ ((product >> 64) as u64)
    };
    let mut hash = fold(seed ^ K0, K1) ^ bytes.len() as u64;
    // Every whole word before the last eight bytes, then those, overlapping the word before
    // (the length is in the hash): no byte-by-byte copy of a tail.
    let mut at = 0;
    while at + 8 < bytes.len() {
        hash = fold(hash ^ u64_at(&bytes[at..]), K1);
        at += 8;
    }
    fold(fold(hash ^ last_word(bytes), K1), K0)
}

/// The last eight bytes of `bytes` as a word; fewer bytes, each read once or twice.
#[inline]
fn last_word(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if let Some(last) = len.checked_sub(8).and_then(|start| bytes.get(start..)) {
        u64_at(last)
    } else if len >= 4 {
        let low = u32_at(bytes);
        let high = u32_at(&bytes[len - 4..]);
        u64::from(low) | u64::from(high) << 32
    } else if len > 0 {
        u64::from(bytes[0]) | u64::from(bytes[len / 2]) << 8 | u64::from(bytes[len - 1]) << 16
    } else {
        0
    }
}

/// The first eight bytes of `bytes` (which has as many), little-endian.
#[inline]
fn u64_at(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

/// The first four bytes of `bytes` (which has as many), little-endian.
#[inline]
fn u32_at(bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[..4]);
    u32::from_le_bytes(word)
}

/// Whether two short byte strings are equal, compared a word at a time without a call to
/// `memcmp` (names, ops and attr entries are mostly a few dozen bytes).
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if len < 8 {
        return if len >= 4 {
            u32_at(a) == u32_at(b) && u32_at(&a[len - 4..]) == u32_at(&b[len - 4..])
        } else {
            a == b
        };
    }
    if len > 64 {
        return a == b;
    }
    let mut at = 0;
    while at + 8 < len {
        if u64_at(&a[at..]) != u64_at(&b[at..]) {
            return false;
        }
        at += 8;
    }
    u64_at(&a[len - 8..]) == u64_at(&b[len - 8..])
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

    #[inline]
    fn read(&mut self) -> Result<RawField<'a>, ()> {
        // Most fields: a one-byte key, and a one-byte length when length-delimited.
        if let [key, len, ..] = *self.rest
            && key < 0x80
            && key & 7 == 2
            && key >= 8
            && len < 0x80
            && let Some(payload) = self.rest.get(2..2 + usize::from(len))
        {
            let (whole, rest) = self.rest.split_at(2 + usize::from(len));
            self.rest = rest;
            return Ok((u32::from(key >> 3), 2, payload, whole));
        }
        self.read_any()
    }

    #[inline(never)]
    fn read_any(&mut self) -> Result<RawField<'a>, ()> {
        let start = self.rest;
        let mut buf = self.rest;
        // A key is a varint of at most 32 bits, as prost's `decode_key` reads it.
        let key = u32::try_from(varint(&mut buf).ok_or(())?).map_err(|_| ())?;
        let number = key >> 3;
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
    fn of(self, raw: &[u8]) -> &[u8] {
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
#[derive(Clone, Copy)]
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

impl<T: GraphNode + ?Sized> GraphNode for &T {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn op(&self) -> &str {
        (**self).op()
    }

    fn inputs(&self) -> impl Iterator<Item = &str> {
        (**self).inputs()
    }

    fn input_len(&self) -> usize {
        (**self).input_len()
    }

    fn controls_last(&self) -> bool {
        (**self).controls_last()
    }

    fn attr(&self, key: &str) -> Option<Cow<'_, AttrValue>> {
        (**self).attr(key)
    }

    fn same_attrs(&self, other: &Self) -> bool {
        (**self).same_attrs(*other)
    }

    fn full(&self) -> Cow<'_, NodeDef> {
        (**self).full()
    }
}

/// A graph's nodes, as the importer asks for them: by position, with the name the node index
/// keeps for it.
pub(super) trait NodeSource {
    type Node<'s>: GraphNode + Copy
    where
        Self: 's;

    /// Node `i`, named `name`.
    fn node<'s>(&'s self, i: usize, name: &'s str) -> Self::Node<'s>;

    /// Every op the nodes name, once each.
    fn op_names(&self) -> Vec<&str>;
}

impl NodeSource for [NodeDef] {
    type Node<'s> = &'s NodeDef;

    fn node<'s>(&'s self, i: usize, _: &'s str) -> &'s NodeDef {
        &self[i]
    }

    fn op_names(&self) -> Vec<&str> {
        let names: FastSet<&str> = self.iter().map(|node| node.op.as_str()).collect();
        names.into_iter().collect()
    }
}

/// A GraphDef's nodes read in place, and the rest of the graph decoded. A node keeps its op
/// and what reading it found; the node index keeps where its bytes are, from which its name
/// and the rest are read again when the importer asks for them.
pub(super) struct GraphViews<'a> {
    /// The distinct ops the nodes name (the node index numbers each node's op by them).
    ops: Vec<&'a str>,
    /// Each node's [`NodeView`] flags.
    flags: Vec<u8>,
    /// The node index and the edges, or the first refusal met building them.
    pub(super) prepared: Result<Prepared<'a>, Failure>,
    /// The GraphDef without its nodes: versions and library.
    pub(super) rest: GraphDef,
}

impl<'a> NodeSource for GraphViews<'a> {
    type Node<'s>
        = NodeView<'s>
    where
        Self: 's;

    fn node<'s>(&'s self, i: usize, name: &'s str) -> NodeView<'s> {
        // Nodes are only looked at once indexed.
        let (raw, op) = match &self.prepared {
            Ok(prepared) => (prepared.names.raw(i), self.ops[prepared.op_ids[i] as usize]),
            Err(_) => (&[][..], ""),
        };
        view_node(raw, name, op, self.flags[i])
    }

    fn op_names(&self) -> Vec<&str> {
        self.ops.clone()
    }
}

/// Attr entries read once already, with the [`NodeView`] flag their key sets: the last few,
/// then all of them.
#[derive(Default)]
struct CheckedEntries<'a> {
    recent: [(&'a [u8], u8); 4],
    next: usize,
    all: FastMap<&'a [u8], u8>,
}

impl<'a> CheckedEntries<'a> {
    /// The flag an attr entry's key sets. Each distinct entry is read once, and its value
    /// decoded, so that a file prost would refuse is refused here too (by the full decoder the
    /// caller falls back to).
    fn flag(&mut self, entry: &'a [u8]) -> Option<u8> {
        if let Some(&(_, flag)) = self.recent.iter().find(|(seen, _)| same_bytes(seen, entry)) {
            return Some(flag);
        }
        let flag = match self.all.get(entry) {
            Some(&flag) => flag,
            None => {
                let (key, _) = attr_entry(entry)?;
                if !decodes_in_a_graph(entry) {
                    return None;
                }
                let flag = match key {
                    "_class" => NodeView::CLASS,
                    "_output_shapes" => NodeView::OUTPUT_SHAPES,
                    _ => 0,
                };
                self.all.insert(entry, flag);
                flag
            }
        };
        self.recent[self.next % self.recent.len()] = (entry, flag);
        self.next += 1;
        Some(flag)
    }
}

/// Whether prost decodes `entry` as the attr entry of a node of a GraphDef: at the depth it
/// has in the file, since prost's recursion limit counts the messages around it. The entry is
/// not copied: the GraphDef's and NodeDef's headers are chained before it.
fn decodes_in_a_graph(entry: &[u8]) -> bool {
    let mut node = vec![0x2a];
    prost::encoding::encode_varint(entry.len() as u64, &mut node);
    let mut header = vec![0x0a];
    prost::encoding::encode_varint((node.len() + entry.len()) as u64, &mut header);
    header.extend_from_slice(&node);
    GraphDef::decode(header.as_slice().chain(entry)).is_ok()
}

/// `first` on this thread, and `second`, if there is one, on a scoped thread of its own beside
/// it; a panic on that thread goes on on this one.
fn beside<A, B: Send>(
    first: impl FnOnce() -> A,
    second: Option<impl FnOnce() -> B + Send>,
) -> (A, Option<B>) {
    std::thread::scope(|scope| {
        let second = second.map(|second| scope.spawn(second));
        let first = first();
        let second = second.map(|second| {
            second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (first, second)
    })
}

/// How many read nodes the reading thread hands to the indexing one at a time (a few in the
/// unit tests, so that their small graphs cross batches).
const HANDOFF: usize = if cfg!(test) { 3 } else { 4096 };

/// The smallest file for which a second thread pays: below, starting it costs more than it
/// saves.
pub(super) const TWO_THREADS_FROM: usize = 4 << 20;

/// The fewest nodes whose edges, or inputs to look up, are shared by two threads when the
/// index was.
const SPLIT_EDGES_FROM: usize = 1 << 16;

/// How many batches the reading thread may be ahead of the indexing one.
const AHEAD: usize = 16;

/// A node read, as the index takes it: what `BuildNodeIndex` checks of it that reading
/// found. Its name is hashed and checked, its op numbered and its inputs parsed by the index.
#[derive(Clone, Copy)]
struct ReadNode<'a> {
    name: &'a str,
    /// The node's bytes from its first input field to its last, for a node read in place;
    /// empty for a decoded one, whose inputs are the batch's.
    input_fields: &'a [u8],
    op: &'a str,
    /// Whether no regular input follows a control input.
    controls_last: bool,
    /// How many inputs it has: they follow those of the node before it.
    inputs: u32,
}

/// An input's source node and slot: the slot at most [`BIG_SLOT`], or [`CONTROL`].
fn parse_input(raw: &[u8]) -> (&[u8], u32) {
    let (source, slot) = tensor_id_bytes(raw);
    let slot = if raw.first() == Some(&b'^') {
        CONTROL
    } else {
        u32::try_from(slot).map_or(BIG_SLOT, |slot| slot.min(BIG_SLOT))
    };
    (source, slot)
}

/// Whether an input's source is the node just before, named `previous` (empty for the first
/// node). TensorFlow writes most graphs with a node's first input just before it. No node is
/// named "" (an import refuses the name), so an input naming "" is looked up, not taken for
/// the first node's "previous".
fn names_previous(source: &[u8], previous: &[u8]) -> bool {
    !previous.is_empty() && same_bytes(source, previous)
}

/// Nodes read, handed to the index together.
#[derive(Default)]
struct Batch<'a> {
    nodes: Vec<ReadNode<'a>>,
    /// Where the nodes' bytes are in the file, (start, length), which the index keeps: the
    /// reading thread makes room for them.
    raws: Vec<(u32, u32)>,
    /// The inputs of decoded nodes, node after node (a node read in place has its input
    /// fields).
    inputs: Vec<&'a [u8]>,
    /// How far into the file reading had got, at the end of this batch.
    read_to: usize,
}

impl<'a> Batch<'a> {
    fn with_capacity(nodes: usize) -> Self {
        Batch {
            nodes: Vec::with_capacity(nodes),
            raws: Vec::with_capacity(nodes),
            inputs: Vec::new(),
            read_to: 0,
        }
    }

    /// Adds a node and its inputs.
    fn push(
        &mut self,
        name: &'a str,
        op: &'a str,
        controls_last: bool,
        inputs: impl Iterator<Item = &'a [u8]>,
    ) {
        let before = self.inputs.len();
        self.inputs.extend(inputs);
        let count = self.inputs.len() - before;
        self.nodes.push(ReadNode {
            name,
            input_fields: &[],
            op,
            controls_last,
            inputs: count as u32,
        });
    }

    /// Adds a node read in place, `inputs` input fields from its first to its last.
    fn push_read(
        &mut self,
        name: &'a str,
        op: &'a str,
        controls_last: bool,
        input_fields: &'a [u8],
        inputs: u32,
    ) {
        self.nodes.push(ReadNode {
            name,
            input_fields,
            op,
            controls_last,
            inputs,
        });
    }

    /// Empties the batch for the next nodes; where their bytes are went to the index, so
    /// room is made for the next ones.
    fn clear(&mut self) {
        self.nodes.clear();
        self.inputs.clear();
        // An index that refused a node earlier takes no more.
        self.raws.clear();
        if self.raws.capacity() == 0 {
            self.raws = Vec::with_capacity(self.nodes.capacity());
        }
    }
}

/// What reading the file's nodes keeps, besides the index.
struct Read {
    flags: Vec<u8>,
    rest: GraphDef,
}

/// What indexing the nodes makes: the index and edges, or the first refusal met making
/// them; and the distinct ops the nodes name, in the order the index numbers them.
struct Indexed<'a> {
    prepared: Result<Prepared<'a>, Failure>,
    ops: Vec<&'a str>,
}

impl<'a> GraphViews<'a> {
    /// Reads a GraphDef's nodes in place, indexing them as it goes. `None` for anything a
    /// plain reading might get wrong (a known field with another wire type, text that is not
    /// UTF-8, a repeated name or op, a graph of 4 GB or more): the caller then decodes the
    /// whole graph instead. `count` is how many nodes the file holds, counted before, so that
    /// nothing grows while they are read (a wrong count costs only time).
    pub(super) fn read(file: &'a [u8], count: usize) -> Option<GraphViews<'a>> {
        u32::try_from(file.len()).ok()?;
        let count = count.min(file.len() / 2);
        let mut indexing = Indexing::new(count, false, Names::in_file(file, count));
        let read = read_nodes(file, count, false, Batch::with_capacity(HANDOFF), |batch| {
            indexing.add(batch);
            batch.clear();
        });
        Some(Self::of(read?, indexing.finish()))
    }

    /// [`GraphViews::read`] on two threads: a scoped thread reads the nodes while the calling
    /// thread takes those read so far (numbers their ops, hashes and checks their names,
    /// parses their inputs); then both threads sort half of the index, and look up half of
    /// the inputs, each. The nodes are taken in node order as on one thread, so the same
    /// refusal is found.
    ///
    /// The file is read before anything tells its kind: `None` also when it does not start
    /// with a node, or has none. With at least one node, a known field of the wrong wire type
    /// refused, and the rest of the graph decoded, the file is a GraphDef as
    /// [`Kind::detect`](crate::artifact::Kind::detect) tells it.
    pub(super) fn read_on_two_threads(file: &'a [u8]) -> Option<GraphViews<'a>> {
        u32::try_from(file.len()).ok()?;
        let (read, prepared) = read_beside_indexing(file)?;
        let read = read.filter(|read| !read.flags.is_empty())?;
        Some(Self::of(read, prepared))
    }

    fn of(read: Read, indexed: Indexed<'a>) -> Self {
        GraphViews {
            ops: indexed.ops,
            flags: read.flags,
            rest: read.rest,
            prepared: indexed.prepared,
        }
    }
}

/// [`read_nodes`] on a scoped thread, handing what it reads to [`Indexing`] on this one,
/// which sizes the index from the first batch (`None` if no node was read).
#[allow(clippy::type_complexity)]
fn read_beside_indexing(file: &[u8]) -> Option<(Option<Read>, Indexed<'_>)> {
    std::thread::scope(|scope| {
        let (to_index, read_batches) = std::sync::mpsc::sync_channel::<Batch>(AHEAD);
        let (to_reuse, emptied) = std::sync::mpsc::channel::<Batch>();
        let reader = scope.spawn(move || {
            // Room for nodes of 32 bytes on average: the pages of what is not used are never
            // touched, and more nodes than that only grow the tables.
            let first = Batch::with_capacity(HANDOFF);
            read_nodes(file, file.len() / 32, true, first, |batch| {
                let next = emptied
                    .try_recv()
                    .unwrap_or_else(|_| Batch::with_capacity(HANDOFF));
                // The indexing side stops receiving only once this side is done.
                let _ = to_index.send(std::mem::replace(batch, next));
            })
        });
        let Ok(first) = read_batches.recv() else {
            // Nothing read: the reading side is done.
            let _ = reader.join();
            return None;
        };
        // As many nodes as the first ones' size says, and some more: too few only makes the
        // tables grow. At most one per 16 bytes of the file, so that tiny first nodes before a
        // large other field cannot make the room made for them larger than the file.
        let per_node = first.read_to / first.nodes.len().max(1);
        let estimate = (file.len() / per_node.max(1)).min(file.len() / 16);
        let estimate = estimate.saturating_add(estimate / 16);
        let mut indexing = Indexing::new(estimate, true, Names::in_file(file, estimate));
        let mut batch = first;
        loop {
            indexing.add(&mut batch);
            batch.clear();
            // The reading side may be done, and no longer take batches back.
            let _ = to_reuse.send(batch);
            match read_batches.recv() {
                Ok(next) => batch = next,
                Err(_) => break,
            }
        }
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Some((read, indexing.finish()))
    })
}

/// Reads the file's top-level fields, in file order, handing the nodes read to `full` a
/// [`HANDOFF`] at a time, and the last ones at the end; `None` for bytes a plain reading might
/// get wrong, or, with `nodes_first`, if the first field is not a node. `count` is how many
/// nodes to make room for.
fn read_nodes<'a>(
    file: &'a [u8],
    count: usize,
    nodes_first: bool,
    mut batch: Batch<'a>,
    mut full: impl FnMut(&mut Batch<'a>),
) -> Option<Read> {
    if nodes_first && !matches!(RawFields::new(file).next(), Some(Ok((1, 2, _, _)))) {
        return None;
    }
    let mut flags = Vec::with_capacity(count);
    let mut checked = CheckedEntries::default();
    let mut rest = Vec::new();
    let mut fields = RawFields::new(file);
    while !fields.rest.is_empty() {
        let (number, wire, payload, whole) = fields.read().ok()?;
        match (number, wire) {
            (1, 2) => {
                let start = file.len() - fields.rest.len() - payload.len();
                let view = read_node(payload, &mut checked)?;
                batch.raws.push((start as u32, payload.len() as u32));
                flags.push(view.flags);
                batch.push_read(
                    view.name,
                    view.op,
                    view.controls_last(),
                    view.inputs.of(view.raw),
                    view.input_len,
                );
                if batch.nodes.len() == HANDOFF {
                    batch.read_to = file.len() - fields.rest.len();
                    full(&mut batch);
                }
            }
            // The other fields a GraphDef or a SavedModel knows, each with the wire type
            // neither message allows for it (see `Kind::detect`).
            (1, _) | (2 | 4 | 5, 0 | 1 | 5) | (3, 1 | 2 | 5) => return None,
            _ => rest.extend_from_slice(whole),
        }
    }
    batch.read_to = file.len();
    if !batch.nodes.is_empty() {
        full(&mut batch);
    }
    Some(Read {
        flags,
        rest: GraphDef::decode(rest.as_slice()).ok()?,
    })
}

/// Nodes on their way into the index, a batch at a time, in node order. Each node's inputs
/// are parsed as it comes, and an input naming the node just before needs nothing more; the
/// index itself is made once every node is in (see [`Builder::finish`]).
struct Indexing<'a> {
    builder: Builder<'a>,
    /// The name of the last node taken.
    last_name: &'a [u8],
    /// Every node's op, numbered, also after the builder refused a node.
    ops: OpTable<'a>,
    op_ids: Vec<u32>,
    /// The inputs of the node being taken, read from its input fields.
    inputs: Vec<&'a [u8]>,
}

impl<'a> Indexing<'a> {
    /// Indexing for about `nodes` nodes, the index made on two threads if `split`.
    fn new(nodes: usize, split: bool, names: Names<'a>) -> Self {
        Indexing {
            builder: Builder::with_capacity(nodes, split, names),
            last_name: &[],
            ops: OpTable::default(),
            op_ids: Vec::with_capacity(nodes),
            inputs: Vec::new(),
        }
    }

    fn add(&mut self, batch: &mut Batch<'a>) {
        let b = &mut self.builder;
        let mut taking = b.refused.is_none();
        if taking {
            b.names.push_chunk(std::mem::take(&mut batch.raws));
        }
        let mut at = 0;
        for node in &batch.nodes {
            let op = self.ops.id(node.op);
            self.op_ids.push(op);
            if !taking {
                continue;
            }
            let inputs = if node.input_fields.is_empty() {
                let inputs = batch
                    .inputs
                    .get(at..at + node.inputs as usize)
                    .unwrap_or_default();
                at += inputs.len();
                inputs
            } else {
                self.inputs.clear();
                self.inputs.extend(
                    RawFields::new(node.input_fields)
                        .map_while(Result::ok)
                        .filter(|field| field.0 == 3 && field.1 == 2)
                        .map(|field| field.2),
                );
                &self.inputs
            };
            let previous = std::mem::replace(&mut self.last_name, node.name.as_bytes());
            taking = b.add(node, inputs, previous);
        }
    }

    fn finish(self) -> Indexed<'a> {
        Indexed {
            prepared: self.builder.finish(self.op_ids, self.ops.kinds),
            ops: self.ops.names,
        }
    }
}

/// The distinct ops of a graph, each with its position.
struct OpTable<'a> {
    names: Vec<&'a str>,
    ids: FastMap<&'a str, u32>,
    /// Each op's kind (see [`kind_of`]).
    kinds: Vec<u8>,
    /// Ops looked up before, by their hash: a graph has few ops, and each is then found
    /// without the map.
    recent: [(&'a str, u32); 64],
}

impl Default for OpTable<'_> {
    fn default() -> Self {
        OpTable {
            names: Vec::new(),
            ids: FastMap::default(),
            kinds: Vec::new(),
            recent: [("", u32::MAX); 64],
        }
    }
}

impl<'a> OpTable<'a> {
    fn id(&mut self, op: &'a str) -> u32 {
        // The recent ops are a shortcut before the map: a cheap mix of the op's length and
        // last bytes picks their slots, and ops that share slots only cost a map lookup.
        let bytes = op.as_bytes();
        let mix =
            (last_word(bytes) ^ (bytes.len() as u64) << 56).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slots = [(mix >> 58) as usize, (mix >> 52) as usize % 64];
        for slot in slots {
            let (seen, id) = self.recent[slot];
            if id != u32::MAX && same_bytes(seen.as_bytes(), op.as_bytes()) {
                return id;
            }
        }
        let next = self.names.len() as u32;
        let id = *self.ids.entry(op).or_insert(next);
        if id == next {
            self.names.push(op);
            self.kinds.push(kind_of(op));
        }
        let slot = if self.recent[slots[0]].1 == u32::MAX {
            slots[0]
        } else {
            slots[1]
        };
        self.recent[slot] = (op, id);
        id
    }
}

/// A node's view from its bytes, read before: where its inputs and attrs are.
fn view_node<'a>(raw: &'a [u8], name: &'a str, op: &'a str, flags: u8) -> NodeView<'a> {
    let mut view = NodeView {
        raw,
        name,
        op,
        inputs: Span::default(),
        attrs: Span::default(),
        input_len: 0,
        flags,
    };
    let mut fields = RawFields::new(raw);
    while !fields.rest.is_empty() {
        let start = raw.len() - fields.rest.len();
        let Ok((number, wire, _, _)) = fields.read() else {
            break;
        };
        let end = raw.len() - fields.rest.len();
        match (number, wire) {
            (3, 2) => {
                view.input_len += 1;
                view.inputs.cover(start, end);
            }
            (5, 2) => view.attrs.cover(start, end),
            _ => {}
        }
    }
    view
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
                view.flags |= checked.flag(payload)?;
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
            (1..=5, _) => return None,
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

/// How many high bits of a name's hash sort the [`NameIndex`] entries first.
const TOP_BITS: u32 = 8;

/// Where each node's name is: the nodes' positions, grouped by the high bits of their names'
/// hashes; a group of a few nodes, as most are, in node order, a larger one sorted.
///
/// The index is made in one go once every node is in, not a node at a time: a table filled
/// node by node pays a cache miss for each name, while grouping the names by their hashes
/// reads and writes memory mostly in order. Names repeated are found in the same pass, and
/// the first node whose name came before is the one `BuildNodeIndex` refuses.
struct NameIndex {
    /// How many high bits of a hash give its group.
    bits: u32,
    /// The entries, by the [`TOP_BITS`] of their hashes: each the high half of a name's
    /// hash, then the node's position. Each part holds, in order, the groups whose bits start
    /// with its own.
    parts: Vec<Vec<u64>>,
    /// Where each group starts in its part.
    starts: Vec<u32>,
}

/// The node position in a [`NameIndex`] entry.
fn entry_node(entry: u64) -> usize {
    (entry & 0xffff_ffff) as usize
}

impl NameIndex {
    /// How many high bits of a hash pick the group, for about `nodes` names: about eight
    /// names a group, and at least the [`TOP_BITS`] the groups are first sorted by.
    fn bits_for(nodes: usize) -> u32 {
        (nodes / 8)
            .clamp(1 << TOP_BITS, 1 << 24)
            .next_power_of_two()
            .trailing_zeros()
    }

    /// The group of a name hashed `hash`.
    fn group(hash: u64, bits: u32) -> usize {
        (hash >> (64 - bits)) as usize
    }

    /// The index of entries sorted by their hashes' [`TOP_BITS`] into `parts`, each part in
    /// node order; and the first node whose name a node before it has. `split` sorts the
    /// second half of the parts on a second thread.
    ///
    /// Each part is sorted by the rest of its group's bits, writing to a few hundred places
    /// at a time, then each group on its own.
    fn build<'n>(
        mut parts: Vec<Vec<u64>>,
        bits: u32,
        split: bool,
        name_of: impl Fn(usize) -> &'n [u8] + Sync,
    ) -> (Self, Option<usize>) {
        let per_part = 1usize << (bits - TOP_BITS);
        let mut starts = vec![0u32; 1 << bits];
        let half = if split { parts.len() / 2 } else { parts.len() };
        let (starts_a, starts_b) = starts.split_at_mut(half * per_part);
        let (parts_a, parts_b) = parts.split_at_mut(half);
        // Room to sort the largest part in, made on the calling thread (see `Prepared::edges`).
        let room =
            |parts: &[Vec<u64>]| Vec::with_capacity(parts.iter().map(Vec::len).max().unwrap_or(0));
        let (room_a, room_b) = (room(parts_a), room(parts_b));
        let (a, b) = beside(
            || place(parts_a, bits, starts_a, &name_of, room_a),
            (!parts_b.is_empty()).then_some(|| place(parts_b, bits, starts_b, &name_of, room_b)),
        );
        let repeated = a.into_iter().chain(b.flatten()).min();
        (
            NameIndex {
                bits,
                parts,
                starts,
            },
            repeated,
        )
    }

    /// The node named `name`, hashed `hash`.
    fn find<'n>(
        &self,
        name: &[u8],
        hash: u64,
        name_of: impl Fn(usize) -> &'n [u8],
    ) -> Option<usize> {
        let group = Self::group(hash, self.bits);
        let part = &self.parts[Self::group(hash, TOP_BITS)];
        let last = (group + 1) & ((1 << (self.bits - TOP_BITS)) - 1) == 0;
        let end = if last {
            part.len()
        } else {
            self.starts[group + 1] as usize
        };
        let group = &part[self.starts[group] as usize..end];
        let tag = hash >> 32;
        let named = |node: &usize| same_bytes(name_of(*node), name);
        if group.len() > SORTED_FROM {
            let from = group.partition_point(|&entry| entry >> 32 < tag);
            return group[from..]
                .iter()
                .take_while(|&&entry| entry >> 32 == tag)
                .map(|&entry| entry_node(entry))
                .find(named);
        }
        group
            .iter()
            .filter(|&&entry| entry >> 32 == tag)
            .map(|&entry| entry_node(entry))
            .find(named)
    }

    fn get<'n>(&self, name: &[u8], name_of: impl Fn(usize) -> &'n [u8]) -> Option<usize> {
        self.find(name, hash_bytes(name), name_of)
    }
}

/// Sorts each of `parts` (consecutive parts of a [`NameIndex`]) group after group, by way
/// of `spare` (with room for the largest), writing where each group starts in its part to
/// `starts`; the first node whose name an earlier node has.
fn place<'n>(
    parts: &mut [Vec<u64>],
    bits: u32,
    starts: &mut [u32],
    name_of: &impl Fn(usize) -> &'n [u8],
    mut spare: Vec<u64>,
) -> Option<usize> {
    let per_part = 1usize << (bits - TOP_BITS);
    let low = |entry: u64| NameIndex::group(entry, bits) & (per_part - 1);
    let mut local = vec![0u32; per_part];
    let mut repeated = None::<usize>;
    for (part, starts) in parts.iter_mut().zip(starts.chunks_mut(per_part)) {
        local.fill(0);
        for &entry in part.iter() {
            local[low(entry)] += 1;
        }
        let mut cursor = 0;
        for (start, count) in starts.iter_mut().zip(&mut local) {
            *start = cursor;
            cursor += std::mem::replace(count, cursor);
        }
        spare.clear();
        spare.resize(part.len(), 0);
        for &entry in part.iter() {
            let cursor = &mut local[low(entry)];
            spare[*cursor as usize] = entry;
            *cursor += 1;
        }
        part.copy_from_slice(&spare);
        // Each cursor is now where its group ends.
        let mut start = 0;
        for &end in &local {
            let end = end as usize;
            if let Some(node) = first_repeat_in_group(&mut part[start..end], name_of) {
                repeated = Some(repeated.map_or(node, |before| before.min(node)));
            }
            start = end;
        }
    }
    repeated
}

/// A [`NameIndex`] group longer than this is sorted; a shorter one (most are) stays in node
/// order, and is searched from one end to the other.
const SORTED_FROM: usize = 24;

/// The first node of a group (in node order, as a part's counting sort leaves it) whose name
/// an earlier node of the group has; a group longer than [`SORTED_FROM`] is sorted on the way.
fn first_repeat_in_group<'n>(
    group: &mut [u64],
    name_of: impl Fn(usize) -> &'n [u8],
) -> Option<usize> {
    if group.len() <= SORTED_FROM {
        // Each entry against those before it: the first whose hash and name meet an earlier
        // one's is the first repeat.
        for (i, &entry) in group.iter().enumerate().skip(1) {
            let tag = entry >> 32;
            if group[..i].iter().any(|&before| {
                before >> 32 == tag
                    && same_bytes(name_of(entry_node(before)), name_of(entry_node(entry)))
            }) {
                return Some(entry_node(entry));
            }
        }
        return None;
    }
    group.sort_unstable();
    // Runs of one hash: the same name, or (rarely) names whose hashes' high halves meet.
    let mut repeated = None::<usize>;
    let mut run = 0;
    while run + 1 < group.len() {
        let tag = group[run] >> 32;
        let end = run
            + group[run..]
                .iter()
                .take_while(|&&entry| entry >> 32 == tag)
                .count();
        if end - run > 1
            && let Some(node) = first_repeat(&group[run..end], &name_of)
        {
            repeated = Some(repeated.map_or(node, |before| before.min(node)));
        }
        run = end;
    }
    repeated
}

/// In entries of one hash, sorted, the first node whose name an earlier node of them has.
fn first_repeat<'n>(run: &[u64], name_of: impl Fn(usize) -> &'n [u8]) -> Option<usize> {
    if let [a, b] = *run {
        let (a, b) = (entry_node(a), entry_node(b));
        return same_bytes(name_of(a), name_of(b)).then_some(b);
    }
    let mut named: Vec<(&[u8], usize)> = run
        .iter()
        .map(|&entry| (name_of(entry_node(entry)), entry_node(entry)))
        .collect();
    named.sort_unstable();
    named
        .windows(2)
        .filter(|pair| pair[0].0 == pair[1].0)
        .map(|pair| pair[1].1)
        .min()
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

impl Scratch {
    /// The state before an import's first node, unless it is there already.
    pub(super) fn fill(&mut self, graph: &Prepared<'_>) {
        if self.types.is_empty() && graph.len() > 0 {
            self.pending
                .extend((0..graph.len()).map(|n| graph.pending(n)));
            self.types.resize(graph.len(), NOT_YET);
        }
    }
}

/// An edge's slot when it is a control input.
const CONTROL: u32 = u32::MAX;
/// An edge's slot when it is a data input from an output numbered `BIG_SLOT` or more (no
/// node has that many outputs; the number is read again from the input for a message).
pub(super) const BIG_SLOT: u32 = u32::MAX - 1;

/// Node kinds the edges care about.
const MERGE: u8 = 1;
const NEXT_ITERATION: u8 = 2;

/// An op's kind: [`MERGE`], [`NEXT_ITERATION`] or 0.
fn kind_of(op: &str) -> u8 {
    match op {
        "NextIteration" | "RefNextIteration" => NEXT_ITERATION,
        _ if is_merge(op) => MERGE,
        _ => 0,
    }
}

/// What `BuildNodeIndex` refuses of a node, in the order it checks a node: the first node
/// refused, and its first refusal, is the least (node, refusal).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Refusal {
    TooMany,
    InvalidName,
    /// A node before it has its name.
    Repeated,
    NoOp,
    ControlsFirst,
}

impl Refusal {
    fn failure(self, name: &str) -> Failure {
        Failure::invalid(match self {
            Refusal::TooMany => {
                format!("A graph of more than {BIG_SLOT} nodes is more than this importer indexes")
            }
            Refusal::InvalidName => format!("Node '{name}': Node name contains invalid characters"),
            Refusal::Repeated => format!("Node '{name}' is not unique"),
            Refusal::NoOp => format!("Node '{name}' does not specify an operation"),
            Refusal::ControlsFirst => {
                format!("Node '{name}': Control dependencies must come after regular dependencies")
            }
        })
    }
}

/// An input to look up once every node is indexed: its node, and its source's hash.
struct Lookup<'a> {
    node: u32,
    hash: u64,
    raw: &'a [u8],
}

/// `BuildNodeIndex` and `InitFromEdges`: the nodes taken in order, then indexed together.
struct Builder<'a> {
    /// The names of the nodes handed over so far, added or about to be.
    names: Names<'a>,
    /// How many nodes were taken.
    taken: usize,
    /// The [`NameIndex`] entries of the nodes taken, by their hashes' [`TOP_BITS`].
    parts: Vec<Vec<u64>>,
    /// How many high bits of a hash give its [`NameIndex`] group.
    bits: u32,
    /// Whether the index is made on two threads.
    split: bool,
    /// The nodes with no inputs, in order.
    inputless: Vec<u32>,
    /// Inputs naming another node than the one just before, in order.
    lookups: Vec<Lookup<'a>>,
    /// The first node refused on its own, and why: the nodes after it are not taken.
    refused: Option<(usize, Refusal)>,
}

impl<'a> Builder<'a> {
    /// A builder for a graph of about `nodes` nodes, whose index is made on two threads if
    /// `split`.
    fn with_capacity(nodes: usize, split: bool, names: Names<'a>) -> Self {
        // Room in each part for its share of the nodes, and an eighth more.
        let part = (nodes >> TOP_BITS) + (nodes >> (TOP_BITS + 3));
        Builder {
            names,
            taken: 0,
            parts: (0..1 << TOP_BITS)
                .map(|_| Vec::with_capacity(part))
                .collect(),
            bits: NameIndex::bits_for(nodes),
            split,
            inputless: Vec::new(),
            lookups: Vec::new(),
            refused: None,
        }
    }

    /// Takes the next node, whose inputs are `inputs` and the node before it is named
    /// `previous` (empty for the first node); `false` once a node is refused on its own.
    fn add(&mut self, node: &ReadNode<'a>, inputs: &[&'a [u8]], previous: &[u8]) -> bool {
        let i = self.taken;
        self.taken += 1;
        let hash = hash_bytes(node.name.as_bytes());
        self.parts[NameIndex::group(hash, TOP_BITS)].push(hash >> 32 << 32 | i as u64);
        let refusal = if i >= BIG_SLOT as usize {
            Some(Refusal::TooMany)
        } else if !valid_node_name(node.name) {
            Some(Refusal::InvalidName)
        } else if node.op.is_empty() {
            Some(Refusal::NoOp)
        } else if !node.controls_last {
            Some(Refusal::ControlsFirst)
        } else {
            None
        };
        if let Some(refusal) = refusal {
            self.refused = Some((i, refusal));
            return false;
        }
        if inputs.is_empty() {
            self.inputless.push(i as u32);
        }
        for &raw in inputs {
            // The node before is valid, so its name has no `:` or `^`: an input that is its
            // name is its output 0, and needs no parsing.
            if !previous.is_empty() && same_bytes(raw, previous) {
                continue;
            }
            let source = tensor_id_bytes(raw).0;
            if !names_previous(source, previous) {
                self.lookups.push(Lookup {
                    node: i as u32,
                    hash: hash_bytes(source),
                    raw,
                });
            }
        }
        true
    }

    /// The index of the nodes taken, the first refusal of `BuildNodeIndex` if any, else the
    /// inputs looked up (`InitFromEdges`), then the nodes ready first. `op_ids` numbers each
    /// node's op, and `op_kinds` gives each op's kind.
    fn finish(self, op_ids: Vec<u32>, op_kinds: Vec<u8>) -> Result<Prepared<'a>, Failure> {
        let nodes = self.taken;
        let names = &self.names;
        let (index, repeated) =
            NameIndex::build(self.parts, self.bits, self.split, |n| names.bytes(n));
        // The nodes after one refused on its own were not taken: a repeat among them is
        // never looked at.
        let repeated = repeated.map(|node| (node, Refusal::Repeated));
        if let Some((node, why)) = self.refused.into_iter().chain(repeated).min() {
            return Err(why.failure(names.get(node)));
        }
        // On two threads, each looks up half of the inputs; the first half's refusal comes
        // first.
        let (first, second) = if self.split && self.lookups.len() >= SPLIT_EDGES_FROM {
            self.lookups.split_at(self.lookups.len() / 2)
        } else {
            (&self.lookups[..], &[][..])
        };
        let room = Vec::with_capacity(second.len());
        let (sources, rest) = beside(
            || look_up(first, &index, names, Vec::with_capacity(self.lookups.len())),
            (!second.is_empty()).then_some(|| look_up(second, &index, names, room)),
        );
        let mut sources = sources?;
        if let Some(rest) = rest {
            sources.extend(rest?);
        }
        // On two threads, each makes the edges of half of the nodes, when they are wanted.
        let halves = (self.split && nodes >= SPLIT_EDGES_FROM).then(|| {
            let mid = nodes / 2;
            let before = self
                .lookups
                .partition_point(|lookup| (lookup.node as usize) < mid);
            (mid, before)
        });
        // A node with no inputs is ready at once (a Merge waits for at least one input).
        let ready = BinaryHeap::from_iter(self.inputless.iter().map(|&n| Reverse(n)));
        Ok(Prepared {
            names: self.names,
            op_ids,
            op_kinds,
            index,
            inputless: self.inputless,
            sources,
            edges: OnceCell::new(),
            halves,
            ready,
            outputs: OnceCell::new(),
            scratch: RefCell::default(),
        })
    }
}

/// The nodes `lookups` name, in `found` (empty, with room made), or the first refusal: an
/// input naming no node.
fn look_up(
    lookups: &[Lookup<'_>],
    index: &NameIndex,
    names: &Names<'_>,
    mut found: Vec<u32>,
) -> Result<Vec<u32>, Failure> {
    for lookup in lookups {
        let source = tensor_id_bytes(lookup.raw).0;
        let node = index
            .find(source, lookup.hash, |n| names.bytes(n))
            .ok_or_else(|| {
                Failure::invalid(format!(
                    "Node '{}': Unknown input node '{}'",
                    names.get(lookup.node as usize),
                    String::from_utf8_lossy(lookup.raw)
                ))
            })?;
        found.push(node as u32);
    }
    Ok(found)
}

/// The nodes' names: read again from the nodes' bytes in the file, whose places the batches
/// brought in chunks of [`HANDOFF`] nodes (the last one shorter), or those of decoded nodes.
/// A name is wanted only for a message, or to check an input's match: keeping a node's place
/// costs less than keeping its name.
enum Names<'a> {
    InFile {
        file: &'a [u8],
        /// Where each node's bytes are in the file: (start, length).
        raws: Vec<Vec<(u32, u32)>>,
        len: usize,
    },
    Decoded(&'a [NodeDef]),
}

impl<'a> Names<'a> {
    /// Names of about `nodes` nodes read in place from `file`.
    fn in_file(file: &'a [u8], nodes: usize) -> Self {
        Names::InFile {
            file,
            raws: Vec::with_capacity(nodes.div_ceil(HANDOFF)),
            len: 0,
        }
    }

    /// Adds where the next [`HANDOFF`] nodes are, or the last ones.
    fn push_chunk(&mut self, chunk: Vec<(u32, u32)>) {
        if let Names::InFile { raws, len, .. } = self {
            debug_assert_eq!(*len % HANDOFF, 0, "only the last chunk is short");
            *len += chunk.len();
            raws.push(chunk);
        }
    }

    fn len(&self) -> usize {
        match self {
            Names::InFile { len, .. } => *len,
            Names::Decoded(nodes) => nodes.len(),
        }
    }

    /// Node `n`'s bytes in the file (none for a decoded node).
    fn raw(&self, n: usize) -> &'a [u8] {
        match self {
            Names::InFile { file, raws, .. } => {
                let (start, len) = raws[n / HANDOFF][n % HANDOFF];
                &file[start as usize..][..len as usize]
            }
            Names::Decoded(_) => &[],
        }
    }

    /// Node `n`'s name, as bytes: the first name field of its bytes, as reading took it.
    fn bytes(&self, n: usize) -> &'a [u8] {
        match self {
            Names::InFile { .. } => RawFields::new(self.raw(n))
                .map_while(Result::ok)
                .find(|field| field.0 == 1 && field.1 == 2)
                .map_or(&[], |field| field.2),
            Names::Decoded(nodes) => nodes[n].name.as_bytes(),
        }
    }

    /// Node `n`'s inputs, as written, handed to `f` in order; and its name, as bytes, from
    /// the same pass over its fields.
    fn inputs_and_name(&self, n: usize, mut f: impl FnMut(&'a [u8])) -> &'a [u8] {
        match self {
            Names::InFile { .. } => {
                let mut name = None;
                for (number, wire, payload, _) in RawFields::new(self.raw(n)).map_while(Result::ok)
                {
                    match (number, wire) {
                        (1, 2) if name.is_none() => name = Some(payload),
                        (3, 2) => f(payload),
                        _ => {}
                    }
                }
                name.unwrap_or_default()
            }
            Names::Decoded(nodes) => {
                nodes[n].input.iter().for_each(|input| f(input.as_bytes()));
                nodes[n].name.as_bytes()
            }
        }
    }

    /// Node `n`'s name (its bytes were checked for UTF-8 as it was read).
    fn get(&self, n: usize) -> &'a str {
        std::str::from_utf8(self.bytes(n)).unwrap_or_default()
    }

    #[cfg(test)]
    fn to_vec(&self) -> Vec<&'a str> {
        (0..self.len()).map(|n| self.get(n)).collect()
    }
}

/// Each node's inputs as (source node, slot or [`CONTROL`]), and its name, which the walk
/// asks for at every node: in two halves, the nodes before `mid` and the others, each made on
/// a thread of its own when the index was.
struct Edges<'a> {
    mid: usize,
    halves: [HalfEdges<'a>; 2],
}

/// The edges of consecutive nodes: the `k`-th node's are `edges[starts[k]..starts[k + 1]]`.
#[derive(Default)]
struct HalfEdges<'a> {
    edges: Vec<(u32, u32)>,
    starts: Vec<u32>,
    names: Vec<&'a str>,
}

impl HalfEdges<'_> {
    /// Room for the edges of `nodes` nodes, whose inputs looked up are `sources`.
    fn room(nodes: usize, sources: &[u32]) -> Self {
        HalfEdges {
            edges: Vec::with_capacity(nodes + sources.len()),
            starts: Vec::with_capacity(nodes + 1),
            names: Vec::with_capacity(nodes),
        }
    }
}

impl<'a> Edges<'a> {
    /// The half node `n` is in, and its place there.
    fn half(&self, n: usize) -> (&HalfEdges<'a>, usize) {
        match n.checked_sub(self.mid) {
            Some(k) => (&self.halves[1], k),
            None => (&self.halves[0], n),
        }
    }

    fn of(&self, n: usize) -> &[(u32, u32)] {
        let (half, k) = self.half(n);
        &half.edges[half.starts[k] as usize..half.starts[k + 1] as usize]
    }

    fn name(&self, n: usize) -> &'a str {
        let (half, k) = self.half(n);
        half.names[k]
    }

    /// Every edge, node after node.
    fn all(&self) -> impl Iterator<Item = &(u32, u32)> {
        self.halves[0].edges.iter().chain(&self.halves[1].edges)
    }

    fn len(&self) -> usize {
        self.halves[0].edges.len() + self.halves[1].edges.len()
    }
}

/// A graph's nodes indexed and their inputs resolved: what importing them needs before any
/// release is asked.
pub(super) struct Prepared<'a> {
    names: Names<'a>,
    /// Each node's op, numbered (see [`Indexed::ops`]).
    op_ids: Vec<u32>,
    /// Each op's kind (see [`kind_of`]).
    op_kinds: Vec<u8>,
    index: NameIndex,
    /// The nodes with no inputs, in order.
    inputless: Vec<u32>,
    /// The nodes the inputs looked up name, in order: each input that does not name the node
    /// just before.
    sources: Vec<u32>,
    /// The edges, made when first needed (an import refused at its first node never needs
    /// them, and that node has no inputs).
    edges: OnceCell<Edges<'a>>,
    /// Where the edges are split to be made on two threads, if they are: the first node of
    /// the second half, and how many inputs before it were looked up.
    halves: Option<(usize, usize)>,
    /// Nodes with no pending input, smallest index first (TensorFlow's `std::set`).
    pub(super) ready: BinaryHeap<Reverse<u32>>,
    /// The nodes each node feeds, `targets[starts[n]..starts[n + 1]]`, made when first
    /// needed (an import refused at its first nodes never needs them).
    outputs: OnceCell<(Vec<u32>, Vec<u32>)>,
    /// Buffers for the imports, reused from one release to the next.
    pub(super) scratch: RefCell<Scratch>,
}

impl<'a> Prepared<'a> {
    /// The index and edges of decoded nodes.
    pub(super) fn new(nodes: &'a [NodeDef]) -> Result<Self, Failure> {
        let mut indexing = Indexing::new(nodes.len(), false, Names::Decoded(nodes));
        let mut batch = Batch::with_capacity(HANDOFF.min(nodes.len()));
        for chunk in nodes.chunks(HANDOFF) {
            for node in chunk {
                batch.push(
                    &node.name,
                    &node.op,
                    node.controls_last(),
                    node.input.iter().map(String::as_bytes),
                );
            }
            indexing.add(&mut batch);
            batch.clear();
        }
        indexing.finish().prepared
    }

    pub(super) fn len(&self) -> usize {
        self.names.len()
    }

    /// Each node's inputs as (source node, slot or [`CONTROL`]).
    fn edges(&self) -> &Edges<'a> {
        self.edges.get_or_init(|| {
            let (names, len) = (&self.names, self.len());
            let (mid, sources_before) = self.halves.unwrap_or((len, self.sources.len()));
            // The second half starts after the name of the node before it and the inputs
            // looked up before it.
            let (first, second) = self.sources.split_at(sources_before);
            // The room for both halves is made here, on the calling thread: memory that a
            // thread of its own allocates, the allocator may give back and take again on each
            // call.
            let room_a = HalfEdges::room(mid, first);
            let room_b = HalfEdges::room(len - mid, second);
            let (first, second) = beside(
                || edges_of(names, 0..mid, first, room_a),
                (mid < len).then_some(|| edges_of(names, mid..len, second, room_b)),
            );
            Edges {
                mid,
                halves: [first, second.unwrap_or_default()],
            }
        })
    }

    /// Node `n`'s inputs as (source node, slot or [`CONTROL`]).
    fn inputs(&self, n: usize) -> &[(u32, u32)] {
        if self.edges.get().is_none() && self.inputless.binary_search(&(n as u32)).is_ok() {
            return &[];
        }
        self.edges().of(n)
    }

    /// How many inputs node `n` waits for before it is made.
    pub(super) fn pending(&self, n: usize) -> u32 {
        let inputs = self.inputs(n);
        if self.kind(n) == MERGE {
            // A Merge fed by a NextIteration waits only for its control inputs and one other
            // input.
            let back = inputs
                .iter()
                .any(|&(src, slot)| slot != CONTROL && self.kind(src as usize) == NEXT_ITERATION);
            if back {
                return inputs.iter().filter(|&&(_, slot)| slot == CONTROL).count() as u32 + 1;
            }
        }
        inputs.len() as u32
    }

    /// Node `n`'s op's kind.
    fn kind(&self, n: usize) -> u8 {
        self.op_kinds[self.op_ids[n] as usize]
    }

    /// Node `n`'s name.
    pub(super) fn name(&self, n: usize) -> &'a str {
        match self.edges.get() {
            Some(edges) => edges.name(n),
            None => self.names.get(n),
        }
    }

    /// Whether a node is named `name`.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.index
            .get(name.as_bytes(), |i| self.names.bytes(i))
            .is_some()
    }

    /// Node `n`'s data inputs, as (source node, output slot or [`BIG_SLOT`]).
    pub(super) fn data_inputs(&self, n: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.inputs(n)
            .iter()
            .take_while(|&&(_, slot)| slot != CONTROL)
            .map(|&(src, slot)| (src as usize, slot))
    }

    /// The nodes node `n` feeds, once per edge.
    pub(super) fn outputs(&self, n: usize) -> &[u32] {
        let (starts, targets) = self.outputs.get_or_init(|| {
            let edges = self.edges();
            // Counted by source, then filled in node order.
            let mut starts = vec![0u32; self.len() + 1];
            for &(src, _) in edges.all() {
                starts[src as usize + 1] += 1;
            }
            for k in 0..self.len() {
                starts[k + 1] += starts[k];
            }
            let mut targets = vec![0u32; edges.len()];
            for dst in 0..self.len() {
                for &(src, _) in self.inputs(dst) {
                    targets[starts[src as usize] as usize] = dst as u32;
                    starts[src as usize] += 1;
                }
            }
            // Each start moved to the next one's: move them back.
            for k in (1..=self.len()).rev() {
                starts[k] = starts[k - 1];
            }
            starts[0] = 0;
            (starts, targets)
        });
        &targets[starts[n] as usize..starts[n + 1] as usize]
    }

    /// Whether node `n` is a `NextIteration`.
    pub(super) fn is_next_iteration(&self, n: usize) -> bool {
        self.kind(n) == NEXT_ITERATION
    }

    /// Whether node `n` is a Merge.
    pub(super) fn is_merge(&self, n: usize) -> bool {
        self.kind(n) == MERGE
    }
}

/// The edges and names of `nodes`, whose inputs not naming the node before them were
/// looked up as `sources`, in `edges` (empty, with room made).
fn edges_of<'a>(
    names: &Names<'a>,
    nodes: std::ops::Range<usize>,
    sources: &[u32],
    mut edges: HalfEdges<'a>,
) -> HalfEdges<'a> {
    let mut sources = sources.iter();
    let mut previous: &[u8] = match nodes.start.checked_sub(1) {
        Some(before) => names.bytes(before),
        None => &[],
    };
    for n in nodes {
        edges.starts.push(edges.edges.len() as u32);
        let name = names.inputs_and_name(n, |raw| {
            let (source, slot) = parse_input(raw);
            let source = if names_previous(source, previous) {
                n as u32 - 1
            } else {
                // Every input not naming the node before was looked up, in order.
                sources.next().copied().unwrap_or_default()
            };
            edges.edges.push((source, slot));
        });
        edges
            .names
            .push(std::str::from_utf8(name).unwrap_or_default());
        previous = name;
    }
    edges.starts.push(edges.edges.len() as u32);
    edges
}

pub(super) fn is_merge(op: &str) -> bool {
    op == "Merge" || op == "RefMerge" || op == "_XlaMerge"
}

/// `ParseTensorName`: `name:3` is output 3 of `name`, `name` output 0, `^name` a control input.
pub(super) fn tensor_id(input: &str) -> (&str, usize) {
    let input = input.strip_prefix('^').unwrap_or(input);
    let (name, slot) = tensor_id_bytes(input.as_bytes());
    (&input[..name.len()], slot)
}

/// [`tensor_id`] of an input's bytes.
fn tensor_id_bytes(input: &[u8]) -> (&[u8], usize) {
    let input = input.strip_prefix(b"^").unwrap_or(input);
    let digits = input
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let colon = input.len() - digits;
    if digits > 0
        && colon > 0
        && input[colon - 1] == b':'
        && let Some(slot) = parse_slot(&input[colon..])
    {
        return (&input[..colon - 1], slot);
    }
    (input, 0)
}

/// Decimal digits as a number, `None` past `usize::MAX`.
fn parse_slot(digits: &[u8]) -> Option<usize> {
    digits.iter().try_fold(0usize, |n, &d| {
        n.checked_mul(10)?.checked_add(usize::from(d - b'0'))
    })
}

/// `IsValidNodeName` as an import checks it (internal ops not allowed): segments joined by
/// `>`, each `[A-Za-z0-9.][A-Za-z0-9_./-]*`.
pub(super) fn valid_node_name(name: &str) -> bool {
    // Most names have one segment: a first character of `[A-Za-z0-9.]`, then only characters
    // of `[A-Za-z0-9_./-]`. A name of one segment is checked a byte at a time without
    // branches; a name with `>` in it goes through the pattern a segment at a time.
    const BODY: u8 = 1;
    const START: u8 = 2;
    const CLASSES: [u8; 256] = {
        let mut classes = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            if c.is_ascii_alphanumeric() || c == b'.' {
                classes[b] = BODY | START;
            } else if matches!(c, b'_' | b'-' | b'/') {
                classes[b] = BODY;
            }
            b += 1;
        }
        classes
    };
    let bytes = name.as_bytes();
    if let [first, rest @ ..] = bytes
        && CLASSES[usize::from(*first)] & START != 0
        && rest
            .iter()
            .fold(BODY, |all, &b| all & CLASSES[usize::from(b)])
            == BODY
    {
        return true;
    }
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
        fn node_names_as_the_pattern_says(name in "[a-cA-Z0-9.>_/:é\\- ]{0,8}") {
            prop_assert_eq!(valid_node_name(&name), valid_by_pattern(&name));
        }

        #[test]
        fn the_index_finds_each_name_and_the_first_repeat(
            names in proptest::collection::vec("[ab]{0,4}", 0..40),
            nodes in 0usize..100_000,
        ) {
            // However many nodes the index was made for.
            let (index, repeated) = index_of(&names, nodes);
            let mut first = HashMap::new();
            let mut first_repeat = None;
            for (i, name) in names.iter().enumerate() {
                if first.insert(name.as_str(), i).is_some() && first_repeat.is_none() {
                    first_repeat = Some(i);
                }
            }
            prop_assert_eq!(repeated, first_repeat);
            if repeated.is_none() {
                for name in ["", "a", "ab", "ba", "bbbb", "abc"] {
                    prop_assert_eq!(
                        index.get(name.as_bytes(), |n| names[n].as_bytes()),
                        first.get(name).copied()
                    );
                }
            }
        }
    }

    /// The index of `names`, made for about `nodes` nodes.
    fn index_of(names: &[String], nodes: usize) -> (NameIndex, Option<usize>) {
        let mut parts = vec![Vec::new(); 1 << TOP_BITS];
        for (i, name) in names.iter().enumerate() {
            let hash = hash_bytes(name.as_bytes());
            parts[NameIndex::group(hash, TOP_BITS)].push(hash >> 32 << 32 | i as u64);
        }
        NameIndex::build(
            parts,
            NameIndex::bits_for(nodes),
            nodes.is_multiple_of(2),
            |n| names[n].as_bytes(),
        )
    }

    /// A Prepared's edges and pending counts, for comparing two of them.
    type Shape<'a> = (
        Vec<&'a str>,
        Vec<Vec<(usize, u32)>>,
        Vec<Vec<u32>>,
        Vec<u32>,
    );

    fn shape<'a>(p: &Prepared<'a>) -> Shape<'a> {
        (
            p.names.to_vec(),
            (0..p.len()).map(|n| p.data_inputs(n).collect()).collect(),
            (0..p.len()).map(|n| p.outputs(n).to_vec()).collect(),
            (0..p.len()).map(|n| p.pending(n)).collect(),
        )
    }

    fn graph_of(nodes: &[(String, String, Vec<String>)]) -> GraphDef {
        GraphDef {
            node: nodes
                .iter()
                .map(|(name, op, input)| NodeDef {
                    name: name.clone(),
                    op: op.clone(),
                    input: input.clone(),
                    ..NodeDef::default()
                })
                .collect(),
            ..GraphDef::default()
        }
    }

    /// How many nodes a GraphDef's bytes hold, as `judge` counts them.
    fn node_count(bytes: &[u8]) -> usize {
        crate::artifact::Kind::detect_counting_nodes(bytes).map_or(0, |(_, nodes)| nodes)
    }

    /// A top-level field: its number, wire type and payload.
    fn field(number: u32, wire: u32, payload: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::new();
        prost::encoding::encode_varint(u64::from(number << 3 | wire), &mut bytes);
        match wire {
            0 => bytes.push(payload.len() as u8 & 0x7f),
            1 => bytes.extend_from_slice(&[0; 8]),
            5 => bytes.extend_from_slice(&[0; 4]),
            _ => {
                prost::encoding::encode_varint(payload.len() as u64, &mut bytes);
                bytes.extend_from_slice(payload);
            }
        }
        bytes
    }

    proptest! {
        /// In a graph every import indexes (unique names, inputs naming nodes before, after,
        /// itself or the node just before, data inputs then control inputs), each data input's
        /// edge comes from the node it names, whatever batch either is in, read in place on
        /// one thread or two, or decoded.
        #[test]
        fn edges_come_from_the_nodes_the_inputs_name(
            inputs in proptest::collection::vec(
                proptest::collection::vec((0usize..40, any::<bool>(), 0usize..3), 0..4),
                1..40,
            ),
        ) {
            let count = inputs.len();
            let nodes: Vec<(String, String, Vec<String>)> = inputs
                .iter()
                .enumerate()
                .map(|(n, inputs)| {
                    let mut inputs: Vec<(usize, bool, usize)> = inputs
                        .iter()
                        .map(|&(k, control, slot)| {
                            // Half of the inputs name the node just before, when there is one.
                            let source = if k % 2 == 0 && n > 0 { n - 1 } else { k % count };
                            (source, control, slot)
                        })
                        .collect();
                    inputs.sort_by_key(|&(_, control, _)| control);
                    let inputs = inputs
                        .into_iter()
                        .map(|(source, control, slot)| match (control, slot) {
                            (true, _) => format!("^n{source}"),
                            (false, 0) => format!("n{source}"),
                            (false, slot) => format!("n{source}:{slot}"),
                        })
                        .collect();
                    (format!("n{n}"), "Op".to_string(), inputs)
                })
                .collect();
            let graph = graph_of(&nodes);
            let bytes = graph.encode_to_vec();
            let views = GraphViews::read(&bytes, count).expect("plain bytes");
            let beside = GraphViews::read_on_two_threads(&bytes).expect("plain bytes");
            let decoded = Prepared::new(&graph.node);
            for prepared in [&views.prepared, &beside.prepared, &decoded] {
                let Ok(prepared) = prepared else {
                    return Err(TestCaseError::fail("refused"));
                };
                for (n, node) in graph.node.iter().enumerate() {
                    let named: Vec<(&str, usize)> = node
                        .input
                        .iter()
                        .filter(|input| !input.starts_with('^'))
                        .map(|input| tensor_id(input))
                        .collect();
                    let found: Vec<(&str, usize)> = prepared
                        .data_inputs(n)
                        .map(|(src, slot)| (prepared.name(src), slot as usize))
                        .collect();
                    prop_assert_eq!(found, named);
                }
            }
        }

        /// A file read on two threads, before anything tells its kind, is read only if it is
        /// a GraphDef as `Kind::detect` tells it.
        #[test]
        fn read_before_its_kind_is_told_only_if_a_graph_def(
            fields in proptest::collection::vec((1u32..7, prop_oneof![Just(0u32), Just(1), Just(2), Just(5)], 0usize..3), 0..6),
        ) {
            let node = NodeDef { name: "a".into(), op: "Op".into(), ..NodeDef::default() }.encode_to_vec();
            let payloads: [&[u8]; 3] = [&[], &node, &[0x08, 0x01]];
            let mut bytes = field(1, 2, &node);
            for (number, wire, payload) in fields {
                bytes.extend(field(number, wire, payloads[payload]));
            }
            if GraphViews::read_on_two_threads(&bytes).is_some() {
                prop_assert_eq!(
                    crate::artifact::Kind::detect(&bytes).ok(),
                    Some(crate::artifact::Kind::GraphDef)
                );
            }
        }

        /// Word-at-a-time equality is byte equality, and equal bytes hash alike.
        #[test]
        fn same_bytes_is_equality(a in proptest::collection::vec(0u8..4, 0..80), flip in any::<usize>()) {
            prop_assert!(same_bytes(&a, &a.clone()));
            prop_assert_eq!(hash_bytes(&a), hash_bytes(&a.clone()));
            if !a.is_empty() {
                let mut b = a.clone();
                b[flip % a.len()] ^= 1;
                prop_assert!(!same_bytes(&a, &b));
                prop_assert!(!same_bytes(&a, &a[..a.len() - 1]));
            }
        }

        /// The first refusal, read in place on one thread or two, or decoded, is the one a
        /// plain model of `BuildNodeIndex` then `InitFromEdges` finds: node after node, each
        /// node's name checked, then looked up among the names before it, then its op and the
        /// order of its inputs; then every input looked up among all the names.
        #[test]
        fn the_first_refusal_is_the_one_taking_nodes_in_order_finds(
            nodes in proptest::collection::vec(
                (
                    prop_oneof![4 => "[a-e]", 1 => "[a-e]{2}", 1 => Just("-x".to_string())],
                    prop_oneof![8 => Just("Op"), 1 => Just("")],
                    proptest::collection::vec("\\^?[a-f](:[0-9])?", 0..3),
                ),
                1..14,
            ),
        ) {
            let nodes: Vec<(String, String, Vec<String>)> = nodes
                .into_iter()
                .map(|(name, op, input)| (name, op.to_string(), input))
                .collect();
            let mut seen = HashSet::new();
            let mut expected = None;
            for (name, op, inputs) in &nodes {
                expected = if !valid_by_pattern(name) {
                    Some(format!("Node '{name}': Node name contains invalid characters"))
                } else if !seen.insert(name.as_str()) {
                    Some(format!("Node '{name}' is not unique"))
                } else if op.is_empty() {
                    Some(format!("Node '{name}' does not specify an operation"))
                } else if !controls_last(inputs.iter().map(String::as_str)) {
                    Some(format!(
                        "Node '{name}': Control dependencies must come after regular dependencies"
                    ))
                } else {
                    None
                };
                if expected.is_some() {
                    break;
                }
            }
            if expected.is_none() {
                expected = nodes.iter().find_map(|(name, _, inputs)| {
                    inputs
                        .iter()
                        .find(|input| !seen.contains(tensor_id(input).0))
                        .map(|input| format!("Node '{name}': Unknown input node '{input}'"))
                });
            }
            let graph = graph_of(&nodes);
            let bytes = graph.encode_to_vec();
            let views = GraphViews::read(&bytes, nodes.len()).expect("plain bytes");
            let beside = GraphViews::read_on_two_threads(&bytes).expect("plain bytes");
            let decoded = Prepared::new(&graph.node);
            for prepared in [&views.prepared, &beside.prepared, &decoded] {
                prop_assert_eq!(
                    prepared.as_ref().err().map(|refusal| refusal.message.as_str()),
                    expected.as_deref()
                );
            }
        }

        /// The node index read in place equals the one of the decoded nodes, and each node's
        /// outputs are the nodes that name it as an input, once per edge.
        #[test]
        fn indexes_read_in_place_and_decoded_agree(
            nodes in proptest::collection::vec(
                (
                    "[ab]{1,2}",
                    prop_oneof![Just("Op"), Just("Merge"), Just("NextIteration"), Just("")],
                    proptest::collection::vec("\\^?[abc]{1,2}(:[0-9]{1,2})?", 0..3),
                ),
                0..12,
            ),
            undercount in 1usize..4,
        ) {
            let nodes: Vec<(String, String, Vec<String>)> = nodes
                .into_iter()
                .map(|(name, op, input)| (name, op.to_string(), input))
                .collect();
            let graph = graph_of(&nodes);
            let bytes = graph.encode_to_vec();
            // A count below the real one (the tables then grow) reads the same.
            let views = GraphViews::read(&bytes, node_count(&bytes) / undercount)
                .expect("plain bytes");
            // Read on a second thread, the index is the same (a graph of no nodes is left
            // to the caller).
            match GraphViews::read_on_two_threads(&bytes) {
                Some(beside) => match (&views.prepared, &beside.prepared) {
                    (Ok(a), Ok(b)) => prop_assert_eq!(shape(a), shape(b)),
                    (Err(a), Err(b)) => prop_assert_eq!(&a.message, &b.message),
                    _ => prop_assert!(false, "one thread refused, two did not"),
                },
                None => prop_assert!(nodes.is_empty()),
            }
            let decoded = Prepared::new(&graph.node);
            match (&views.prepared, &decoded) {
                (Ok(a), Ok(b)) => {
                    prop_assert_eq!(shape(a), shape(b));
                    for dst in 0..b.len() {
                        for (src, _) in b.data_inputs(dst) {
                            prop_assert!(b.outputs(src).contains(&(dst as u32)));
                        }
                    }
                    let edges: usize = (0..b.len()).map(|n| b.outputs(n).len()).sum();
                    let inputs: usize = graph.node.iter().map(|n| n.input.len()).sum();
                    prop_assert_eq!(edges, inputs);
                }
                (Err(a), Err(b)) => prop_assert_eq!(&a.message, &b.message),
                _ => prop_assert!(false, "one reading refused, the other did not"),
            }
        }
    }

    #[test]
    fn inputs_that_name_later_nodes_and_large_slots() {
        let nodes = [
            (
                "b".to_string(),
                "Op".to_string(),
                vec!["a:99999999999".to_string()],
            ),
            ("a".to_string(), "Op".to_string(), vec![]),
        ];
        let graph = graph_of(&nodes);
        let prepared = Prepared::new(&graph.node).expect("indexed");
        assert_eq!(prepared.data_inputs(0).collect::<Vec<_>>(), [(1, BIG_SLOT)]);
        assert_eq!(prepared.outputs(1), [0]);
        assert_eq!([prepared.pending(0), prepared.pending(1)], [1, 0]);
        let unknown = graph_of(&[("b".into(), "Op".into(), vec!["c".into()])]);
        let refusal = Prepared::new(&unknown.node).err().expect("refused");
        assert_eq!(refusal.message, "Node 'b': Unknown input node 'c'");
    }

    #[test]
    fn the_index_of_more_names_than_it_was_made_for() {
        let names: Vec<String> = (0..5000).map(|i| format!("n{i}")).collect();
        for made_for in [0, 100, 5000, 1 << 20] {
            let (index, repeated) = index_of(&names, made_for);
            assert_eq!(repeated, None);
            for (i, name) in names.iter().enumerate() {
                assert_eq!(index.get(name.as_bytes(), |n| names[n].as_bytes()), Some(i));
            }
            assert_eq!(index.get(b"n5000", |n| names[n].as_bytes()), None);
        }
        // One name a thousand times: the second is the first repeat.
        let same = vec!["x".to_string(); 1000];
        assert_eq!(index_of(&same, 1000).1, Some(1));
    }

    #[test]
    fn repeats_among_names_whose_hashes_meet() {
        let names = ["a", "b", "a", "c", "b"];
        let entry = |node: u64| 7 << 32 | node;
        let name_of = |n: usize| names[n].as_bytes();
        assert_eq!(first_repeat(&[entry(0), entry(1)], name_of), None);
        assert_eq!(first_repeat(&[entry(0), entry(2)], name_of), Some(2));
        assert_eq!(first_repeat(&[entry(0), entry(1), entry(3)], name_of), None);
        let all: Vec<u64> = (0..5).map(entry).collect();
        assert_eq!(first_repeat(&all, name_of), Some(2));
        assert_eq!(
            first_repeat(&[entry(1), entry(3), entry(4)], name_of),
            Some(4)
        );
        // In node order, a group of a few: the first whose hash and name meet an earlier one's.
        let mut few: Vec<u64> = [0, 1, 3, 4, 2].into_iter().map(entry).collect();
        assert_eq!(first_repeat_in_group(&mut few, name_of), Some(4));
        let mut few: Vec<u64> = [0, 1, 3].into_iter().map(entry).collect();
        assert_eq!(first_repeat_in_group(&mut few, name_of), None);
        // A large group, out of order, its hashes meeting in threes: sorted, and node 30
        // repeats node 0's name.
        let many: Vec<String> = (0..40).map(|n| format!("n{}", n % 30)).collect();
        let mut group: Vec<u64> = (0..40u64).rev().map(|n| (n % 3) << 32 | n).collect();
        assert_eq!(
            first_repeat_in_group(&mut group, |n| many[n].as_bytes()),
            Some(30)
        );
        assert!(group.is_sorted());
    }

    #[test]
    fn keys_are_read_as_prost_reads_them() {
        // A key over 32 bits, whose field number would still fit in 32 bits.
        let key = [0xf8, 0xfa, 0x9b, 0x8b, 0x79, 0x00];
        assert!(RawFields::new(&key).read().is_err());
        assert!(NodeDef::decode(&key[..]).is_err());
        // Field number 0, wire types 6 and 7, a truncated length: refused; a group is left
        // to prost.
        for bytes in [
            &[0x02, 0x00][..],
            &[0x0e],
            &[0x0f],
            &[0x0a, 0x05, 0x00],
            &[0x0b],
        ] {
            assert!(RawFields::new(bytes).read().is_err(), "{bytes:?}");
        }
        assert_eq!(
            RawFields::new(&[0x0a, 0x01, 0x61]).read(),
            Ok((1, 2, &b"a"[..], &[0x0a, 0x01, 0x61][..]))
        );
    }

    /// An attr value nested `depth` times: `func` attrs inside `func` attrs.
    fn nested(depth: usize) -> AttrValue {
        use crate::schema::NameAttrList;
        use crate::schema::attr_value::Value;
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

    /// prost's recursion limit counts the messages around an attr value: a value that decodes
    /// on its own may not decode inside a node of a graph, and the in-place reading must
    /// refuse it as the whole decode does.
    #[test]
    fn attr_values_are_decoded_at_their_depth_in_the_graph() {
        let mut both = 0;
        for depth in 25..40 {
            let value = nested(depth);
            let graph = GraphDef {
                node: vec![NodeDef {
                    name: "n".into(),
                    op: "Op".into(),
                    attr: [("f".to_string(), value.clone())].into(),
                    ..NodeDef::default()
                }],
                ..GraphDef::default()
            };
            let bytes = graph.encode_to_vec();
            let whole = GraphDef::decode(bytes.as_slice()).is_ok();
            assert_eq!(
                GraphViews::read(&bytes, node_count(&bytes)).is_some(),
                whole,
                "depth {depth}"
            );
            both += usize::from(!whole && AttrValue::decode(&*value.encode_to_vec()).is_ok());
        }
        // Some depths decode alone but not in the graph.
        assert!(both > 0);
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
