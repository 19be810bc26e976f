//! The node index: which node has each name, and what `BuildNodeIndex` checks of a node before
//! any node is imported (`tensorflow/core/common_runtime/graph_constructor.cc`).
//!
//! TensorFlow indexes every node, and looks up every input, before it looks at any node; a
//! repeated name, an invalid one or an unknown input refuses the whole graph in every release
//! alike. The index is made of hashbrown [`HashTable`]s of node numbers, hashed by name with
//! foldhash; it keeps no copy of the names, which stay in the file's bytes.
//!
//! A table filled one node at a time, as the nodes are read, would wait for memory at every
//! node: a million names land all over ten megabytes. So the names' hashes are first collected,
//! in node order, into 256 parts by eight bits of the hash; then each part's table is made at
//! once from its share (a few thousand names, which stay in the cache while they go in), asked
//! for the names wanted in that part, and dropped, its memory taken again by the next part's.
//! Within a part the nodes are still in node order, so the first node whose name came before
//! is found as `BuildNodeIndex` finds it.
//!
//! A name is kept as 32 bits of its hash beside its node's number, eight bytes: bits 16 to 23
//! choose its part, and a part's table works on the rest (its probing looks at the lowest and
//! the highest bits of the hash it is given). Names are read again from the file, a trip to
//! memory each, only when those 32 bits of two hashes meet.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

/// How many parts the names are made into.
const PARTS: usize = 64;

/// The 32 bits of a name's hash that are kept.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Kept(u32);

impl Kept {
    fn part(self) -> usize {
        (self.0 >> 16) as usize % PARTS
    }

    /// The hash a part's table is given: the kept bits, in its lowest and its highest bits.
    fn for_table(self) -> u64 {
        u64::from(self.0) << 32 | u64::from(self.0)
    }
}

/// The names of the nodes read so far, by part: each a kept hash and its node.
pub(super) struct Names {
    parts: Vec<Vec<(Kept, u32)>>,
    /// Seeded per process: a graph cannot be made to collide its names on purpose.
    hasher: RandomState,
}

/// What the index said: the first node whose name a node before it has, and the node each
/// wanted name names.
pub(super) struct Found {
    pub(super) repeated: Option<u32>,
    pub(super) nodes: Vec<Option<u32>>,
}

impl Names {
    /// Room for about `nodes` names.
    pub(super) fn with_capacity(nodes: usize) -> Self {
        let room = nodes / PARTS + nodes / PARTS / 8;
        Names {
            parts: (0..PARTS).map(|_| Vec::with_capacity(room)).collect(),
            hasher: RandomState::default(),
        }
    }

    fn kept(&self, name: &[u8]) -> Kept {
        Kept((self.hasher.hash_one(name) >> 32) as u32)
    }

    /// Adds node `node`, named `name`.
    pub(super) fn push(&mut self, node: u32, name: &[u8]) {
        let kept = self.kept(name);
        self.parts[kept.part()].push((kept, node));
    }

    /// Indexes the names added, where `name_of` gives a node's name, and finds the node each
    /// of `wanted` names (`None` for a name no node has).
    pub(super) fn find<'n>(self, name_of: impl Fn(u32) -> &'n [u8], wanted: &[&[u8]]) -> Found {
        let mut wanted_in: Vec<Vec<(Kept, usize)>> = vec![Vec::new(); PARTS];
        for (at, name) in wanted.iter().enumerate() {
            let kept = self.kept(name);
            wanted_in[kept.part()].push((kept, at));
        }
        let mut found = Found {
            repeated: None,
            nodes: vec![None; wanted.len()],
        };
        let rehash = |&(kept, _): &(Kept, u32)| kept.for_table();
        let mut table: HashTable<(Kept, u32)> = HashTable::new();
        for (names, wanted_here) in self.parts.into_iter().zip(wanted_in) {
            table.clear();
            table.reserve(names.len(), rehash);
            for (kept, node) in names {
                let same = |&(other_kept, other): &(Kept, u32)| {
                    other_kept == kept && name_of(other) == name_of(node)
                };
                match table.entry(kept.for_table(), same, rehash) {
                    Entry::Occupied(_) => {
                        found.repeated = Some(found.repeated.map_or(node, |first| first.min(node)));
                    }
                    Entry::Vacant(vacant) => {
                        vacant.insert((kept, node));
                    }
                }
            }
            for (kept, at) in wanted_here {
                let same = |&(other_kept, node): &(Kept, u32)| {
                    other_kept == kept && name_of(node) == wanted[at]
                };
                found.nodes[at] = table.find(kept.for_table(), same).map(|&(_, node)| node);
            }
        }
        found
    }
}

/// The names a graph's inputs look up, each once: the inputs that do not name the node just
/// before their own mostly name a few nodes (a model's weights, a loop's counter), so a
/// million of them are a few names to find.
#[derive(Default)]
pub(super) struct Wanted<'a> {
    names: Vec<&'a [u8]>,
    table: HashTable<u32>,
    hasher: RandomState,
}

impl<'a> Wanted<'a> {
    /// The number of `name` among the names wanted, added if new.
    pub(super) fn add(&mut self, name: &'a [u8]) -> u32 {
        let hash = self.hasher.hash_one(name);
        let names = &self.names;
        let entry = self.table.entry(
            hash,
            |&at| names[at as usize] == name,
            |&at| self.hasher.hash_one(names[at as usize]),
        );
        match entry {
            Entry::Occupied(occupied) => *occupied.get(),
            Entry::Vacant(vacant) => {
                // Fewer names than the graph's bytes, which are below 2 GiB.
                let at = self.names.len() as u32;
                vacant.insert(at);
                self.names.push(name);
                at
            }
        }
    }

    /// The names wanted, by number.
    pub(super) fn names(&self) -> &[&'a [u8]] {
        &self.names
    }
}

/// `IsValidNodeName` as an import checks it (internal ops not allowed): segments joined by
/// `>`, each `[A-Za-z0-9.][A-Za-z0-9_./-]*`.
pub(super) fn valid_node_name(name: &str) -> bool {
    let mut segment_start = true;
    for b in name.bytes() {
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

/// `ParseTensorName`: `name:3` is output 3 of `name`, `name` output 0, `^name` a control input
/// (of output 0). A slot too large for a `usize` leaves the whole input as the name.
pub(super) fn tensor_id(input: &[u8]) -> (&[u8], usize) {
    let input = input.strip_prefix(b"^").unwrap_or(input);
    let digits = input
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let colon = input.len() - digits;
    if digits > 0 && colon > 0 && input[colon - 1] == b':' {
        let slot = input[colon..].iter().try_fold(0usize, |n, &d| {
            n.checked_mul(10)?.checked_add(usize::from(d - b'0'))
        });
        if let Some(slot) = slot {
            return (&input[..colon - 1], slot);
        }
    }
    (input, 0)
}

/// Whether `input` names the node just before its own, named `previous` (empty for the
/// first node): TensorFlow writes most graphs so, and such an input needs no index. No node is
/// named "" (the index refuses the name), so an input naming "" is looked up.
pub(super) fn names_previous(input: &[u8], previous: &str) -> bool {
    let previous = previous.as_bytes();
    // A name has no `:` or `^` in it: an input that is the name is its output 0.
    !previous.is_empty() && (input == previous || tensor_id(input).0 == previous)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn tensor_names() {
        let id = |input: &str| {
            let (name, slot) = tensor_id(input.as_bytes());
            (std::str::from_utf8(name).unwrap().to_string(), slot)
        };
        assert_eq!(id("a"), ("a".into(), 0));
        assert_eq!(id("a:3"), ("a".into(), 3));
        assert_eq!(id("^a"), ("a".into(), 0));
        assert_eq!(id("a:b:12"), ("a:b".into(), 12));
        assert_eq!(id("a:"), ("a:".into(), 0));
        assert_eq!(id("a:1x"), ("a:1x".into(), 0));
        assert_eq!(id(":5"), ("".into(), 5));
        assert_eq!(
            id("a:99999999999999999999999"),
            ("a:99999999999999999999999".into(), 0)
        );
    }

    #[test]
    fn node_names() {
        for valid in ["a", "A.b/c-d_e", ".x", "0", "a>b", "scope/x>y_1"] {
            assert!(valid_node_name(valid), "{valid}");
        }
        for invalid in [
            "", "_a", "a b", "a>", ">a", "a>>b", "é", "a:0", "-a", "a>_b",
        ] {
            assert!(!valid_node_name(invalid), "{invalid}");
        }
    }

    proptest! {
        /// The index finds each name it was given, and the first repeated one, like a map
        /// filled node by node.
        #[test]
        fn the_index_is_a_map_of_names(
            names in proptest::collection::vec("[ab]{0,4}", 0..60),
            room in 0usize..100,
        ) {
            let mut added = Names::with_capacity(room);
            let mut model = HashMap::new();
            let mut first_repeat = None;
            for (n, name) in names.iter().enumerate() {
                added.push(n as u32, name.as_bytes());
                if model.contains_key(name.as_str()) {
                    first_repeat = first_repeat.or(Some(n as u32));
                } else {
                    model.insert(name.as_str(), n as u32);
                }
            }
            let wanted: Vec<&[u8]> = ["", "a", "ab", "ba", "bbbb", "abc"].map(str::as_bytes).into();
            let found = added.find(|n| names[n as usize].as_bytes(), &wanted);
            prop_assert_eq!(found.repeated, first_repeat);
            for (name, node) in wanted.iter().zip(found.nodes) {
                let name = std::str::from_utf8(name).unwrap();
                prop_assert_eq!(node, model.get(name).copied());
            }
        }
    }

    #[test]
    fn many_names_and_one_name_many_times() {
        let names: Vec<String> = (0..5000).map(|i| format!("n{i}")).collect();
        let mut added = Names::with_capacity(10);
        for (n, name) in names.iter().enumerate() {
            added.push(n as u32, name.as_bytes());
        }
        let mut wanted: Vec<&[u8]> = names.iter().map(String::as_bytes).collect();
        wanted.push(b"n5000");
        let found = added.find(|n| names[n as usize].as_bytes(), &wanted);
        assert_eq!(found.repeated, None);
        let expected: Vec<Option<u32>> = (0..5000).map(Some).chain([None]).collect();
        assert_eq!(found.nodes, expected);
        let mut added = Names::with_capacity(1000);
        for n in 0..1000 {
            added.push(n, b"x");
        }
        assert_eq!(added.find(|_| b"x", &[]).repeated, Some(1));
    }
}
