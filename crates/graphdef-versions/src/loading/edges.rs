//! A graph's edges, and the order its importer makes its nodes in.
//!
//! The nodes' inputs were looked up when the graph was read (`InitFromEdges`,
//! `tensorflow/core/common_runtime/graph_constructor.cc`, refuses an input that names no
//! node); the edges and the order are made only when an import gets past its first node: most
//! refused imports stop there.
//!
//! The order is the same in every release: TensorFlow makes a node once all its inputs are made
//! (a `Merge` fed by a `NextIteration` once its control inputs and one other input are), and
//! of the nodes ready, the one written first. So it is worked out once per graph, and every
//! release's import walks it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::forms::Flow;
use super::index::{names_previous, tensor_id};

/// An input's source node and output slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Edge {
    pub(super) source: u32,
    /// The source's output feeding the input, below [`BIG_SLOT`] (see [`Edges::slot`]);
    /// [`CONTROL`] for a control input.
    pub(super) slot: u32,
}

/// The slot of a control input (`^name`).
const CONTROL: u32 = u32::MAX;

/// The slot of a data input from output `BIG_SLOT` or above: no node has that many outputs.
const BIG_SLOT: u32 = u32::MAX - 1;

impl Edge {
    pub(super) fn is_control(self) -> bool {
        self.slot == CONTROL
    }
}

/// Every node's inputs, node after node: node `n`'s are `edges[ends[n - 1]..ends[n]]`.
pub(super) struct Edges {
    edges: Vec<Edge>,
    ends: Vec<u32>,
    /// The slots of [`BIG_SLOT`] or more, by input (counted over every node's).
    big_slots: Vec<(usize, usize)>,
    /// Whether every input names a node written before its own.
    sources_before: bool,
}

impl Edges {
    /// Room for the inputs of `nodes` nodes.
    pub(super) fn with_capacity(nodes: usize) -> Edges {
        Edges {
            edges: Vec::with_capacity(nodes),
            ends: Vec::with_capacity(nodes),
            big_slots: Vec::new(),
            sources_before: true,
        }
    }

    /// Adds the next node, `n`, whose inputs are `inputs` (as written), and the node before it
    /// named `previous`; `looked_up` gives the sources of the inputs that do not name the node
    /// before, in order (see [`names_previous`]).
    pub(super) fn add_node<'l>(
        &mut self,
        n: u32,
        inputs: &[&[u8]],
        previous: &str,
        looked_up: &mut impl Iterator<Item = &'l u32>,
    ) {
        for &input in inputs {
            let source = if names_previous(input, previous) {
                n - 1
            } else {
                looked_up.next().copied().unwrap_or(n)
            };
            let slot = if input.starts_with(b"^") {
                CONTROL
            } else {
                let slot = tensor_id(input).1;
                match u32::try_from(slot) {
                    Ok(slot) if slot < BIG_SLOT => slot,
                    _ => {
                        self.big_slots.push((self.edges.len(), slot));
                        BIG_SLOT
                    }
                }
            };
            self.sources_before &= source < n;
            self.edges.push(Edge { source, slot });
        }
        self.ends.push(self.edges.len() as u32);
    }

    /// Whether every input names a node written before its own, as TensorFlow writes graphs.
    pub(super) fn sources_before(&self) -> bool {
        self.sources_before
    }

    /// Where node `n`'s inputs start, counted over every node's.
    fn start_of(&self, n: u32) -> usize {
        (n as usize)
            .checked_sub(1)
            .map_or(0, |before| self.ends[before] as usize)
    }

    /// Node `n`'s inputs, in order.
    pub(super) fn of_node(&self, n: u32) -> &[Edge] {
        &self.edges[self.start_of(n)..self.ends[n as usize] as usize]
    }

    /// Node `n`'s data inputs (they come before its control inputs).
    pub(super) fn data(&self, n: u32) -> impl Iterator<Item = Edge> + '_ {
        self.of_node(n)
            .iter()
            .copied()
            .take_while(|edge| !edge.is_control())
    }

    /// The slot of data input `k` of node `n`, as written.
    pub(super) fn slot(&self, n: u32, k: usize, edge: Edge) -> usize {
        if edge.slot < BIG_SLOT {
            return edge.slot as usize;
        }
        let at = self.start_of(n) + k;
        self.big_slots
            .binary_search_by_key(&at, |&(input, _)| input)
            .map_or(usize::MAX, |found| self.big_slots[found].1)
    }
}

/// The order an import makes the nodes in.
pub(super) struct Order {
    /// The nodes made, in order; the ones left out are in a cycle.
    made: Vec<u32>,
    /// Each node's place in `made`; [`Order::NEVER`] for a node never made.
    place: Vec<u32>,
    /// Whether a node that is not a `Merge` has a back edge: an import refuses it.
    back_edge_into_other_than_merge: bool,
}

impl Order {
    const NEVER: u32 = u32::MAX;

    /// The order of a graph whose nodes have the inputs `edges` and the flows `flow`.
    pub(super) fn of(edges: &Edges, flow: impl Fn(u32) -> Flow) -> Order {
        let nodes = edges.ends.len();
        // The nodes each node feeds, once per edge: counted by source, then filled.
        let mut starts = vec![0u32; nodes + 1];
        for edge in &edges.edges {
            starts[edge.source as usize + 1] += 1;
        }
        for n in 0..nodes {
            starts[n + 1] += starts[n];
        }
        let mut fill = starts.clone();
        let mut targets = vec![0u32; edges.edges.len()];
        for dst in 0..nodes as u32 {
            for edge in edges.of_node(dst) {
                let at = &mut fill[edge.source as usize];
                targets[*at as usize] = dst;
                *at += 1;
            }
        }
        // How many inputs each node waits for: all of them, but a Merge fed by a
        // NextIteration waits only for its control inputs and one other input.
        let mut pending: Vec<u32> = (0..nodes as u32)
            .map(|n| {
                let inputs = edges.of_node(n);
                let fed_back = flow(n) == Flow::Merge
                    && inputs
                        .iter()
                        .any(|edge| !edge.is_control() && flow(edge.source) == Flow::NextIteration);
                if fed_back {
                    inputs.iter().filter(|edge| edge.is_control()).count() as u32 + 1
                } else {
                    inputs.len() as u32
                }
            })
            .collect();
        // TensorFlow's ready set is a `std::set`: the smallest node first.
        let mut ready: BinaryHeap<Reverse<u32>> = (0..nodes as u32)
            .filter(|&n| edges.of_node(n).is_empty())
            .map(Reverse)
            .collect();
        let mut made = Vec::with_capacity(nodes);
        let mut place = vec![Self::NEVER; nodes];
        while let Some(Reverse(n)) = ready.pop() {
            place[n as usize] = made.len() as u32;
            made.push(n);
            for &next in &targets[starts[n as usize] as usize..starts[n as usize + 1] as usize] {
                let loops_back = flow(n) == Flow::NextIteration && flow(next) == Flow::Merge;
                // A Merge fed by more forward inputs than it waits for would count below
                // zero; TensorFlow's CHECK stops the process there, this ignores the extra.
                let waiting = &mut pending[next as usize];
                if !loops_back && *waiting > 0 {
                    *waiting -= 1;
                    if *waiting == 0 {
                        ready.push(Reverse(next));
                    }
                }
            }
        }
        let mut order = Order {
            made,
            place,
            back_edge_into_other_than_merge: false,
        };
        order.back_edge_into_other_than_merge = order.made.iter().any(|&n| {
            flow(n) != Flow::Merge && edges.data(n).any(|edge| order.is_back_edge(edge.source, n))
        });
        order
    }

    /// The nodes made, in order.
    pub(super) fn made(&self) -> &[u32] {
        &self.made
    }

    /// How many nodes are never made: they are in a cycle.
    pub(super) fn never_made(&self) -> usize {
        self.place.len() - self.made.len()
    }

    /// Whether the input of `dst` from `source` is a back edge: `source` is not made yet when
    /// `dst` is (it comes later, or never).
    pub(super) fn is_back_edge(&self, source: u32, dst: u32) -> bool {
        self.place[source as usize] >= self.place[dst as usize]
    }

    /// Whether an import of this graph refuses it for its shape alone, in every release: some
    /// node is never made, or a node that is not a Merge has a back edge.
    pub(super) fn refused_for_its_shape(&self) -> bool {
        self.never_made() > 0 || self.back_edge_into_other_than_merge
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edges of nodes given as lists of (source, is control).
    fn edges(nodes: &[&[(u32, bool)]]) -> Edges {
        let mut edges = Edges::with_capacity(nodes.len());
        for inputs in nodes {
            for &(source, control) in *inputs {
                let slot = if control { CONTROL } else { 0 };
                edges.edges.push(Edge { source, slot });
            }
            edges.ends.push(edges.edges.len() as u32);
        }
        edges
    }

    #[test]
    fn nodes_are_made_once_their_inputs_are_smallest_first() {
        // 0 <- 2, 1 <- 0, 2 (no inputs), 3 <- 1, 2.
        let edges = edges(&[&[(2, false)], &[(0, false)], &[], &[(1, false), (2, true)]]);
        let order = Order::of(&edges, |_| Flow::Other);
        assert_eq!(order.made(), [2, 0, 1, 3]);
        assert!(!order.refused_for_its_shape());
        assert!(!order.is_back_edge(2, 0));
        assert_eq!(edges.data(3).count(), 1);
    }

    #[test]
    fn a_loop_through_a_merge_is_made_and_a_cycle_is_not() {
        // 0 enter, 1 merge <- 0, 3; 2 body <- 1; 3 next iteration <- 2.
        let edges = edges(&[&[], &[(0, false), (3, false)], &[(1, false)], &[(2, false)]]);
        let flow = |n: u32| match n {
            1 => Flow::Merge,
            3 => Flow::NextIteration,
            _ => Flow::Other,
        };
        let order = Order::of(&edges, flow);
        assert_eq!(order.made(), [0, 1, 2, 3]);
        assert!(order.is_back_edge(3, 1));
        assert!(!order.refused_for_its_shape());
        // Without the Merge, the loop is a cycle of three nodes.
        let order = Order::of(&edges, |_| Flow::Other);
        assert_eq!((order.made(), order.never_made()), (&[0][..], 3));
        assert!(order.refused_for_its_shape());
    }

    #[test]
    fn a_node_that_feeds_itself_is_never_made_unless_a_merge() {
        let edges = edges(&[&[], &[(0, false), (1, false)]]);
        let order = Order::of(&edges, |_| Flow::Other);
        assert_eq!((order.made(), order.never_made()), (&[0][..], 1));
        // A Merge waits for one input only (none of them from a NextIteration here: all).
        let order = Order::of(&edges, |n| if n == 1 { Flow::Merge } else { Flow::Other });
        assert_eq!(order.never_made(), 1);
        // A Merge fed back by a NextIteration (2) is made, the back edge kept for later.
        let edges = self::edges(&[&[], &[(0, false), (2, false)], &[(1, false)]]);
        let flow = |n: u32| [Flow::Other, Flow::Merge, Flow::NextIteration][n as usize];
        let order = Order::of(&edges, flow);
        assert_eq!(order.made(), [0, 1, 2]);
        assert!(order.is_back_edge(2, 1) && !order.refused_for_its_shape());
    }
}
