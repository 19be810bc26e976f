//! Tensor classes: a model's tensors digested into the few distinct kinds they are.
//!
//! A model of millions of tensors, written by a converter, has few distinct ones: its
//! activations and weights are alike, tensor after tensor. Each subgraph keeps each distinct
//! [`TensorFacts`] once ([`TensorClasses`]) and every tensor as a 4-byte index into them, so a
//! large model costs no fresh pages for its tensors, and operators whose tensors are of the
//! same classes are recognised as alike with a comparison of indices.

use crate::error::Error;
use crate::model::load_facts::{COMMON_TYPE_BITS, QuantizationCounts, quantization_ok, size_of};
use crate::model::pool::pool_mark;
use crate::operator::tensor::{ElementType, Quantization};

/// A tensor digested into what signatures need.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TensorFacts {
    pub(crate) element_type: ElementType,
    pub(crate) dims: Dims,
    pub(crate) is_const: bool,
    pub(crate) is_shape_dynamic: bool,
    pub(crate) is_variable: bool,
    pub(crate) quantization: Option<Quantization>,
    pub(crate) is_sparse: bool,
}

/// A tensor's shape: up to [`Dims::INLINE`] dimensions kept inline, more on the heap, so
/// that the tensors of a model (millions, in a large one) cost no allocation each.
#[derive(Clone)]
pub(crate) enum Dims {
    Inline(u8, [i32; Dims::INLINE]),
    Heap(Vec<i32>),
}

/// A tensor's facts packed into 64-bit words, for [`TensorClasses`]: its type, flags and rank
/// with its scale count; its dimensions (up to [`Dims::INLINE`]) two by two; its first
/// scale's bits with its quantized dimension. Equal keys are bitwise-equal facts, which TF's
/// rules judge alike.
pub(crate) type FactsKey = [u64; 5];

impl TensorFacts {
    /// The facts' key; `None` for a shape longer than [`Dims::INLINE`] or more scales than
    /// a `u32` counts (such a tensor is a class of its own).
    #[inline]
    fn key(&self) -> Option<FactsKey> {
        let Dims::Inline(rank, dims) = &self.dims else {
            return None;
        };
        pack_key(self, usize::from(*rank), dims)
    }
}

/// The key of `facts` whose shape is `dims[..rank]` (zeros after it), the dims field of
/// `facts` aside: the hand reader packs a tensor's facts before it has its [`Dims`].
#[inline(always)]
pub(crate) fn pack_key(
    facts: &TensorFacts,
    rank: usize,
    dims: &[i32; Dims::INLINE],
) -> Option<FactsKey> {
    let (count, first, dimension) = match &facts.quantization {
        None => (0, None, 0),
        Some(q) => (
            u32::try_from(q.scale_count).ok()?,
            q.first_scale,
            q.quantized_dimension,
        ),
    };
    let flags = facts.element_type as u32
        | u32::from(facts.is_const) << 8
        | u32::from(facts.is_shape_dynamic) << 9
        | u32::from(facts.is_variable) << 10
        | u32::from(facts.is_sparse) << 11
        | u32::from(facts.quantization.is_some()) << 12
        | u32::from(first.is_some()) << 13
        | (rank as u32) << 16;
    let pair = |low: u32, high: u32| u64::from(low) | u64::from(high) << 32;
    Some([
        pair(flags, count),
        pair(dims[0] as u32, dims[1] as u32),
        pair(dims[2] as u32, dims[3] as u32),
        pair(dims[4] as u32, dims[5] as u32),
        pair(first.map_or(0, f32::to_bits), dimension as u32),
    ])
}

/// The distinct facts of a subgraph's tensors, each tensor an index into them: a model of
/// millions of tensors, written by a converter, has few distinct ones (its activations and
/// weights alike), and 4 bytes per tensor cost few fresh pages, where the facts of every tensor
/// (72 bytes each) would cost most of the model's size again (the bench model with fresh
/// tensors, `benches/benches/tflite_opver.rs`). Tensors of one class have bitwise-equal facts; tensors
/// of different classes may too (a table entry was reused), which only costs a comparison
/// later.
#[derive(Clone, Debug, Default)]
pub(crate) struct TensorClasses {
    pub(crate) classes: Vec<TensorFacts>,
    /// What each class implies for loading.
    loads: Vec<ClassLoad>,
    /// Each class's key (`None`: a class of its own).
    keys: Vec<Option<FactsKey>>,
    /// A two-way set-associative table from a key's hash to the last two classes with that
    /// hash, the most recent first.
    sets: Vec<[u32; 2]>,
}

impl TensorClasses {
    const SETS: usize = 1 << 10;

    /// A key's set: each word times an odd constant of its own, summed (independent
    /// multiplications, not a chain), then mixed once.
    #[inline]
    fn set_of(key: &FactsKey) -> usize {
        const K: [u64; 5] = [
            0x9e37_79b9_7f4a_7c15,
            0xc2b2_ae3d_27d4_eb4f,
            0x1656_67b1_9e37_79f9,
            0x85eb_ca77_c2b2_ae63,
            0x27d4_eb2f_1656_67c5,
        ];
        let mut h = 0u64;
        for (&word, k) in key.iter().zip(K) {
            h = h.wrapping_add(word.wrapping_mul(k));
        }
        h ^= h >> 29;
        (h.wrapping_mul(K[0]) >> 54) as usize % Self::SETS
    }

    /// The class of `facts`, added if new.
    #[inline]
    pub(crate) fn intern(&mut self, facts: TensorFacts) -> Result<u32, Error> {
        let key = facts.key();
        self.intern_key(key, || facts)
    }

    /// What class `class` implies for loading.
    #[inline(always)]
    pub(crate) fn load(&self, class: u32) -> ClassLoad {
        self.loads
            .get(class as usize)
            .copied()
            .unwrap_or(ClassLoad::ODD)
    }

    /// The class whose key is `key`, added with the facts `facts` makes if new: a tensor
    /// whose class is known costs its key, not its facts.
    #[inline(always)]
    pub(crate) fn intern_key(
        &mut self,
        key: Option<FactsKey>,
        facts: impl FnOnce() -> TensorFacts,
    ) -> Result<u32, Error> {
        if self.sets.is_empty() {
            self.sets = vec![[u32::MAX; 2]; Self::SETS];
        }
        let set = key.as_ref().map(Self::set_of);
        if let (Some(key), Some(set)) = (&key, set)
            && let Some(&ways) = self.sets.get(set)
        {
            for found in ways {
                // Every word at once, branch-free (`==` on the arrays called `memcmp`, perf).
                if let Some(then) = self.keys.get(found as usize).and_then(Option::as_ref)
                    && then.iter().zip(key).fold(0, |diff, (a, b)| diff | (a ^ b)) == 0
                {
                    return Ok(found);
                }
            }
        }
        let class = pool_mark(self.classes.len())?;
        let facts = facts();
        self.loads.push(ClassLoad::of(&facts));
        self.classes.push(facts);
        self.keys.push(key);
        if let Some(ways) = set.and_then(|set| self.sets.get_mut(set)) {
            *ways = [class, ways[0]];
        }
        Ok(class)
    }
}

impl Dims {
    /// Ranks up to 6 are inline: TFLite's kernels take at most rank 5 or 6.
    pub(crate) const INLINE: usize = 6;

    pub(crate) fn new(dims: impl Iterator<Item = i32>) -> Self {
        let mut inline = [0; Self::INLINE];
        let mut len = 0;
        let mut dims = dims.peekable();
        while len < Self::INLINE {
            match dims.next() {
                Some(d) => inline[len] = d,
                None => return Self::Inline(len as u8, inline),
            }
            len += 1;
        }
        if dims.peek().is_none() {
            return Self::Inline(len as u8, inline);
        }
        let mut heap = inline.to_vec();
        heap.extend(dims);
        Self::Heap(heap)
    }

    pub(crate) fn as_slice(&self) -> &[i32] {
        match self {
            Self::Inline(len, dims) => &dims[..usize::from(*len)],
            Self::Heap(dims) => dims,
        }
    }
}

impl PartialEq for Dims {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl std::fmt::Debug for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// What a tensor class ([`TensorClasses`]) implies for loading,
/// worked out once per class: a model of millions of tensors has a few classes, and each tensor
/// then costs [`ClassLoad::is_odd_constant`]'s few comparisons instead of [`is_odd`](crate::model::load_facts::is_odd)'s work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClassLoad {
    /// Some runtime may refuse every tensor of the class, whatever its buffer: its type, a
    /// variable or a sparse tensor, its quantization dimension or scales, or its size.
    odd: bool,
    /// The bytes a constant of the class must hold exactly; `None` when they are not checked
    /// (strings).
    constant_bytes: Option<u64>,
}

impl ClassLoad {
    /// A class whose every tensor is kept, to be judged on its own.
    pub(crate) const ODD: ClassLoad = ClassLoad {
        odd: true,
        constant_bytes: None,
    };

    /// The class of tensors whose facts are `facts`.
    pub(crate) fn of(facts: &TensorFacts) -> Self {
        let bits = facts
            .element_type
            .to_schema()
            .and_then(|t| COMMON_TYPE_BITS.get(usize::try_from(t).ok()?))
            .copied();
        let dims = facts.dims.as_slice();
        let quantization_odd = facts.quantization.is_some_and(|q| {
            q.scale_count > 0
                && !quantization_ok(
                    QuantizationCounts {
                        scales: q.scale_count,
                        zero_points: Some(q.scale_count),
                        dimension: q.quantized_dimension,
                    },
                    dims.iter().copied(),
                )
        });
        let size = bits.and_then(|bits| size_of(dims.iter().copied(), bits));
        Self {
            odd: bits.is_none()
                || facts.is_variable
                || facts.is_sparse
                || quantization_odd
                || size.is_none(),
            constant_bytes: size.filter(|_| bits != Some(0)),
        }
    }

    /// [`is_odd`](crate::model::load_facts::is_odd) for a tensor of this class whose buffer index and zero points are fine:
    /// what the class says, and whether its data (`None`: no data vector) is not its size.
    #[inline(always)]
    pub(crate) fn is_odd_constant(self, data: Option<usize>) -> bool {
        self.odd
            || data.is_some_and(|len| self.constant_bytes.is_some_and(|bytes| bytes != len as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;
    use crate::model::builder::ModelBuilder;
    use crate::operator::code::{BuiltinOperator, OpVersion};
    use crate::operator::tensor::TensorSpec;

    #[test]
    fn dims_keep_every_rank() {
        for rank in 0..=9 {
            let dims: Vec<i32> = (1..=rank).collect();
            let kept = Dims::new(dims.iter().copied());
            assert_eq!(kept.as_slice(), dims, "rank {rank}");
            assert_eq!(matches!(kept, Dims::Heap(_)), rank > 6, "rank {rank}");
            assert_eq!(format!("{kept:?}"), format!("{dims:?}"));
        }
        assert_eq!(Dims::Heap(vec![1, 2]), Dims::new([1, 2].into_iter()));
    }

    /// Fresh tensors of a few kinds, as a converter writes them, cost one class of facts per
    /// kind, however many tensors there are; a tensor of rank 7 is a class of its own.
    #[test]
    fn alike_tensors_share_a_class() {
        let mut b = ModelBuilder::new();
        let q = |scale: f32, dims: &[i32]| {
            TensorSpec::new(ElementType::Int8, dims).quantized(Quantization::per_tensor(scale))
        };
        let kinds = [
            q(0.5, &[1, 8, 8, 4]),
            q(0.25, &[1, 8, 8, 4]),
            q(0.5, &[1, 8, 8, 4]).constant(),
            q(0.5, &[4, 4]),
            TensorSpec::new(ElementType::Float32, &[1, 8, 8, 4]),
            TensorSpec::new(ElementType::Int32, &[4]).constant(),
            TensorSpec::new(ElementType::Int8, &[1, 8, 8, 4])
                .quantized(Quantization::per_channel(4, 3)),
        ];
        let add = b.operator_code(BuiltinOperator::ADD, OpVersion::ONE);
        for i in 0..3000 {
            let inputs = [
                b.tensor(&kinds[i % kinds.len()]),
                b.tensor(&kinds[(i / 3) % kinds.len()]),
            ];
            let output = b.tensor(&kinds[0]);
            b.operator(add, &inputs, &[output], None);
        }
        let long = b.tensor(&TensorSpec::new(ElementType::Int8, &[1; 7]));
        let long_too = b.tensor(&TensorSpec::new(ElementType::Int8, &[1; 7]));
        b.operator(add, &[long, long_too], &[long], None);
        let bytes = b.finish();
        let model = Model::from_bytes(&bytes).unwrap();
        let subgraph = &model.subgraphs[0];
        assert_eq!(subgraph.tensors.len(), 9002);
        assert_eq!(subgraph.classes.len(), kinds.len() + 2);
        // Each tensor's class has the facts it was written with.
        for (t, &class) in subgraph.tensors.iter().enumerate().take(9000) {
            let i = t / 3;
            let spec = &kinds[[i % kinds.len(), (i / 3) % kinds.len(), 0][t % 3]];
            let facts = &subgraph.classes[class as usize];
            assert_eq!(facts.element_type, spec.element_type, "{t}");
            assert_eq!(facts.dims.as_slice(), spec.dims, "{t}");
            assert_eq!(facts.is_const, spec.is_const, "{t}");
            assert_eq!(facts.quantization, spec.quantization, "{t}");
        }
    }
}
