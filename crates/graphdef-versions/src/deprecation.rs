//! Op deprecation by GraphDef version.
//!
//! An op is retired by giving it a deprecation version `M` and an explanation. A graph whose
//! producer is `M` or newer may not use the op any more (TensorFlow refuses it with
//! "Op NAME is not available in GraphDef version N. ..."); an older graph still runs, with a
//! warning that the op "will cease to work in GraphDef version M". Old graphs keep working,
//! new graphs cannot be written with the op. Ops inside the graph's function library count
//! like the graph's own nodes.
//!
//! The wording is TensorFlow's `CheckOpDeprecation` (`tensorflow/core/framework/op_def_util.cc`),
//! including its habit of adding a period after an explanation that already ends with one.

use std::borrow::Cow;
use std::fmt;

use crate::error::{Error, Refusal};
use crate::version::Version;

/// One deprecated op: its name, the GraphDef version it was removed in, and what to use instead.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeprecatedOp {
    /// The op's registered name.
    pub name: Cow<'static, str>,
    /// The first GraphDef version that may not use the op.
    pub version: Version,
    /// What to use instead.
    pub explanation: Cow<'static, str>,
}

const fn op(name: &'static str, version: i32, explanation: &'static str) -> DeprecatedOp {
    DeprecatedOp {
        name: Cow::Borrowed(name),
        version: Version::new(version),
        explanation: Cow::Borrowed(explanation),
    }
}

/// Every op TensorFlow 2.21 registers with a deprecation, sorted by name.
///
/// From the `.Deprecated(version, explanation)` calls of the op registrations in
/// `tensorflow/core/ops/*.cc` (`image_ops.cc`, `array_ops.cc`, `linalg_ops.cc`,
/// `spectral_ops.cc`, `nn_ops.cc`, `data_flow_ops.cc`, `io_ops.cc`, `random_ops.cc`,
/// `stateful_random_ops.cc`, `logging_ops.cc`, `word2vec_ops.cc`...), which become
/// `OpDef.deprecation` in the op registry. `Old` is the test op of
/// `tensorflow/python/framework/test_ops.cc` (`REGISTER_OP("Old").Deprecated(8, "For reasons")`),
/// registered in the pip package too.
pub const TF_DEPRECATED_OPS: &[DeprecatedOp] = &[
    op("AdjustContrast", 2, "Use AdjustContrastv2 instead"),
    op("AudioSummary", 15, "Use AudioSummaryV2."),
    op("BatchCholesky", 13, "Use Cholesky instead."),
    op("BatchCholeskyGrad", 13, "Use CholeskyGrad instead."),
    op("BatchFFT", 15, "Use FFT"),
    op("BatchFFT2D", 15, "Use FFT2D"),
    op("BatchFFT3D", 15, "Use FFT3D"),
    op("BatchIFFT", 15, "Use IFFT"),
    op("BatchIFFT2D", 15, "Use IFFT2D"),
    op("BatchIFFT3D", 15, "Use IFFT3D"),
    op("BatchMatrixBandPart", 14, "Use MatrixBandPart"),
    op(
        "BatchMatrixDeterminant",
        13,
        "Use MatrixDeterminant instead.",
    ),
    op("BatchMatrixDiag", 14, "Use MatrixDiag"),
    op("BatchMatrixDiagPart", 14, "Use MatrixDiagPart"),
    op("BatchMatrixInverse", 13, "Use MatrixInverse instead."),
    op("BatchMatrixSetDiag", 14, "Use MatrixSetDiag"),
    op("BatchMatrixSolve", 13, "Use MatrixSolve instead."),
    op("BatchMatrixSolveLs", 13, "Use MatrixSolveLs instead."),
    op(
        "BatchMatrixTriangularSolve",
        13,
        "Use MatrixTriangularSolve instead.",
    ),
    op(
        "BatchNormWithGlobalNormalization",
        9,
        "Use tf.nn.batch_normalization()",
    ),
    op(
        "BatchNormWithGlobalNormalizationGrad",
        9,
        "Use tf.nn.batch_normalization()",
    ),
    op("BatchSelfAdjointEig", 11, "Use SelfAdjointEigV2 instead."),
    op("BatchSelfAdjointEigV2", 13, "Use SelfAdjointEigV2 instead."),
    op("BatchSvd", 13, "Use Svd instead."),
    op("Conv3DBackpropFilter", 10, "Use Conv3DBackpropFilterV2"),
    op("Conv3DBackpropInput", 10, "Use Conv3DBackpropInputV2"),
    op(
        "FixedLengthRecordReader",
        26,
        "Use FixedLengthRecordReaderV2",
    ),
    op("IdentityReader", 26, "Use IdentityReaderV2"),
    op(
        "MatrixExponential",
        27,
        "Use Python implementation tf.linalg.matrix_exponential instead.",
    ),
    op(
        "NegTrain",
        19,
        "Moving word2vec into tensorflow_models/tutorials and deprecating its ops here as a result",
    ),
    op("Old", 8, "For reasons"),
    op(
        "PlaceholderV2",
        23,
        "Placeholder now behaves the same as PlaceholderV2.",
    ),
    op(
        "QuantizeAndDequantize",
        22,
        "Replaced by QuantizeAndDequantizeV2",
    ),
    op("RandomCrop", 8, "Random crop is now pure Python"),
    op("RandomPoisson", 25, "Replaced by RandomPoissonV2"),
    op("SelfAdjointEig", 11, "Use SelfAdjointEigV2 instead."),
    op(
        "Skipgram",
        19,
        "Moving word2vec into tensorflow_models/tutorials and deprecating its ops here as a result",
    ),
    op(
        "StatefulStandardNormal",
        29,
        "Use StatefulStandardNormalV2 instead",
    ),
    op("TFRecordReader", 26, "Use TFRecordReaderV2"),
    op("TensorArray", 16, "Use TensorArrayV3"),
    op("TensorArrayClose", 16, "Use TensorArrayCloseV3"),
    op("TensorArrayCloseV2", 26, "Use TensorArrayCloseV3"),
    op("TensorArrayConcat", 16, "Use TensorArrayGradV3"),
    op("TensorArrayGather", 16, "Use TensorArrayGatherV3"),
    op("TensorArrayGatherV2", 26, "Use TensorArrayGatherV3"),
    op("TensorArrayGrad", 16, "Use TensorArrayGradV3"),
    op("TensorArrayGradV2", 26, "Use TensorArrayGradV3"),
    op(
        "TensorArrayPack",
        16,
        "Use TensorArrayGatherV3 with RangeOp",
    ),
    op("TensorArrayRead", 16, "Use TensorArrayReadV3"),
    op("TensorArrayReadV2", 26, "Use TensorArrayReadV3"),
    op("TensorArrayScatter", 19, "Use TensorArrayGradV3"),
    op("TensorArrayScatterV2", 26, "Use TensorArrayScatterV3"),
    op("TensorArraySize", 16, "Use TensorArraySizeV3"),
    op("TensorArraySizeV2", 26, "Use TensorArraySizeV3"),
    op("TensorArraySplit", 16, "Use TensorArraySplitV3"),
    op("TensorArraySplitV2", 26, "Use TensorArraySplitV3"),
    op(
        "TensorArrayUnpack",
        20,
        "Use TensorArrayScatterV3 with RangeOp",
    ),
    op("TensorArrayV2", 26, "Use TensorArrayV3"),
    op("TensorArrayWrite", 16, "Use TensorArrayWriteV3"),
    op("TensorArrayWriteV2", 26, "Use TensorArrayWriteV3"),
    op("TextLineReader", 26, "Use TextLineReaderV2"),
    op("TileGrad", 3, "TileGrad has been replaced with reduce_sum"),
    op("TopK", 7, "Use TopKV2 instead"),
];

impl DeprecatedOp {
    /// A deprecation record for an op of your own.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        version: Version,
        explanation: impl Into<Cow<'static, str>>,
    ) -> Self {
        DeprecatedOp {
            name: name.into(),
            version,
            explanation: explanation.into(),
        }
    }

    /// How a graph produced at `producer` may use this op: an error when the op is gone at that
    /// version, otherwise a warning that it will go.
    pub fn judge(&self, producer: Version) -> Result<DeprecationWarning, RemovedOp> {
        if producer >= self.version {
            Err(RemovedOp {
                op: self.name.to_string(),
                producer,
                removed_in: self.version,
                explanation: self.explanation.to_string(),
            })
        } else {
            Ok(DeprecationWarning {
                op: self.name.to_string(),
                removed_in: self.version,
                explanation: self.explanation.to_string(),
            })
        }
    }
}

/// A graph uses an op that no longer exists at the graph's producer version.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RemovedOp {
    /// The op's name.
    pub op: String,
    /// The graph's producer version.
    pub producer: Version,
    /// The version the op was removed in.
    pub removed_in: Version,
    /// What to use instead.
    pub explanation: String,
}

impl From<RemovedOp> for Refusal {
    fn from(removed: RemovedOp) -> Refusal {
        Refusal::OpRemoved {
            op: removed.op,
            producer: removed.producer,
            removed_in: removed.removed_in,
            explanation: removed.explanation,
        }
    }
}

impl From<RemovedOp> for Error {
    fn from(removed: RemovedOp) -> Error {
        Error::Refused(removed.into())
    }
}

impl fmt::Display for RemovedOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Refusal::from(self.clone()), f)
    }
}

/// A graph uses an op that still works at the graph's version but is deprecated.
///
/// TensorFlow logs this as a warning line; here it is a value, and its `Display` is that line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeprecationWarning {
    /// The op's name.
    pub op: String,
    /// The version the op will be removed in.
    pub removed_in: Version,
    /// What to use instead.
    pub explanation: String,
}

impl fmt::Display for DeprecationWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Op {} is deprecated. It will cease to work in GraphDef version {}. {}.",
            self.op, self.removed_in, self.explanation
        )
    }
}

/// A set of deprecated ops, looked up by name.
///
/// Judging a graph looks up the op of every node, so a lookup is a hash probe, not a search:
/// most ops of a real graph are not deprecated, and a miss usually costs one hash of the
/// name's length and first and last eight bytes, and one load.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Registry {
    /// Sorted by name, no duplicates.
    ops: Vec<DeprecatedOp>,
    /// Where each of `ops` is, by name.
    index: NameIndex,
}

/// An open-addressing hash table from op names to their position in [`Registry::ops`].
///
/// It has a power-of-two number of slots, at least four times as many as names, so a probe
/// sequence (linear, from the slot the hash's top bits pick) always reaches an empty slot, and
/// a name that is not there (most ops of a graph) usually meets one at once. A slot keeps
/// the position and the low 32 bits of the name's hash, so the names are compared only when
/// those match.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct NameIndex {
    slots: Vec<Slot>,
    /// 64 minus log2 of the number of slots: `hash >> shift` picks the first slot.
    shift: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    /// Position in `ops`, or [`Slot::EMPTY`].
    at: u32,
    /// The low 32 bits of the name's hash.
    tag: u32,
}

impl Slot {
    const EMPTY: Slot = Slot {
        at: u32::MAX,
        tag: 0,
    };
}

impl NameIndex {
    fn build(ops: &[DeprecatedOp]) -> Self {
        if ops.is_empty() {
            return NameIndex::default();
        }
        let len = (ops.len() * 4).next_power_of_two();
        let mut index = NameIndex {
            slots: vec![Slot::EMPTY; len],
            shift: 64 - len.trailing_zeros(),
        };
        for (at, op) in ops.iter().enumerate() {
            let hash = name_hash(op.name.as_bytes());
            let mut slot = index.first_slot(hash);
            while index.slots[slot] != Slot::EMPTY {
                slot = (slot + 1) & (len - 1);
            }
            // A registry holds far fewer than u32::MAX ops: each one is a heap allocation.
            index.slots[slot] = Slot {
                at: u32::try_from(at).unwrap_or(u32::MAX - 1),
                tag: hash as u32,
            };
        }
        index
    }

    fn first_slot(&self, hash: u64) -> usize {
        // `shift` is at least 1 (at most 2^63 slots), so the result is below the slot count.
        (hash >> self.shift) as usize
    }

    fn find(&self, ops: &[DeprecatedOp], name: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let hash = name_hash(name.as_bytes());
        let mask = self.slots.len() - 1;
        let mut slot = self.first_slot(hash);
        loop {
            let probe = self.slots[slot];
            if probe == Slot::EMPTY {
                return None;
            }
            let at = probe.at as usize;
            if probe.tag == hash as u32 && ops.get(at).is_some_and(|op| op.name == name) {
                return Some(at);
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// A hash of an op name from its length and its first and last eight bytes (fewer for a
/// shorter name): enough to tell TensorFlow's op names apart in a handful of instructions.
/// Names that collide are still told apart by the comparison in [`NameIndex::find`].
fn name_hash(name: &[u8]) -> u64 {
    let len = name.len();
    // Overlapping reads from both ends cover every byte of a name up to 16 bytes long.
    let (head, tail) = if let (Some(head), Some(tail)) = (name.first_chunk(), name.last_chunk()) {
        (u64::from_le_bytes(*head), u64::from_le_bytes(*tail))
    } else if let (Some(head), Some(tail)) = (name.first_chunk(), name.last_chunk()) {
        (
            u64::from(u32::from_le_bytes(*head)),
            u64::from(u32::from_le_bytes(*tail)),
        )
    } else {
        // At most three bytes: the first, middle and last.
        let byte = |at: usize| name.get(at).copied().map_or(0, u64::from);
        (
            byte(0) | byte(len / 2) << 8 | byte(len.wrapping_sub(1)) << 16,
            0,
        )
    };
    let mixed = head ^ tail.rotate_left(29) ^ (len as u64).wrapping_mul(0x0100_0000_01b3);
    // Fibonacci hashing: the top bits of the product depend on every input bit.
    let product = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    product ^ (product >> 32)
}

impl Registry {
    /// A registry with no deprecated ops.
    pub fn empty() -> Self {
        Registry::default()
    }

    /// TensorFlow 2.21's deprecated ops ([`TF_DEPRECATED_OPS`]).
    pub fn tensorflow() -> Self {
        let mut ops = TF_DEPRECATED_OPS.to_vec();
        ops.sort_by(|a, b| a.name.cmp(&b.name));
        ops.dedup_by(|a, b| a.name == b.name);
        let index = NameIndex::build(&ops);
        Registry { ops, index }
    }

    /// Adds a deprecation; an op can be deprecated only once.
    pub fn register(&mut self, op: DeprecatedOp) -> Result<(), Error> {
        match self.ops.binary_search_by(|probe| probe.name.cmp(&op.name)) {
            Ok(_) => Err(Error::DuplicateOp {
                op: op.name.into_owned(),
            }),
            Err(at) => {
                self.ops.insert(at, op);
                self.index = NameIndex::build(&self.ops);
                Ok(())
            }
        }
    }

    /// The deprecation of `name`, if it is deprecated.
    pub fn get(&self, name: &str) -> Option<&DeprecatedOp> {
        self.position(name).map(|at| &self.ops[at])
    }

    /// Where `name` is among [`Registry::iter`]'s ops, if it is deprecated.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.index.find(&self.ops, name)
    }

    /// Every deprecation, sorted by op name.
    pub fn iter(&self) -> impl Iterator<Item = &DeprecatedOp> {
        self.ops.iter()
    }

    /// How many ops are deprecated.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether no op is deprecated.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The highest deprecation version, if any op is deprecated.
    pub fn latest_version(&self) -> Option<Version> {
        self.ops.iter().map(|op| op.version).max()
    }

    /// Judges every op a graph produced at `producer` uses. Each op name is judged once, in the
    /// order of first use.
    pub fn assess<'a, I>(&self, ops: I, producer: Version) -> OpAssessment
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut seen = vec![false; self.ops.len()];
        let mut assessment = OpAssessment::default();
        for name in ops {
            let Some(at) = self.position(name) else {
                continue;
            };
            if std::mem::replace(&mut seen[at], true) {
                continue;
            }
            match self.ops[at].judge(producer) {
                Ok(warning) => assessment.warnings.push(warning),
                Err(removed) => assessment.removed.push(removed),
            }
        }
        assessment
    }
}

/// The deprecated ops a graph uses, split into the ones that reject it and the ones that warn.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OpAssessment {
    /// Ops removed at or before the graph's producer: each one rejects the graph.
    pub removed: Vec<RemovedOp>,
    /// Ops that still work at the graph's producer but are deprecated.
    pub warnings: Vec<DeprecationWarning>,
}

impl OpAssessment {
    /// The error TensorFlow reports: the first removed op, if any.
    pub fn first_error(&self) -> Option<Error> {
        self.removed.first().cloned().map(Error::from)
    }
}
