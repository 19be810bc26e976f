//! Reading a `.tflite` model: validated once, then judged without further errors.

use planus::ReadAsRoot;

use crate::error::{DecodeError, Error, malformed};
use crate::generated::schema::tflite as fb;
use crate::layout::layout_error;
use crate::operator::{BuiltinOperator, OpVersion, OperatorKind};
use crate::operator_table::{
    RawOperator, RawTensor, buffer_data_len, buffer_fields, buffers_vector, i32s, operators_vector,
    options_bytes, tensors_vector, union_value,
};
use crate::options;
use crate::params::{OptionsKind, Params};
use crate::rules::{Judge, TfRules, VersionRules};
use crate::runtime::{self, RuntimeVersion};
use crate::signature::{OpSignature, SignatureFacts};
use crate::tensor::{ElementType, Quantization, TensorSpec};
use crate::version::{VersionReason, version_reason};

/// The FlatBuffers file identifier of every TFLite model (`file_identifier "TFL3"`).
pub const FILE_IDENTIFIER: [u8; 4] = *b"TFL3";

/// The largest FlatBuffer there is: 2^31 - 1 bytes (`FLATBUFFERS_MAX_BUFFER_SIZE` in
/// FlatBuffers' `base.h`; offsets are 32-bit and a buffer must stay below 2 GiB). The
/// `tflite-opver` tool refuses a longer file before reading it.
pub const MAX_MODEL_LEN: usize = 0x7fff_ffff;

/// One entry of the model's `operator_codes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorCode<'a> {
    /// The builtin operator: max(`builtin_code`, `deprecated_builtin_code`).
    pub builtin: BuiltinOperator,
    /// The raw `deprecated_builtin_code` byte.
    pub deprecated_builtin_code: i8,
    /// The raw `builtin_code` field.
    pub builtin_code: i32,
    /// The custom op's name, for custom operators.
    pub custom_code: Option<&'a str>,
    /// The stored `version` (1 when the field is absent).
    pub version: OpVersion,
}

impl<'a> OperatorCode<'a> {
    /// What the code names: a builtin, or a custom op by name.
    pub fn kind(&self) -> OperatorKind<'a> {
        match (self.builtin, self.custom_code) {
            (BuiltinOperator::CUSTOM, Some(name)) => OperatorKind::Custom(name),
            (op, _) => OperatorKind::Builtin(op),
        }
    }

    /// Whether this is a custom operator (builtin code `CUSTOM`).
    pub fn is_custom(&self) -> bool {
        self.builtin == BuiltinOperator::CUSTOM
    }
}

/// Which operator code forced a model's minimum runtime
/// ([`Model::required_min_runtime_cause`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MinRuntimeCause {
    /// The model's minimum runtime.
    pub min_runtime: RuntimeVersion,
    /// The index of the operator code that needs it (the first one, if several do).
    pub code: usize,
    /// That code's operator.
    pub op: BuiltinOperator,
    /// That code's version, whose kernel first shipped in `min_runtime`.
    pub version: OpVersion,
}

/// Where an operator sits in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OperatorLocation {
    /// Subgraph index.
    pub subgraph: usize,
    /// Operator index within the subgraph.
    pub operator: usize,
}

/// A tensor digested into what signatures need.
#[derive(Clone, Debug, PartialEq)]
struct TensorFacts {
    element_type: ElementType,
    dims: Dims,
    is_const: bool,
    is_shape_dynamic: bool,
    is_variable: bool,
    quantization: Option<Quantization>,
    is_sparse: bool,
}

/// A tensor's shape: up to [`Dims::INLINE`] dimensions kept inline, more on the heap, so
/// that the tensors of a model (millions, in a large one) cost no allocation each.
#[derive(Clone)]
enum Dims {
    Inline(u8, [i32; Dims::INLINE]),
    Heap(Vec<i32>),
}

/// A tensor's facts packed into words, for [`TensorClasses`]: its type and flags, rank,
/// dimensions (up to [`Dims::INLINE`]), and quantization (scale count, first scale's bits,
/// quantized dimension). Equal keys are bitwise-equal facts, which TF's rules judge alike.
type FactsKey = [u32; 10];

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
fn pack_key(facts: &TensorFacts, rank: usize, dims: &[i32; Dims::INLINE]) -> Option<FactsKey> {
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
    Some([
        flags,
        dims[0] as u32,
        dims[1] as u32,
        dims[2] as u32,
        dims[3] as u32,
        dims[4] as u32,
        dims[5] as u32,
        count,
        first.map_or(0, f32::to_bits),
        dimension as u32,
    ])
}

/// The distinct facts of a subgraph's tensors, each tensor an index into them: a model of
/// millions of tensors, written by a converter, has few distinct ones (its activations and
/// weights alike), and 4 bytes per tensor cost no fresh pages (its facts, 72 bytes each,
/// cost 245 MB on a 345 MB model). Tensors of one class have bitwise-equal facts; tensors
/// of different classes may too (a table entry was reused), which only costs a comparison
/// later.
#[derive(Clone, Debug, Default)]
struct TensorClasses {
    classes: Vec<TensorFacts>,
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
        const K: [u64; 10] = [
            0x9e37_79b9_7f4a_7c15,
            0xc2b2_ae3d_27d4_eb4f,
            0x1656_67b1_9e37_79f9,
            0x85eb_ca77_c2b2_ae63,
            0x27d4_eb2f_1656_67c5,
            0xff51_afd7_ed55_8ccd,
            0xc4ce_b9fe_1a85_ec53,
            0x2545_f491_4f6c_dd1d,
            0x5851_f42d_4c95_7f2d,
            0x1405_7b7e_f767_814f,
        ];
        let mut h = 0u64;
        for (&word, k) in key.iter().zip(K) {
            h = h.wrapping_add(u64::from(word).wrapping_mul(k));
        }
        h ^= h >> 29;
        (h.wrapping_mul(K[0]) >> 54) as usize % Self::SETS
    }

    /// The class of `facts`, added if new.
    #[inline]
    fn intern(&mut self, facts: TensorFacts) -> Result<u32, Error> {
        let key = facts.key();
        self.intern_key(key, facts)
    }

    /// The class of `facts`, whose key is `key`, added if new.
    #[inline(always)]
    fn intern_key(&mut self, key: Option<FactsKey>, facts: TensorFacts) -> Result<u32, Error> {
        if self.sets.is_empty() {
            self.sets = vec![[u32::MAX; 2]; Self::SETS];
        }
        let set = key.as_ref().map(Self::set_of);
        if let (Some(key), Some(set)) = (&key, set)
            && let Some(&ways) = self.sets.get(set)
        {
            for found in ways {
                // Every word at once, branch-free (`==` on the arrays called `memcmp`, perf).
                if let Some(Some(then)) = self.keys.get(found as usize)
                    && then.iter().zip(key).fold(0, |diff, (a, b)| diff | (a ^ b)) == 0
                {
                    return Ok(found);
                }
            }
        }
        let class = pool_mark(self.classes.len())?;
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
    const INLINE: usize = 6;

    fn new(dims: impl Iterator<Item = i32>) -> Self {
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

    fn as_slice(&self) -> &[i32] {
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

/// An operator digested into what signatures need.
#[derive(Clone, Debug, PartialEq)]
struct OperatorFacts {
    /// Index into the model's operator codes (validated).
    opcode_index: u32,
    /// Where its tensor indices sit in `Subgraph::indices`: inputs at `tensors[0]..tensors[1]`,
    /// outputs at `tensors[1]..tensors[2]` (-1 for absent inputs; validated). One pool per
    /// subgraph instead of two vectors per operator keeps a model of a million operators to
    /// a few allocations.
    tensors: [u32; 3],
    /// Its params: an index into `Subgraph::params`, where operators of one code with the
    /// same options share an entry (most do), which keeps the facts of an operator to 20
    /// bytes.
    params: u32,
    options_present: bool,
    /// Whether it reads exactly like the operator before it of the same code in its
    /// subgraph: tensors of the same classes ([`TensorClasses`]), the same params entry and
    /// options presence. TF's rules then
    /// give it that operator's version, and [`Model::for_each_version`] does not look again.
    repeats: bool,
}

impl OperatorFacts {
    fn opcode_index(&self) -> usize {
        // Widening: the field is the schema's `uint32`, checked against the codes on reading.
        self.opcode_index as usize
    }
}

/// A subgraph's tensors and operators, digested. Which params entry an operator points at
/// depends on how it was read (entries are shared where the reader noticed equal params),
/// and so does which class a tensor is, so two subgraphs compare by
/// [`Subgraph::reads_the_same`], not field by field.
#[derive(Clone, Debug, Default)]
struct Subgraph {
    /// Each tensor's class: an index into `classes`.
    tensors: Vec<u32>,
    classes: Vec<TensorFacts>,
    operators: Vec<OperatorFacts>,
    indices: Vec<i32>,
    params: Vec<Params>,
    /// The operators that do not repeat the one before them of their code
    /// ([`OperatorFacts::repeats`]): the only ones whose versions can raise a code's
    /// required version.
    fresh: Vec<u32>,
}

/// Where a subgraph's operators go while it is read: their facts, the tensor index pool, and
/// the params, interned: an operator whose params equal those of the last operator of its
/// code shares that entry.
struct Digested<'p, 'b> {
    /// The subgraph's tensor classes ([`Subgraph::tensors`]).
    classes: &'p [u32],
    operators: &'p mut Vec<OperatorFacts>,
    fresh: &'p mut Vec<u32>,
    pool: &'p mut Vec<i32>,
    params: &'p mut Vec<Params>,
    /// Per operator code, the params entry of its last operator (`u32::MAX`: none yet).
    last: Vec<u32>,
    /// Per operator code, its last operator (`u32::MAX`: none yet), for
    /// [`OperatorFacts::repeats`].
    last_operator: Vec<u32>,
    /// Per operator code, the options table of its last operator read by hand: an operator
    /// whose options table has the same bytes has the same params, without reading them.
    last_options: Vec<Option<OptionsMemo<'b>>>,
    /// The FlatBuffer tables of the operators read: each operator and its options tables
    /// ([`Model::flatbuffer_tables`]).
    tables: usize,
    /// Per operator code, the input and output index bytes of its last operator read by hand
    /// and where its indices sit in the pool: an operator with the same bytes has the same
    /// (already validated) indices, and shares that range instead of appending a copy.
    last_indices: Vec<Option<IndicesMemo<'b>>>,
    /// Per operator code, the options its operators read ([`OptionsKind::of`]), looked up
    /// once per code rather than once per operator (2.8% of reading the bench model, perf).
    kinds: Vec<OptionsKind>,
}

/// An operator's input and output index bytes, as the hand reader found them, and the
/// range of the pool ([`OperatorFacts::tensors`]) that holds them, validated.
type IndicesMemo<'b> = (&'b [u8], &'b [u8], [u32; 3]);

/// An options table already read: its union tag, bytes ([`options_bytes`]) and params.
#[derive(Clone, Copy)]
struct OptionsMemo<'b> {
    tag: u8,
    /// The vtable's position, and the bytes ([`options_bytes`]).
    vtable: usize,
    bytes: (&'b [u8], &'b [u8]),
    params: u32,
    options_present: bool,
    /// Whether planus read the table (a member of our schema's union), so that TFLite's
    /// verifier counts it.
    counted: bool,
}

impl Digested<'_, '_> {
    #[inline(always)] // into the digest functions, for the reason given at `digest_operator`
    fn intern(&mut self, code: usize, params: Params) -> Result<u32, Error> {
        if let Some(&last) = self.last.get(code)
            && let Some(found) = self.params.get(last as usize)
            // No options (most ops without options tables): no call to the derived `==`.
            && (matches!((found, &params), (Params::None, Params::None)) || *found == params)
        {
            return Ok(last);
        }
        let entry = pool_mark(self.params.len())?;
        self.params.push(params);
        if let Some(slot) = self.last.get_mut(code) {
            *slot = entry;
        }
        Ok(entry)
    }

    /// Appends an operator's facts, noting whether it repeats the last operator of its code
    /// ([`OperatorFacts::repeats`]).
    #[inline(always)] // into the digest functions
    fn push(&mut self, mut facts: OperatorFacts) {
        let code = facts.opcode_index as usize;
        let position = self.operators.len();
        if let Some(slot) = self.last_operator.get_mut(code) {
            if let Some(last) = self.operators.get(*slot as usize) {
                let [start, split, end] = facts.tensors;
                let [then_start, then_split, then_end] = last.tensors;
                facts.repeats = last.params == facts.params
                    && last.options_present == facts.options_present
                    // The same pool range (shared by the hand reader): the same tensors.
                    && (facts.tensors == last.tensors
                        || (split - start == then_split - then_start
                            && same_classes(
                                self.classes,
                                self.pool.get(then_start as usize..then_end as usize),
                                self.pool.get(start as usize..end as usize),
                            )));
            }
            // Below `u32::MAX`: operators are counted by a FlatBuffer vector's `u32` length.
            *slot = u32::try_from(position).unwrap_or(u32::MAX);
        }
        if !facts.repeats {
            self.fresh.push(u32::try_from(position).unwrap_or(u32::MAX));
        }
        self.operators.push(facts);
    }
}

impl<'b> Digested<'_, 'b> {
    /// [`Digested::push`] for an operator read by hand, remembering its index bytes and
    /// pool range for the next operator of its code.
    #[inline(always)] // into `digest_raw_operator`
    fn push_raw(&mut self, raw: &RawOperator<'b>, facts: OperatorFacts) {
        if let Some(slot) = self.last_indices.get_mut(facts.opcode_index as usize) {
            *slot = Some((raw.inputs, raw.outputs, facts.tensors));
        }
        self.push(facts);
    }
}

impl Subgraph {
    fn slice(&self, start: u32, end: u32) -> &[i32] {
        // Ranges are built from this pool when the model is read.
        self.indices
            .get(start as usize..end as usize)
            .unwrap_or(&[])
    }

    /// Reads and validates the subgraph's operators (its tensors already read); returns
    /// whether any keeps custom options outside the FlatBuffer, and their FlatBuffer tables.
    ///
    /// Each operator is read by hand ([`RawOperator`]) where the subgraph's operators vector
    /// was found by hand too (`raw`: its length and first element), and by planus otherwise
    /// or when the hand reader gives up, so planus' error names whatever is malformed.
    ///
    /// A loop of its own: inside [`Model::from_bytes`], planus' iterator over the operators
    /// was not inlined and handed each operator back through memory (perf, bench model).
    fn read_operators(
        &mut self,
        bytes: &[u8],
        raw: Option<(usize, usize)>,
        list: planus::Vector<'_, planus::Result<fb::OperatorRef<'_>>>,
        subgraph: usize,
        codes: &[OperatorCode<'_>],
    ) -> Result<(bool, usize), Error> {
        self.operators.reserve(list.len());
        let tensors = self.tensors.len();
        let mut out = Digested {
            classes: &self.tensors,
            operators: &mut self.operators,
            fresh: &mut self.fresh,
            pool: &mut self.indices,
            params: &mut self.params,
            last: vec![u32::MAX; codes.len()],
            last_operator: vec![u32::MAX; codes.len()],
            last_options: vec![None; codes.len()],
            tables: 0,
            last_indices: vec![None; codes.len()],
            kinds: codes.iter().map(|c| OptionsKind::of(c.builtin)).collect(),
        };
        let first = raw
            .filter(|&(len, _)| len == list.len())
            .map(|(_, first)| first);
        let mut external_data = false;
        for o in 0..list.len() {
            let at = OperatorLocation {
                subgraph,
                operator: o,
            };
            let by_hand = first
                .and_then(|first| RawOperator::read(bytes, first + 4 * o))
                .map(|raw| digest_raw_operator(bytes, &raw, at, codes, tensors, &mut out))
                .transpose()?
                .flatten();
            external_data |= match by_hand {
                Some(external) => external,
                None => {
                    // `o` is below the vector's length.
                    let operator = list.get(o).ok_or_else(|| layout_error("an operator"))?;
                    digest_operator(operator.map_err(malformed)?, at, codes, tensors, &mut out)?
                }
            };
        }
        Ok((external_data, out.tables))
    }

    /// Tensor `index`'s facts; `None` for -1 (an absent input; indices were validated).
    fn tensor(&self, index: i32) -> Option<&TensorFacts> {
        let class = usize::try_from(index)
            .ok()
            .and_then(|i| self.tensors.get(i))?;
        self.classes.get(*class as usize)
    }

    /// Each operator as its facts read: opcode index, inputs, outputs, params, options
    /// presence.
    fn resolved(&self) -> impl Iterator<Item = (u32, &[i32], &[i32], Params, bool)> + '_ {
        self.operators.iter().map(|o| {
            (
                o.opcode_index,
                self.inputs(o),
                self.outputs(o),
                self.params(o),
                o.options_present,
            )
        })
    }

    /// Whether `other` has the same tensors and operators. Floats compare by value, and NaN
    /// equals NaN here (their printed forms match).
    fn reads_the_same(&self, other: &Subgraph) -> bool {
        let tensors = self.tensors.len() == other.tensors.len()
            && (0..self.tensors.len()).all(|t| {
                let t = i32::try_from(t).unwrap_or(-1);
                let (a, b) = (self.tensor(t), other.tensor(t));
                a == b || format!("{a:?}") == format!("{b:?}")
            });
        tensors
            && self.operators.len() == other.operators.len()
            && self
                .resolved()
                .zip(other.resolved())
                .all(|(a, b)| a == b || format!("{a:?}") == format!("{b:?}"))
    }

    /// The params of `operator` (interned when the model was read).
    fn params(&self, operator: &OperatorFacts) -> Params {
        self.params
            .get(operator.params as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Tensor `index`'s class; `u32::MAX` for -1 (an absent input; indices were validated).
    #[inline(always)]
    fn class(&self, index: i32) -> u32 {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.tensors.get(i))
            .map_or(u32::MAX, |&c| c)
    }

    fn inputs(&self, operator: &OperatorFacts) -> &[i32] {
        self.slice(operator.tensors[0], operator.tensors[1])
    }

    fn outputs(&self, operator: &OperatorFacts) -> &[i32] {
        self.slice(operator.tensors[1], operator.tensors[2])
    }
}

/// The `min_runtime_version` metadata entry, when the model has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuntimeMetadata<'a> {
    /// Index of the metadata's buffer in `Model.buffers`.
    pub buffer: u32,
    /// The buffer's bytes (`None` when the index is out of range or the buffer has no data).
    pub data: Option<&'a [u8]>,
}

impl<'a> RuntimeMetadata<'a> {
    /// The stored text, up to the first NUL (TF's reading); `None` when absent or not UTF-8.
    pub fn text(&self) -> Option<&'a str> {
        self.data.and_then(runtime::metadata_text)
    }
}

/// A validated TFLite model, borrowing its bytes.
///
/// [`Model::from_bytes`] checks the file identifier (`TFL3`), reads the FlatBuffer with planus
/// (which bounds-checks every offset and vector length against the buffer, so hostile bytes
/// give errors, not panics), and validates what the version rules rely on: every operator's
/// `opcode_index` names an operator code, every tensor index names a tensor of its subgraph
/// (or is -1, an absent optional input). It digests each tensor and operator into plain
/// values on the way, so building an [`OpSignature`] afterwards cannot fail.
///
/// ```no_run
/// # fn main() -> Result<(), tflite_opver::Error> {
/// let bytes = std::fs::read("model.tflite").expect("readable");
/// let model = tflite_opver::Model::from_bytes(&bytes)?;
/// for (code, required) in model.operator_codes().iter().zip(model.required_versions()) {
///     println!("{}: stored v{}, needs v{required}", code.kind(), code.version);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Model<'a> {
    bytes: &'a [u8],
    codes: Vec<OperatorCode<'a>>,
    subgraphs: Vec<Subgraph>,
    runtime_metadata: Option<RuntimeMetadata<'a>>,
    has_metadata: bool,
    schema_version: u32,
    external_data: bool,
    /// The FlatBuffer tables TFLite's verifier counts, counted while reading.
    tables: usize,
}

fn unknown_union_tag(error: &planus::Error) -> bool {
    matches!(
        error.error_kind,
        planus::errors::ErrorKind::UnknownUnionTag { .. }
    )
}

impl<'a> Model<'a> {
    /// Reads and validates a model. Every structural problem is an [`Error`]; no input panics.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::read(bytes, true)
    }

    /// [`Model::from_bytes`], reading operators by hand (`by_hand`) or through planus alone.
    fn read(bytes: &'a [u8], by_hand: bool) -> Result<Self, Error> {
        if bytes.len() < 8 {
            return Err(DecodeError::TooShort { len: bytes.len() }.into());
        }
        let identifier = [bytes[4], bytes[5], bytes[6], bytes[7]];
        if identifier != FILE_IDENTIFIER {
            return Err(DecodeError::WrongIdentifier { found: identifier }.into());
        }
        let root = fb::ModelRef::read_as_root(bytes).map_err(malformed)?;
        let schema_version = root.version().map_err(malformed)?;

        let mut codes = Vec::new();
        if let Some(list) = root.operator_codes().map_err(malformed)? {
            codes.reserve(list.len());
            for code in list {
                let code = code.map_err(malformed)?;
                let deprecated_builtin_code = code.deprecated_builtin_code().map_err(malformed)?;
                let builtin_code = code.builtin_code().map_err(malformed)?;
                codes.push(OperatorCode {
                    builtin: BuiltinOperator::from_operator_code(
                        builtin_code,
                        deprecated_builtin_code,
                    ),
                    deprecated_builtin_code,
                    builtin_code,
                    custom_code: code.custom_code().map_err(malformed)?,
                    version: OpVersion::new(code.version().map_err(malformed)?),
                });
            }
        }

        let buffers = root.buffers().map_err(malformed)?;
        // The buffers, for constant tensors read by hand (`None`: planus reads them).
        let raw_buffers = buffers_vector(bytes).filter(|_| by_hand);
        // Models over 2 GB keep data at absolute file offsets ("only valid if > 1").
        let mut external_data = false;
        // Whether each buffer holds data ([`HoldsData`]), read by hand in this one walk over
        // the buffers: a constant tensor then costs a lookup, not a visit to its buffer.
        let mut holds_data: Option<Vec<HoldsData>> = None;
        if let Some(list) = buffers {
            let first = raw_buffers
                .flatten()
                .filter(|&(len, _)| len == list.len())
                .map(|(_, first)| first);
            let mut states = Vec::with_capacity(if first.is_some() { list.len() } else { 0 });
            for i in 0..list.len() {
                let by_hand = first.and_then(|first| buffer_fields(bytes, first + 4 * i));
                let offset = match by_hand {
                    Some((data, offset)) => {
                        states.push(match data {
                            Some(len) => HoldsData::from(len.is_some_and(|len| len > 0)),
                            None => HoldsData::Unknown,
                        });
                        offset
                    }
                    None => {
                        states.push(HoldsData::Unknown);
                        // `i` is below the vector's length.
                        let buffer = list.get(i).ok_or_else(|| layout_error("a buffer"))?;
                        buffer.map_err(malformed)?.offset().map_err(malformed)?
                    }
                };
                external_data |= offset > 1;
            }
            holds_data = first.map(|_| states);
        }
        let buffer_data = |index: u32| -> Result<Option<&'a [u8]>, Error> {
            let Some(buffers) = buffers else {
                return Ok(None);
            };
            let Ok(index) = usize::try_from(index) else {
                return Ok(None);
            };
            match buffers.get(index) {
                None => Ok(None),
                Some(buffer) => buffer.map_err(malformed)?.data().map_err(malformed),
            }
        };

        // TFLite's verifier counts every table it visits (`loader_limits`): the model, its
        // operator codes, buffers, metadata entries and signatures here, then each subgraph,
        // tensor and operator with the tables they hold.
        let mut tables = 1 + codes.len() + buffers.map_or(0, |b| b.len());
        tables += len_of(root.metadata());
        if let Ok(Some(signatures)) = root.signature_defs() {
            for signature in signatures.iter().flatten() {
                tables += 1 + len_of(signature.inputs()) + len_of(signature.outputs());
            }
        }
        let mut subgraphs = Vec::new();
        if let Some(list) = root.subgraphs().map_err(malformed)? {
            subgraphs.reserve(list.len());
            for (s, subgraph) in list.into_iter().enumerate() {
                let subgraph = subgraph.map_err(malformed)?;
                tables += 1;
                let mut tensors = Vec::new();
                let mut classes = TensorClasses::default();
                if let Some(list) = subgraph.tensors().map_err(malformed)? {
                    tensors.reserve(list.len());
                    // By hand where the vector was found by hand, else (and for a tensor the
                    // hand reader gives up on) by planus.
                    let first = tensors_vector(bytes, s)
                        .filter(|&(len, _)| by_hand && len == list.len())
                        .map(|(_, first)| first);
                    for t in 0..list.len() {
                        let by_hand = match first {
                            Some(first) => digest_raw_tensor(
                                bytes,
                                first + 4 * t,
                                |index| match (&holds_data, raw_buffers) {
                                    (Some(states), _) => match states.get(index as usize) {
                                        // Out of range: no data, as planus reads it.
                                        None | Some(HoldsData::No) => Some(None),
                                        Some(HoldsData::Yes) => Some(Some(1)),
                                        Some(HoldsData::Unknown) => None,
                                    },
                                    (None, Some(None)) => Some(None),
                                    (None, Some(Some(list))) => buffer_data_len(bytes, list, index),
                                    (None, None) => None,
                                },
                                &buffer_data,
                                &mut tables,
                                &mut classes,
                            )?,
                            None => None,
                        };
                        let class = match by_hand {
                            Some(class) => class,
                            None => {
                                // `t` is below the vector's length.
                                let tensor = list.get(t).ok_or_else(|| layout_error("a tensor"))?;
                                let facts = digest_tensor(
                                    tensor.map_err(malformed)?,
                                    &buffer_data,
                                    &mut tables,
                                )?;
                                classes.intern(facts)?
                            }
                        };
                        tensors.push(class);
                    }
                }
                let mut graph = Subgraph {
                    tensors,
                    classes: classes.classes,
                    ..Subgraph::default()
                };
                if let Some(list) = subgraph.operators().map_err(malformed)? {
                    let raw = operators_vector(bytes, s).filter(|_| by_hand);
                    let (external, operator_tables) =
                        graph.read_operators(bytes, raw, list, s, &codes)?;
                    external_data |= external;
                    tables += operator_tables;
                }
                subgraphs.push(graph);
            }
        }

        let mut runtime_metadata = None;
        let metadata = root.metadata().map_err(malformed)?;
        if let Some(list) = metadata {
            for entry in list {
                let entry = entry.map_err(malformed)?;
                if entry.name().map_err(malformed)? == Some(RuntimeVersion::METADATA_NAME) {
                    let buffer = entry.buffer().map_err(malformed)?;
                    runtime_metadata = Some(RuntimeMetadata {
                        buffer,
                        data: buffer_data(buffer)?,
                    });
                    break;
                }
            }
        }

        Ok(Self {
            bytes,
            codes,
            subgraphs,
            runtime_metadata,
            has_metadata: metadata.is_some(),
            schema_version,
            external_data,
            tables,
        })
    }

    /// The FlatBuffer tables TFLite's verifier would count ([`loader_limits`](crate::loader_limits)).
    pub(crate) fn flatbuffer_tables(&self) -> usize {
        self.tables
    }

    /// The model's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The schema version the model declares (`Model.version`, 3 for current models).
    pub fn schema_version(&self) -> u32 {
        self.schema_version
    }

    /// Whether the model keeps buffers or custom options outside the FlatBuffer, at absolute
    /// file offsets (models over 2 GB).
    pub fn has_external_data(&self) -> bool {
        self.external_data
    }

    /// The operator codes, in the model's order.
    pub fn operator_codes(&self) -> &[OperatorCode<'a>] {
        &self.codes
    }

    /// Number of subgraphs.
    pub fn subgraph_count(&self) -> usize {
        self.subgraphs.len()
    }

    /// Number of operators in all subgraphs.
    pub fn operator_count(&self) -> usize {
        self.subgraphs.iter().map(|s| s.operators.len()).sum()
    }

    /// Every operator's location, subgraph by subgraph, in execution order.
    pub fn operators(&self) -> impl Iterator<Item = OperatorLocation> + '_ {
        self.subgraphs.iter().enumerate().flat_map(|(subgraph, s)| {
            (0..s.operators.len()).map(move |operator| OperatorLocation { subgraph, operator })
        })
    }

    /// The operator code index of the operator at `at`.
    pub fn opcode_index(&self, at: OperatorLocation) -> Result<usize, Error> {
        Ok(self.operator(at)?.opcode_index())
    }

    /// The `min_runtime_version` metadata entry, if the model has one.
    pub fn runtime_metadata(&self) -> Option<RuntimeMetadata<'a>> {
        self.runtime_metadata
    }

    /// Whether the model has a `metadata` vector at all (perhaps empty, perhaps without a
    /// `min_runtime_version` entry). TF's `UpdateMinimumRuntimeVersionForModel` crashes on a
    /// model without one; see [`StampWarning::NoMetadata`](crate::StampWarning::NoMetadata).
    pub fn has_metadata(&self) -> bool {
        self.has_metadata
    }

    /// The stored minimum runtime version text (up to the first NUL), if any.
    pub fn stored_min_runtime_version(&self) -> Option<&'a str> {
        self.runtime_metadata.and_then(|m| m.text())
    }

    fn operator(&self, at: OperatorLocation) -> Result<&OperatorFacts, Error> {
        self.subgraphs
            .get(at.subgraph)
            .and_then(|s| s.operators.get(at.operator))
            .ok_or(Error::NoSuchOperator {
                subgraph: at.subgraph,
                operator: at.operator,
            })
    }

    /// The signature of the operator at `at` (TF's `GetOpSignature`).
    pub fn signature(&self, at: OperatorLocation) -> Result<OpSignature, Error> {
        let operator = self.operator(at)?;
        let mut sig = OpSignature::new(
            BuiltinOperator::CUSTOM,
            Vec::new(),
            Vec::new(),
            Params::None,
        );
        self.fill_signature(
            &self.subgraphs[at.subgraph],
            operator,
            &mut sig,
            &mut Vec::new(),
        );
        Ok(sig)
    }

    /// Rewrites `sig` as the signature of `operator`, reusing its allocations (and those in
    /// `spare`).
    fn fill_signature(
        &self,
        subgraph: &Subgraph,
        operator: &OperatorFacts,
        sig: &mut OpSignature,
        spare: &mut Vec<TensorSpec>,
    ) {
        // The opcode index was validated when the model was read.
        let code = self.codes[operator.opcode_index()];
        sig.op = code.builtin;
        if code.is_custom() {
            sig.custom_name = code.custom_code.map(str::to_owned);
        } else if sig.custom_name.is_some() {
            sig.custom_name = None;
        }
        fill_specs(&mut sig.inputs, spare, subgraph.inputs(operator), subgraph);
        fill_specs(
            &mut sig.outputs,
            spare,
            subgraph.outputs(operator),
            subgraph,
        );
        sig.params = subgraph.params(operator);
        sig.options_present = operator.options_present;
        sig.facts = SignatureFacts::derive(sig.op, &sig.inputs, &sig.outputs);
    }

    /// Whether every subgraph's tensors and operators read the same in `other` (operator
    /// codes and metadata aside). Floats compare by value, and NaN equals NaN here.
    pub(crate) fn same_graph(&self, other: &Model<'_>) -> bool {
        self.subgraphs.len() == other.subgraphs.len()
            && self
                .subgraphs
                .iter()
                .zip(&other.subgraphs)
                .all(|(a, b)| a.reads_the_same(b))
    }

    /// Every operator's own required version (custom operators: their code's stored version),
    /// in [`Model::operators`] order.
    pub fn operator_versions(&self) -> Vec<(OperatorLocation, OpVersion)> {
        let mut out = Vec::with_capacity(self.operator_count());
        self.for_each_version(&TfRules, true, |at, _, version| out.push((at, version)));
        out
    }

    /// Each operator's version by `judge`, with its location and opcode index. Monomorphized:
    /// TF's rules alone ([`TfRules`]) cost no lookups. Without `every` operator, and with TF's
    /// rules, only the operators that do not repeat the one before them of their code
    /// (`Subgraph::fresh`): the others have that one's version.
    fn for_each_version<J: Judge>(
        &self,
        judge: &J,
        every: bool,
        mut f: impl FnMut(OperatorLocation, usize, OpVersion),
    ) {
        let fresh_only = !every && J::SEES_ONLY_TENSOR_FACTS;
        let mut sig = OpSignature::new(
            BuiltinOperator::CUSTOM,
            Vec::new(),
            Vec::new(),
            Params::None,
        );
        let mut spare = Vec::new();
        // Per operator code, the last operator judged: its subgraph, tensor indices (inputs,
        // then outputs), input count, params, options presence, and version. An operator
        // whose tensors and options read the same is not judged again: TF's rules see
        // nothing else (not even the tensor indices). User rules might, so they judge every
        // operator.
        let mut memo: Vec<Option<Memo>> = vec![None; self.codes.len()];
        for (s, subgraph) in self.subgraphs.iter().enumerate() {
            let count = if fresh_only {
                subgraph.fresh.len()
            } else {
                subgraph.operators.len()
            };
            for k in 0..count {
                let o = if fresh_only {
                    subgraph.fresh.get(k).map_or(usize::MAX, |&o| o as usize)
                } else {
                    k
                };
                let Some(operator) = subgraph.operators.get(o) else {
                    continue;
                };
                let at = OperatorLocation {
                    subgraph: s,
                    operator: o,
                };
                let index = operator.opcode_index();
                let code = &self.codes[index];
                let version = if code.is_custom() && !judge.judges_custom(code.custom_code) {
                    code.version
                } else if J::SEES_ONLY_TENSOR_FACTS {
                    match memo.get_mut(index) {
                        // The operator before it of this code (in this subgraph) was judged
                        // or matched the memo just now, and this one reads exactly like it.
                        Some(Some(m)) if operator.repeats => m.version,
                        Some(Some(m)) if m.same(&self.subgraphs, s, operator) => m.version,
                        slot => {
                            self.fill_signature(subgraph, operator, &mut sig, &mut spare);
                            let version = judge.version(&sig);
                            if let Some(slot) = slot {
                                slot.get_or_insert_with(Memo::default)
                                    .remember(s, subgraph, operator, version);
                            }
                            version
                        }
                    }
                } else {
                    self.fill_signature(subgraph, operator, &mut sig, &mut spare);
                    judge.version(&sig)
                };
                f(at, index, version);
            }
        }
    }

    /// The version each operator code needs: the maximum over the operators that use it
    /// (one code serves many operators), at least 1. Custom codes keep their stored version:
    /// no rule judges them. A builtin code no operator uses needs version 1.
    pub fn required_versions(&self) -> Vec<OpVersion> {
        self.required_versions_by(&TfRules)
    }

    /// [`Model::required_versions`] with user-defined rules: a custom code with a rule is
    /// judged like a builtin one (at least 1), a builtin with a rule by that rule instead of
    /// TF's.
    pub fn required_versions_with(&self, rules: &VersionRules) -> Vec<OpVersion> {
        self.required_versions_by(rules)
    }

    pub(crate) fn required_versions_by<J: Judge>(&self, judge: &J) -> Vec<OpVersion> {
        let mut required: Vec<OpVersion> = self
            .codes
            .iter()
            .map(|c| {
                if c.is_custom() && !judge.judges_custom(c.custom_code) {
                    c.version
                } else {
                    OpVersion::ONE
                }
            })
            .collect();
        // An operator that repeats the one before it of its code has that one's version, and
        // raises nothing: only the others are visited.
        self.for_each_version(judge, false, |_, code, version| {
            if let Some(slot) = required.get_mut(code)
                && version > *slot
            {
                *slot = version;
            }
        });
        required
    }

    /// The minimum runtime for the model if its operator codes had `versions` (one per code):
    /// TF's `UpdateMinimumRuntimeVersionForModel`, the largest minimum runtime over the
    /// operators, each at its code's version. `None` when no operator has a table entry (TF
    /// then writes an empty string).
    pub fn min_runtime_version_with(&self, versions: &[OpVersion]) -> Option<RuntimeVersion> {
        let mut used = vec![false; self.codes.len()];
        for subgraph in &self.subgraphs {
            for operator in &subgraph.operators {
                used[operator.opcode_index()] = true;
            }
        }
        runtime::min_runtime_version_for_model(
            self.codes
                .iter()
                .zip(versions)
                .zip(&used)
                .filter(|(_, used)| **used)
                .map(|((code, version), _)| (code.builtin, *version)),
        )
    }

    /// The minimum runtime the model needs at its required versions
    /// ([`Model::required_versions`]).
    pub fn required_min_runtime_version(&self) -> Option<RuntimeVersion> {
        self.min_runtime_version_with(&self.required_versions())
    }

    /// [`Model::min_runtime_version_with`] and the operator code that forced it: the first
    /// used code, in `operator_codes` order, whose `(op, version)` has the largest minimum
    /// runtime.
    pub fn min_runtime_cause_with(&self, versions: &[OpVersion]) -> Option<MinRuntimeCause> {
        let mut used = vec![false; self.codes.len()];
        for subgraph in &self.subgraphs {
            for operator in &subgraph.operators {
                used[operator.opcode_index()] = true;
            }
        }
        let mut cause: Option<MinRuntimeCause> = None;
        for (code, ((c, &version), _)) in self
            .codes
            .iter()
            .zip(versions)
            .zip(&used)
            .enumerate()
            .filter(|(_, (_, used))| **used)
        {
            let Some(min_runtime) = runtime::min_runtime_version_for_op(c.builtin, version) else {
                continue;
            };
            if cause
                .as_ref()
                .is_none_or(|found| min_runtime > found.min_runtime)
            {
                cause = Some(MinRuntimeCause {
                    min_runtime,
                    code,
                    op: c.builtin,
                    version,
                });
            }
        }
        cause
    }

    /// [`Model::required_min_runtime_version`] and the operator code that forced it.
    pub fn required_min_runtime_cause(&self) -> Option<MinRuntimeCause> {
        self.min_runtime_cause_with(&self.required_versions())
    }

    /// The version the operator at `at` needs, and the rule of TF's op_version.cc that set it
    /// ([`version_reason`](crate::version_reason)). A custom operator keeps its code's stored
    /// version: no rule judges it.
    pub fn version_reason(&self, at: OperatorLocation) -> Result<VersionReason, Error> {
        let index = self.opcode_index(at)?;
        let code = &self.codes[index];
        if code.is_custom() {
            return Ok(VersionReason::new(code.version, CUSTOM_REASON));
        }
        Ok(version_reason(&self.signature(at)?))
    }

    /// Why each operator code needs its [`Model::required_versions`] entry: the reason of the
    /// first operator that needs the code's version (reasons are computed for that operator
    /// only, after one pass as fast as [`Model::required_versions`]).
    ///
    /// Custom codes keep their stored version; a builtin code no operator uses needs
    /// version 1.
    pub fn required_version_reasons(&self) -> Vec<VersionReason> {
        self.required_version_reasons_by(&TfRules)
    }

    /// [`Model::required_version_reasons`] with user-defined rules
    /// ([`Model::required_versions_with`]).
    pub fn required_version_reasons_with(&self, rules: &VersionRules) -> Vec<VersionReason> {
        self.required_version_reasons_by(rules)
    }

    fn required_version_reasons_by<J: Judge>(&self, judge: &J) -> Vec<VersionReason> {
        let mut needed: Vec<(OpVersion, Option<OperatorLocation>)> =
            self.codes.iter().map(|_| (OpVersion::ONE, None)).collect();
        self.for_each_version(judge, true, |at, code, version| {
            if let Some(slot) = needed.get_mut(code)
                && (slot.1.is_none() || version > slot.0)
            {
                *slot = (version, Some(at));
            }
        });
        self.codes
            .iter()
            .zip(needed)
            .map(|(code, (_, at))| {
                if code.is_custom() && !judge.judges_custom(code.custom_code) {
                    return VersionReason::new(code.version, CUSTOM_REASON);
                }
                match at.and_then(|at| self.signature(at).ok()) {
                    Some(sig) => {
                        let reason = judge.reason(&sig);
                        // An operator at version 0 or below still needs version 1 of its code.
                        if reason.version() < OpVersion::ONE {
                            VersionReason::new(OpVersion::ONE, "every code is at least version 1")
                        } else {
                            reason
                        }
                    }
                    None => VersionReason::new(OpVersion::ONE, "no operator uses this code"),
                }
            })
            .collect()
    }
}

/// Whether a buffer holds data (a tensor using it is constant), as read by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HoldsData {
    No,
    Yes,
    /// The hand reader gave up on its data: planus reads it for each tensor that uses it,
    /// and reports what is wrong.
    Unknown,
}

impl From<bool> for HoldsData {
    fn from(holds: bool) -> Self {
        if holds { Self::Yes } else { Self::No }
    }
}

/// The last operator of an operator code judged, in [`Model::for_each_version`].
#[derive(Clone, Debug, Default)]
struct Memo {
    subgraph: usize,
    indices: Vec<i32>,
    inputs: usize,
    params: Params,
    /// Where `params` sits: its entry in `subgraph` (an operator at the same entry has them).
    params_at: u32,
    options_present: bool,
    version: OpVersion,
}

impl Memo {
    /// Whether `operator` of subgraph `s` reads the same to TF's rules: input count, options
    /// presence, tensors (of the same class in the same subgraph, whose facts are bitwise
    /// equal, or equal facts) and params. Facts and params of different classes and entries
    /// compare with `==`: a NaN scale or option there never matches, and is judged anew.
    #[inline]
    fn same(&self, subgraphs: &[Subgraph], s: usize, operator: &OperatorFacts) -> bool {
        // The common case first: the same tensors and params entry in the same subgraph.
        if self.subgraph == s
            && self.params_at == operator.params
            && self.options_present == operator.options_present
            && let Some(subgraph) = subgraphs.get(s)
        {
            let (inputs, outputs) = (subgraph.inputs(operator), subgraph.outputs(operator));
            if self.inputs == inputs.len()
                && self.indices.len() == inputs.len() + outputs.len()
                && self
                    .indices
                    .iter()
                    .zip(inputs.iter().chain(outputs))
                    .all(|(&then, &now)| subgraph.class(then) == subgraph.class(now))
            {
                return true;
            }
        }
        let (Some(subgraph), Some(before)) = (subgraphs.get(s), subgraphs.get(self.subgraph))
        else {
            return false;
        };
        let inputs = subgraph.inputs(operator);
        let outputs = subgraph.outputs(operator);
        self.inputs == inputs.len()
            && self.indices.len() == inputs.len() + outputs.len()
            && self.options_present == operator.options_present
            && self
                .indices
                .iter()
                .zip(inputs.iter().chain(outputs))
                .all(|(&then, &now)| {
                    (then == now && self.subgraph == s)
                        || before.tensor(then) == subgraph.tensor(now)
                })
            && ((self.subgraph == s && self.params_at == operator.params)
                || self.params == subgraph.params(operator))
    }

    /// Remembers `operator` of subgraph `s` and its version.
    fn remember(
        &mut self,
        s: usize,
        subgraph: &Subgraph,
        operator: &OperatorFacts,
        version: OpVersion,
    ) {
        let inputs = subgraph.inputs(operator);
        self.subgraph = s;
        self.indices.clear();
        self.indices.extend_from_slice(inputs);
        self.indices.extend_from_slice(subgraph.outputs(operator));
        self.inputs = inputs.len();
        self.params = subgraph.params(operator);
        self.params_at = operator.params;
        self.options_present = operator.options_present;
        self.version = version;
    }
}

/// The length of an optional vector field, 0 when absent or unreadable.
fn len_of<T>(field: planus::Result<Option<planus::Vector<'_, T>>>) -> usize {
    field.ok().flatten().map_or(0, |v| v.len())
}

/// 1 when an optional table (or a union with a known member) is present. An unknown union
/// member is not verified by TFLite, so not counted.
fn present<T>(field: planus::Result<Option<T>>) -> usize {
    usize::from(matches!(field, Ok(Some(_))))
}

/// The reason given for a custom operator's version.
const CUSTOM_REASON: &str = "custom op: its stored version is kept (no TF rule judges it)";

/// Refills `specs` from tensor indices, reusing each spec's `dims` allocation. Specs beyond
/// the new length go to `spare`, and come back from it, so a loop over many operators
/// allocates nothing once warm.
fn fill_specs(
    specs: &mut Vec<TensorSpec>,
    spare: &mut Vec<TensorSpec>,
    indices: &[i32],
    subgraph: &Subgraph,
) {
    while specs.len() > indices.len() {
        spare.extend(specs.pop());
    }
    while specs.len() < indices.len() {
        specs.push(spare.pop().unwrap_or_default());
    }
    for (spec, &index) in specs.iter_mut().zip(indices) {
        // Indices were validated: -1 or in range.
        match subgraph.tensor(index) {
            Some(t) => {
                spec.element_type = t.element_type;
                spec.dims.clear();
                spec.dims.extend_from_slice(t.dims.as_slice());
                spec.is_const = t.is_const;
                spec.is_shape_dynamic = t.is_shape_dynamic;
                spec.is_variable = t.is_variable;
                spec.quantization = t.quantization;
                spec.is_sparse = t.is_sparse;
                spec.tensor_index = u32::try_from(index).ok();
            }
            None => {
                spec.element_type = ElementType::NoType;
                spec.dims.clear();
                spec.is_const = false;
                spec.is_shape_dynamic = false;
                spec.is_variable = false;
                spec.quantization = None;
                spec.is_sparse = false;
                spec.tensor_index = None;
            }
        }
    }
}

/// [`digest_tensor`] by hand, for the tensor whose offset is stored at `element`, straight
/// into its class: `Ok(None)` when the hand reader gives up and planus must read it.
/// `data_len` gives the length of a buffer's data by hand (`None`: planus' `buffer_data` must
/// read it).
///
/// One function from the tensor's bytes to its class, with the reader inlined: its facts are
/// packed into their key where they are read (handing the reader's fields, then the facts,
/// back through memory stalled on each tensor, perf on a model of 3.4 million tensors).
#[inline(never)]
fn digest_raw_tensor<'a>(
    bytes: &[u8],
    element: usize,
    data_len: impl Fn(u32) -> Option<Option<usize>>,
    buffer_data: &impl Fn(u32) -> Result<Option<&'a [u8]>, Error>,
    tables: &mut usize,
    classes: &mut TensorClasses,
) -> Result<Option<u32>, Error> {
    let Some(raw) = RawTensor::read(bytes, element) else {
        return Ok(None);
    };
    *tables += 1 + raw.variant_tensors + usize::from(raw.sparse);
    // TF: a tensor is constant when its buffer (not the sentinel 0) holds data.
    let is_const = raw.buffer != 0
        && match data_len(raw.buffer) {
            Some(len) => len.is_some_and(|len| len > 0),
            None => buffer_data(raw.buffer)?.is_some_and(|d| !d.is_empty()),
        };
    let quantization =
        raw.quantization
            .map(|(scale_count, first_scale, quantized_dimension, details)| {
                *tables += 1 + usize::from(details);
                Quantization {
                    scale_count,
                    first_scale,
                    quantized_dimension,
                }
            });
    let mut facts = TensorFacts {
        element_type: ElementType::from_schema(raw.type_).unwrap_or(ElementType::NoType),
        dims: Dims::Inline(0, [0; Dims::INLINE]),
        is_const,
        is_shape_dynamic: i32s(raw.shape_signature).any(|d| d == -1),
        is_variable: raw.is_variable,
        quantization,
        is_sparse: raw.sparse,
    };
    let rank = raw.shape.len() / 4;
    if rank > Dims::INLINE {
        facts.dims = Dims::new(i32s(raw.shape));
        return classes.intern_key(None, facts).map(Some);
    }
    let mut dims = [0; Dims::INLINE];
    for (d, c) in dims.iter_mut().zip(raw.shape.chunks_exact(4)) {
        *d = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    let key = pack_key(&facts, rank, &dims);
    facts.dims = Dims::Inline(rank as u8, dims);
    classes.intern_key(key, facts).map(Some)
}

/// Digests a tensor, and adds its FlatBuffer tables to `tables`: itself, its quantization
/// table (and that table's details), its sparsity table, its variant tensors.
fn digest_tensor<'a>(
    tensor: fb::TensorRef<'a>,
    buffer_data: &impl Fn(u32) -> Result<Option<&'a [u8]>, Error>,
    tables: &mut usize,
) -> Result<TensorFacts, Error> {
    *tables += 1 + len_of(tensor.variant_tensors());
    let dims = match tensor.shape().map_err(malformed)? {
        Some(shape) => Dims::new(shape.iter()),
        None => Dims::new(std::iter::empty()),
    };
    let is_shape_dynamic = match tensor.shape_signature().map_err(malformed)? {
        Some(signature) => signature.iter().any(|d| d == -1),
        None => false,
    };
    // TF: a tensor is constant when its buffer (not the sentinel 0) holds data.
    let buffer = tensor.buffer().map_err(malformed)?;
    let is_const = buffer != 0 && buffer_data(buffer)?.is_some_and(|d| !d.is_empty());
    let quantization = match tensor.quantization().map_err(malformed)? {
        None => None,
        Some(q) => {
            *tables += 1 + present(q.details());
            let scales = q.scale().map_err(malformed)?;
            Some(Quantization {
                scale_count: scales.map_or(0, |s| s.len()),
                first_scale: scales.and_then(|s| s.get(0)),
                quantized_dimension: q.quantized_dimension().map_err(malformed)?,
            })
        }
    };
    Ok(TensorFacts {
        element_type: ElementType::from_schema(tensor.type_().map_err(malformed)?)
            .unwrap_or(ElementType::NoType),
        dims,
        is_const,
        is_shape_dynamic,
        is_variable: tensor.is_variable().map_err(malformed)?,
        quantization,
        is_sparse: {
            let sparse = tensor.sparsity().map_err(malformed)?.is_some();
            *tables += usize::from(sparse);
            sparse
        },
    })
}

/// Appends an operator's tensor indices to the subgraph's pool, checking each.
#[inline(always)] // into `digest_operator`, for the reason given there
fn tensor_indices(
    list: Option<planus::Vector<'_, i32>>,
    at: OperatorLocation,
    tensors: usize,
    pool: &mut Vec<i32>,
) -> Result<(), Error> {
    let Some(list) = list else {
        return Ok(());
    };
    // Bounded: planus checked the vector's length against the buffer.
    pool.reserve(list.len());
    for index in list {
        push_index(index, at, tensors, pool)?;
    }
    Ok(())
}

/// The operator code `opcode_index` names, or the error TF's loader gives.
#[inline(always)] // into the digest functions, for the reason given at `digest_operator`
fn operator_code<'c, 'a>(
    codes: &'c [OperatorCode<'a>],
    opcode_index: u32,
    at: OperatorLocation,
) -> Result<&'c OperatorCode<'a>, Error> {
    usize::try_from(opcode_index)
        .ok()
        .and_then(|i| codes.get(i))
        .ok_or_else(|| {
            DecodeError::OpcodeIndexOutOfRange {
                subgraph: at.subgraph,
                operator: at.operator,
                opcode_index,
                codes: codes.len(),
            }
            .into()
        })
}

/// Appends one tensor index to the pool: -1 (TF's kTfLiteOptionalTensor) or a tensor's.
#[inline(always)] // into the digest functions
fn push_index(
    index: i32,
    at: OperatorLocation,
    tensors: usize,
    pool: &mut Vec<i32>,
) -> Result<(), Error> {
    let valid = index == -1 || usize::try_from(index).is_ok_and(|i| i < tensors);
    if !valid {
        return Err(DecodeError::TensorIndexOutOfRange {
            subgraph: at.subgraph,
            operator: at.operator,
            index,
            tensors,
        }
        .into());
    }
    pool.push(index);
    Ok(())
}

/// A position in a subgraph's index pool, as stored in [`OperatorFacts`].
#[inline(always)] // into `digest_operator`, for the reason given there
fn pool_mark(position: usize) -> Result<u32, Error> {
    u32::try_from(position).map_err(|_| too_many_indices())
}

#[cold]
fn too_many_indices() -> Error {
    DecodeError::TooManyTensorIndices.into()
}

/// [`digest_operator`] from the hand reader's fields: `Ok(None)` (nothing appended) when
/// planus must read the operator instead; the same typed errors otherwise.
#[inline(never)] // for the reason given at `digest_operator`
fn digest_raw_operator<'b>(
    bytes: &'b [u8],
    raw: &RawOperator<'b>,
    at: OperatorLocation,
    codes: &[OperatorCode<'_>],
    tensors: usize,
    out: &mut Digested<'_, 'b>,
) -> Result<Option<bool>, Error> {
    let opcode_index = raw.opcode_index;
    let code = operator_code(codes, opcode_index, at)?;
    let pool = &mut *out.pool;
    // Nothing to undo below when the range is shared: the pool ends here either way.
    let start = pool.len();
    let [start_mark, split, end] = match out.last_indices.get(opcode_index as usize) {
        Some(&Some((inputs, outputs, range)))
            if same_bytes(inputs, raw.inputs) && same_bytes(outputs, raw.outputs) =>
        {
            range
        }
        _ => {
            raw_tensor_indices(raw.inputs, at, tensors, pool)?;
            let (start_mark, split) = (pool_mark(start)?, pool_mark(pool.len())?);
            raw_tensor_indices(raw.outputs, at, tensors, pool)?;
            [start_mark, split, pool_mark(pool.len())?]
        }
    };
    let kind = out
        .kinds
        .get(opcode_index as usize)
        .copied()
        .unwrap_or(OptionsKind::None);
    // Like TF's `ParseOpData`, read the options table only for ops that have options; for the
    // others, only whether it is there (a table TFLite's verifier counts).
    let mut tables = 1 + raw.options_2.map_or(0, |at| {
        usize::from(union_value::<fb::BuiltinOptions2Ref<'_>>(bytes, at).is_ok())
    });
    // An options table with the same bytes as the last one of this code reads the same.
    let memo = out
        .last_options
        .get(opcode_index as usize)
        .copied()
        .flatten();
    let located = raw.options.and_then(|at| {
        let known = memo.map(|m| (m.vtable, m.bytes.0, m.bytes.1.len()));
        Some((at.0, options_bytes(bytes, at, known)?))
    });
    if let (Some((tag, (_, vtable, table))), Some(memo)) = (located, memo)
        && memo.tag == tag
        && same_bytes(memo.bytes.0, vtable)
        && same_bytes(memo.bytes.1, table)
        && !code.is_custom()
        && kind != OptionsKind::None
    {
        out.tables += tables + usize::from(memo.counted);
        out.push_raw(
            raw,
            OperatorFacts {
                opcode_index,
                tensors: [start_mark, split, end],
                params: memo.params,
                options_present: memo.options_present,
                repeats: false,
            },
        );
        return Ok(Some(false));
    }
    let mut counted = false;
    let (params, options_present) = if code.is_custom() || kind == OptionsKind::None {
        tables += raw.options.map_or(0, |at| {
            usize::from(union_value::<fb::BuiltinOptionsRef<'_>>(bytes, at).is_ok())
        });
        (Params::None, !code.is_custom())
    } else {
        let options = match raw.options.map(|at| union_value(bytes, at)) {
            None => None,
            Some(Ok(options)) => Some(options),
            // A union member newer than our schema: TF's `builtin_options_as_X()` gives null.
            Some(Err(planus::errors::ErrorKind::UnknownUnionTag { .. })) => None,
            Some(Err(_)) => {
                pool.truncate(start);
                return Ok(None);
            }
        };
        counted = options.is_some();
        tables += usize::from(counted);
        options::read(code.builtin, kind, options)?
    };
    // Only custom options live outside the FlatBuffer in large models.
    let external = if code.is_custom() {
        match raw.large_custom_options_offset(bytes) {
            Some(offset) => offset > 1,
            None => {
                pool.truncate(start);
                return Ok(None);
            }
        }
    } else {
        false
    };
    let params = out.intern(opcode_index as usize, params)?;
    if let (Some((tag, (vtable, vtable_bytes, table_bytes))), Some(slot)) =
        (located, out.last_options.get_mut(opcode_index as usize))
        && !code.is_custom()
        && kind != OptionsKind::None
    {
        *slot = Some(OptionsMemo {
            tag,
            vtable,
            bytes: (vtable_bytes, table_bytes),
            params,
            options_present,
            counted,
        });
    }
    out.tables += tables;
    out.push_raw(
        raw,
        OperatorFacts {
            opcode_index,
            tensors: [start_mark, split, end],
            params,
            options_present,
            repeats: false,
        },
    );
    Ok(Some(external))
}

/// Whether two operators' tensors (indices `a` and `b`, validated) are of the same classes
/// (`classes`: each tensor's), in an explicit loop (a call to `memcmp` per operator cost
/// more, perf).
#[inline(always)]
fn same_classes(classes: &[u32], a: Option<&[i32]>, b: Option<&[i32]>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    if a.len() != b.len() {
        return false;
    }
    let class = |index: i32| {
        usize::try_from(index)
            .ok()
            .and_then(|i| classes.get(i))
            .map_or(u32::MAX, |&c| c)
    };
    for (&x, &y) in a.iter().zip(b) {
        if x != y && class(x) != class(y) {
            return false;
        }
    }
    true
}

/// Whether two short byte strings (an options table's vtable or fields) are equal: the same
/// place (FlatBuffer writers share vtables), or the same bytes compared eight at a time,
/// inline (a call to `memcmp` per string cost 10% of reading the bench model, perf).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if std::ptr::eq(a, b) {
        return true;
    }
    let word = |s: &[u8], at: usize| -> u64 {
        let mut w = [0u8; 8];
        if let Some(bytes) = s.get(at..at + 8) {
            w.copy_from_slice(bytes);
        }
        u64::from_le_bytes(w)
    };
    let mut at = 0;
    while at + 8 <= a.len() {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    while at < a.len() {
        if a.get(at) != b.get(at) {
            return false;
        }
        at += 1;
    }
    true
}

/// [`tensor_indices`] from a vector's bytes.
#[inline(always)] // into `digest_raw_operator`
fn raw_tensor_indices(
    list: &[u8],
    at: OperatorLocation,
    tensors: usize,
    pool: &mut Vec<i32>,
) -> Result<(), Error> {
    // Bounded: the hand reader checked the vector's length against the buffer.
    pool.reserve(list.len() / 4);
    for index in i32s(list) {
        push_index(index, at, tensors, pool)?;
    }
    Ok(())
}

/// Reads and validates one operator, appending its facts to `operators` and its tensor
/// indices to `pool`; returns whether it keeps custom options outside the FlatBuffer.
///
/// A function of its own, with its helpers inlined into it: returned through memory, the
/// facts, params and index ranges cost a store-forwarding stall each per operator, and
/// inlined into [`Model::from_bytes`] it left no inlining budget for planus' small readers
/// (perf on the bench model of a million operators).
#[inline(never)]
fn digest_operator(
    operator: fb::OperatorRef<'_>,
    at: OperatorLocation,
    codes: &[OperatorCode<'_>],
    tensors: usize,
    out: &mut Digested<'_, '_>,
) -> Result<bool, Error> {
    let opcode_index = operator.opcode_index().map_err(malformed)?;
    let code = operator_code(codes, opcode_index, at)?;
    let pool = &mut *out.pool;
    let start = pool.len();
    tensor_indices(operator.inputs().map_err(malformed)?, at, tensors, pool)?;
    let (start, split) = (pool_mark(start)?, pool_mark(pool.len())?);
    tensor_indices(operator.outputs().map_err(malformed)?, at, tensors, pool)?;
    let end = pool_mark(pool.len())?;
    // Like TF's `ParseOpData`, read the options table only for ops that have options.
    let kind = OptionsKind::of(code.builtin);
    let (params, options_present) = if code.is_custom() {
        (Params::None, false)
    } else if kind == OptionsKind::None {
        (Params::None, true)
    } else {
        let options = match operator.builtin_options() {
            Ok(options) => options,
            // A union member newer than our schema: TF's `builtin_options_as_X()` gives null.
            Err(e) if unknown_union_tag(&e) => None,
            Err(e) => return Err(malformed(e)),
        };
        options::read(code.builtin, kind, options)?
    };
    // Only custom options live outside the FlatBuffer in large models.
    let external =
        code.is_custom() && operator.large_custom_options_offset().map_err(malformed)? > 1;
    let params = out.intern(opcode_index as usize, params)?;
    out.tables += 1 + present(operator.builtin_options()) + present(operator.builtin_options_2());
    out.push(OperatorFacts {
        opcode_index,
        tensors: [start, split, end],
        params,
        options_present,
        repeats: false,
    });
    Ok(external)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{AddParams, Conv2DParams};
    use crate::writer::ModelBuilder;

    /// A model whose operators exercise every field the hand reader reads: options of two
    /// kinds, none, a custom op, absent inputs.
    fn sample() -> Vec<u8> {
        let mut b = ModelBuilder::new();
        let t = |dims: &[i32]| {
            TensorSpec::new(ElementType::Int8, dims).quantized(Quantization::per_tensor(0.5))
        };
        let x = b.tensor(&t(&[1, 4, 4, 2]));
        let w = b.tensor(&t(&[2, 3, 3, 2]).constant());
        let y = b.tensor(&t(&[1, 4, 4, 2]));
        // A sparse, a dynamic and a variable tensor: every tensor field the readers read.
        let sparse = b.tensor(
            &TensorSpec::new(ElementType::Float32, &[4, 4])
                .constant()
                .sparse(),
        );
        let dynamic = b.tensor(&TensorSpec::new(ElementType::Float32, &[1, 4]).dynamic());
        let mut variable = TensorSpec::new(ElementType::Int16, &[4]);
        variable.is_variable = true;
        let variable = b.tensor(&variable);
        let conv = b.operator_code(BuiltinOperator::CONV_2D, OpVersion::ONE);
        let add = b.operator_code(BuiltinOperator::ADD, OpVersion::new(2));
        let relu = b.operator_code(BuiltinOperator::RELU, OpVersion::ONE);
        let custom = b.custom_code("MyOp", OpVersion::new(3));
        b.operator(
            conv,
            &[x, w, -1],
            &[y],
            Some(&Params::Conv2D(Conv2DParams::default())),
        );
        b.operator(add, &[x, y], &[x], Some(&Params::Add(AddParams::default())));
        // Options tables with the same bytes (read once), and one that differs.
        b.operator(
            conv,
            &[x, w],
            &[y],
            Some(&Params::Conv2D(Conv2DParams::default())),
        );
        let strided = Conv2DParams {
            stride_width: 2,
            ..Conv2DParams::default()
        };
        b.operator(conv, &[x, w], &[y], Some(&Params::Conv2D(strided)));
        b.operator(
            conv,
            &[x, w],
            &[y],
            Some(&Params::Conv2D(Conv2DParams::default())),
        );
        b.operator(add, &[x, y], &[y], None);
        b.operator(relu, &[y], &[x], None);
        b.operator(relu, &[dynamic], &[variable], None);
        let fc = b.operator_code(BuiltinOperator::FULLY_CONNECTED, OpVersion::ONE);
        b.operator(fc, &[dynamic, sparse], &[dynamic], None);
        b.operator(custom, &[x], &[y], None);
        b.finish()
    }

    fn outcome(bytes: &[u8], by_hand: bool) -> String {
        match Model::read(bytes, by_hand) {
            Ok(model) => {
                let operators: Vec<Vec<_>> = model
                    .subgraphs
                    .iter()
                    .map(|s| s.resolved().collect())
                    .collect();
                let tensors: Vec<Vec<_>> = model
                    .subgraphs
                    .iter()
                    .map(|s| s.tensors.iter().map(|&c| &s.classes[c as usize]).collect())
                    .collect();
                format!(
                    "{:?}",
                    (
                        &model.codes,
                        tensors,
                        operators,
                        model.external_data,
                        model.tables
                    )
                )
            }
            Err(error) => format!("error: {error}"),
        }
    }

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

    /// The hand reader and planus agree on every model, valid or not: every byte of the
    /// sample set to each of a few values that break offsets, lengths and vtables.
    #[test]
    fn hand_reader_agrees_with_planus_on_every_corruption() {
        let bytes = sample();
        assert_eq!(outcome(&bytes, true), outcome(&bytes, false));
        assert!(!outcome(&bytes, true).starts_with("error"));
        let mut errors = 0;
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x03, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                let hand = outcome(&corrupt, true);
                assert_eq!(
                    hand,
                    outcome(&corrupt, false),
                    "byte {at} set to {value:#x}"
                );
                errors += usize::from(hand.starts_with("error"));
            }
        }
        assert!(
            errors > 100,
            "the corruptions reach the operators: {errors} errors"
        );
        // Truncations too.
        for len in 0..bytes.len() {
            assert_eq!(
                outcome(&bytes[..len], true),
                outcome(&bytes[..len], false),
                "{len}"
            );
        }
    }

    /// Operators whose index bytes repeat the last operator's of their code share its pool
    /// range when read by hand, and read exactly as planus reads them one by one.
    #[test]
    fn repeated_indices_share_one_range() {
        let mut b = ModelBuilder::new();
        let t =
            TensorSpec::new(ElementType::Int8, &[1, 4]).quantized(Quantization::per_tensor(0.5));
        let (x, y) = (b.tensor(&t), b.tensor(&t));
        let add = b.operator_code(BuiltinOperator::ADD, OpVersion::ONE);
        let relu = b.operator_code(BuiltinOperator::RELU, OpVersion::ONE);
        for _ in 0..100 {
            b.operator(add, &[x, y], &[x], Some(&Params::Add(AddParams::default())));
            b.operator(relu, &[x], &[y], None);
        }
        // A different operator of the same code breaks the run, and the next one starts anew.
        b.operator(add, &[y, x], &[x], Some(&Params::Add(AddParams::default())));
        b.operator(add, &[x, y], &[x], Some(&Params::Add(AddParams::default())));
        let bytes = b.finish();
        let (hand, planus) = (
            Model::read(&bytes, true).expect("valid"),
            Model::read(&bytes, false).expect("valid"),
        );
        assert_eq!(outcome(&bytes, true), outcome(&bytes, false));
        // ADD [x, y] -> x, RELU [x] -> y, ADD [y, x] -> x, ADD [x, y] -> x again.
        assert_eq!(hand.subgraphs[0].indices.len(), 3 + 2 + 3 + 3);
        assert_eq!(planus.subgraphs[0].indices.len(), 100 * 5 + 3 + 3);
        assert_eq!(hand.required_versions(), planus.required_versions());
    }
}
