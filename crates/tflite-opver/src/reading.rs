//! Reading a model's bytes into a [`Model`]: validated once, digested into plain values.
//!
//! There are two readers of the same tables. planus' generated readers read everything, and
//! report what is malformed; the hand readers of [`raw`](crate::raw) read the tables a large
//! model has millions of (buffers, tensors, operators) a few times faster. Each buffer, tensor
//! and operator is read by hand where its vector was found by hand, and by planus otherwise or
//! where the hand reader gives up, so a malformed model is always reported by planus; a test
//! checks that the two agree on every corruption of a sample model.
//!
//! On the way, tensors are digested into their classes ([`classes`](crate::classes)),
//! operators into their facts with their tensor indices pooled and their params shared
//! ([`Digested`]), and what TFLite's interpreter builder checks into the model's
//! [`LoadFacts`].

use planus::ReadAsRoot;

use crate::classes::{Dims, TensorClasses, TensorFacts, pack_key};
use crate::error::{DecodeError, Error, malformed};
use crate::forms::{FormKey, FormTable};
use crate::generated::schema::tflite as fb;
use crate::loading::{
    LoadFacts, MissingOptions, OPTIONS_NEEDED, OddTensor, QuantizationCounts, has_needed_options,
    is_odd,
};
use crate::model::{FILE_IDENTIFIER, Model, OperatorCode, OperatorLocation, RuntimeMetadata};
use crate::operator::{BuiltinOperator, OpVersion};
use crate::options;
use crate::params::{OptionsKind, Params};
use crate::raw::{
    Data, RawBuffer, RawOperator, RawTensor, Span, SparsityFields, VectorField, buffers_vector,
    i32s, operators_vector, tensors_vector, union_value,
};
use crate::runtime::RuntimeVersion;
use crate::subgraph::{OperatorFacts, Subgraph};
use crate::tensor::{ElementType, Quantization};

/// Where a subgraph's operators go while it is read: their facts, the tensor index pool, and
/// their forms ([`forms`](crate::forms)).
pub(crate) struct Digested<'p, 'b> {
    /// The subgraph's tensor classes ([`Subgraph::tensors`]).
    classes: &'p [u32],
    operators: &'p mut Vec<OperatorFacts>,
    pool: &'p mut Vec<i32>,
    forms: FormTable,
    /// The key of the operator being read.
    key: FormKey,
    /// The options its operators read so far.
    options: OptionsEntries,
    /// The FlatBuffer tables of the operators read: each operator and its options tables
    /// ([`Model::flatbuffer_tables`]).
    tables: usize,
    /// Per operator code, the input and output index bytes of its last operator read by hand
    /// and where its indices sit in the pool: an operator with the same bytes has the same
    /// (already validated) indices, and shares that range instead of appending a copy.
    last_indices: Vec<Option<IndicesMemo<'b>>>,
    /// Per operator code, the options its operators read ([`OptionsKind::of`]), looked up
    /// once per code rather than once per operator.
    kinds: Vec<OptionsKind>,
}

/// An operator's input and output index bytes, as the hand reader found them, and the range of
/// the pool ([`OperatorFacts::tensors`]) that holds them, validated.
#[derive(Clone, Copy)]
struct IndicesMemo<'b> {
    inputs: &'b [u8],
    outputs: &'b [u8],
    range: [u32; 3],
}

/// What an operator's options read as: its params and whether its options table is there,
/// numbered (an options entry) so that operators of one form can be recognised.
#[derive(Clone, Copy)]
struct ReadOptions {
    entry: u32,
    params: Params,
    options_present: bool,
}

/// The options entries of a subgraph's operators: per operator code, the distinct options its
/// operators read, in the order met. A converter gives the operators of one code a few distinct
/// options, whatever their number.
struct OptionsEntries {
    /// Per operator code, its distinct options (at most [`OptionsEntries::KEPT`]).
    distinct: Vec<Vec<ReadOptions>>,
    /// The next entry.
    next: u32,
}

impl OptionsEntries {
    /// The distinct options kept per operator code: options beyond them (a NaN in each, or a
    /// hostile model) get an entry each, so a search stays short.
    const KEPT: usize = 64;

    fn new(codes: usize) -> Self {
        Self {
            distinct: vec![Vec::new(); codes],
            next: 0,
        }
    }

    /// The entry of options `params` and `options_present` of an operator of code
    /// `opcode_index`: the entry of equal options met before, or a new one.
    #[inline(always)]
    fn entry(
        &mut self,
        opcode_index: u32,
        params: Params,
        options_present: bool,
    ) -> Result<ReadOptions, Error> {
        let distinct = self.distinct.get_mut(opcode_index as usize);
        if let Some(found) = distinct.as_ref().and_then(|d| {
            d.iter()
                .find(|r| r.options_present == options_present && r.params == params)
        }) {
            return Ok(*found);
        }
        let read = ReadOptions {
            entry: self.next,
            params,
            options_present,
        };
        self.next = self.next.checked_add(1).ok_or_else(too_many_indices)?;
        if let Some(distinct) = distinct
            && distinct.len() < Self::KEPT
        {
            distinct.push(read);
        }
        Ok(read)
    }
}

impl Digested<'_, '_> {
    /// The operator code of the last operator read.
    fn opcode_index_of_last(&self) -> usize {
        let last = self.operators.last().map(|o| o.form as usize);
        last.and_then(|form| self.forms.forms.get(form))
            .map_or(0, |form| form.opcode_index as usize)
    }

    /// Appends an operator's facts: its code, its tensor indices at `tensors` in the pool, and
    /// its form, found from its options `read` and its tensors' classes.
    #[inline(always)] // into the digest functions
    fn push(
        &mut self,
        opcode_index: u32,
        tensors: [u32; 3],
        read: ReadOptions,
    ) -> Result<(), Error> {
        let [start, split, end] = tensors;
        let inputs = self.pool.get(start as usize..split as usize).unwrap_or(&[]);
        let outputs = self.pool.get(split as usize..end as usize).unwrap_or(&[]);
        self.key.start(opcode_index, read.entry, split - start);
        self.key.tensors(self.classes, inputs);
        self.key.tensors(self.classes, outputs);
        let form = self.forms.form_of(&self.key, self.operators.len(), || {
            (read.params, read.options_present)
        })?;
        self.operators.push(OperatorFacts {
            form,
            tensors: start,
        });
        Ok(())
    }
}

impl Subgraph {
    /// Reads and validates the subgraph's operators (its tensors already read); returns where
    /// custom options kept outside the FlatBuffer start, if any do, and the operators'
    /// FlatBuffer tables.
    ///
    /// Each operator is read by hand ([`RawOperator`]) where the subgraph's operators vector
    /// was found by hand too (`raw`), and by planus otherwise or when the hand reader gives up,
    /// so planus' error names whatever is malformed.
    ///
    /// A loop of its own: inside [`Model::from_bytes`], planus' iterator over the operators
    /// was not inlined and handed each operator back through memory (perf, bench model).
    fn read_operators(
        &mut self,
        bytes: &[u8],
        raw: Option<Span>,
        list: planus::Vector<'_, planus::Result<fb::OperatorRef<'_>>>,
        subgraph: usize,
        codes: &[OperatorCode<'_>],
        missing_options: &mut Vec<MissingOptions>,
    ) -> Result<(Option<u64>, usize), Error> {
        self.operators.reserve(list.len());
        let tensors = self.tensors.len();
        let mut out = Digested {
            classes: &self.tensors,
            operators: &mut self.operators,
            pool: &mut self.indices,
            forms: FormTable::default(),
            key: FormKey::new(),
            options: OptionsEntries::new(codes.len()),
            tables: 0,
            last_indices: vec![None; codes.len()],
            kinds: codes.iter().map(|c| OptionsKind::of(c.builtin)).collect(),
        };
        // Per operator code, whether its operators need their options table.
        let needs_options: Vec<bool> = codes
            .iter()
            .map(|c| OPTIONS_NEEDED.contains(&c.builtin))
            .collect();
        let raw = raw.filter(|span| span.len == list.len());
        let mut external_from = None;
        for o in 0..list.len() {
            let at = OperatorLocation {
                subgraph,
                operator: o,
            };
            let by_hand = match raw.and_then(|span| span.element(o, 4)) {
                Some(element) => match RawOperator::read(bytes, element) {
                    Some(raw) => digest_raw_operator(bytes, &raw, at, codes, tensors, &mut out)?,
                    None => HandRead::GaveUp,
                },
                None => HandRead::GaveUp,
            };
            let external = match by_hand {
                HandRead::Read { external } => external,
                HandRead::GaveUp => {
                    // `o` is below the vector's length.
                    let operator = list.get(o).ok_or_else(|| missing("an operator"))?;
                    digest_operator(operator.map_err(malformed)?, at, codes, tensors, &mut out)?
                }
            };
            external_from = earliest(external_from, external);
            // The few operators that need their options: read by planus, whichever reader
            // read the rest.
            let code = out.opcode_index_of_last();
            if needs_options.get(code).copied().unwrap_or(false) {
                // `o` is below the vector's length, and the operator was read.
                let operator = list.get(o).ok_or_else(|| missing("an operator"))?;
                let operator = operator.map_err(malformed)?;
                let first = operator.builtin_options().ok().flatten();
                let second = operator.builtin_options_2().ok().flatten();
                let op = codes[code].builtin;
                if !has_needed_options(op, first.as_ref(), second.as_ref()) {
                    missing_options.push(MissingOptions {
                        subgraph,
                        operator: o,
                        op,
                    });
                }
            }
        }
        let tables = out.tables;
        self.forms = out.forms.forms;
        Ok((external_from, tables))
    }
}

/// What reading one operator by hand gave.
enum HandRead {
    /// The hand reader gave up; planus reads the operator instead.
    GaveUp,
    /// Read; the offset where its custom options are kept outside the FlatBuffer, if they are.
    Read { external: Option<u64> },
}

/// The earlier of two offsets of data kept outside the FlatBuffer.
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// An offset of data kept outside the FlatBuffer: only offsets above 1 are (TF: "only valid if
/// > 1").
fn external(offset: u64) -> Option<u64> {
    (offset > 1).then_some(offset)
}

/// A vector element planus' own reader found missing, after the vector's length said it was
/// there.
fn missing(what: &'static str) -> Error {
    DecodeError::OutOfBounds { what }.into()
}

fn unknown_union_tag(error: &planus::Error) -> bool {
    matches!(
        error.error_kind,
        planus::errors::ErrorKind::UnknownUnionTag { .. }
    )
}

/// The length of each buffer's `data`, read by hand in one walk over the buffers: a constant
/// tensor then costs a lookup, not a visit to its buffer. Four bytes per buffer.
#[derive(Default)]
struct BufferLens(Vec<u32>);

impl BufferLens {
    const ABSENT: u32 = u32::MAX;
    const UNREADABLE: u32 = u32::MAX - 1;

    fn push(&mut self, data: Data) {
        self.0.push(match data {
            Data::Absent => Self::ABSENT,
            // A length this table cannot hold (a file past 4 GiB) is read by planus again.
            Data::Bytes(len) => u32::try_from(len)
                .ok()
                .filter(|&len| len < Self::UNREADABLE)
                .unwrap_or(Self::UNREADABLE),
            Data::Unreadable => Self::UNREADABLE,
        });
    }

    /// Buffer `index`'s data; a buffer out of range has none, as planus reads it.
    #[inline(always)]
    fn get(&self, index: u32) -> Data {
        match self.0.get(index as usize) {
            None | Some(&Self::ABSENT) => Data::Absent,
            Some(&Self::UNREADABLE) => Data::Unreadable,
            Some(&len) => Data::Bytes(len as usize),
        }
    }
}

/// A buffer's data length (`None` without data): by hand, else by planus.
struct BufferLen<'f, H, P> {
    by_hand: &'f H,
    by_planus: &'f P,
    /// How many buffers the model has.
    count: usize,
}

impl<H: Fn(u32) -> Data, P: Fn(u32) -> Result<Option<usize>, Error>> BufferLen<'_, H, P> {
    /// Buffer `index`'s data length; the sentinel buffer 0 holds none.
    ///
    /// The hand reader's answer comes back in registers; only where it gave up is planus'
    /// `Result` (an error of several words, returned through memory) read, out of line: on
    /// every tensor of a large model, reading the `Result` cost a store and a stalled load.
    #[inline(always)]
    fn of(&self, index: u32) -> Result<Option<usize>, Error> {
        match self.by_hand(index) {
            Data::Absent => Ok(None),
            Data::Bytes(len) => Ok(Some(len)),
            Data::Unreadable => self.planus(index),
        }
    }

    #[inline(always)]
    fn by_hand(&self, index: u32) -> Data {
        if index == 0 {
            Data::Absent
        } else {
            (self.by_hand)(index)
        }
    }

    /// Read by planus, whose error reports what is wrong.
    #[cold]
    #[inline(never)]
    fn planus(&self, index: u32) -> Result<Option<usize>, Error> {
        (self.by_planus)(index)
    }
}

impl<'a> Model<'a> {
    /// [`Model::from_bytes`], reading operators by hand (`by_hand`) or through planus alone.
    pub(crate) fn read(bytes: &'a [u8], by_hand: bool) -> Result<Self, Error> {
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
        let mut load = LoadFacts {
            buffers: buffers.map(|list| list.len()),
            ..LoadFacts::default()
        };
        let buffer_count = load.buffers.unwrap_or(0);
        // Each buffer's data length, read by hand where the vector was found by hand (`None`:
        // planus reads a constant tensor's buffer), and where data kept outside the
        // FlatBuffer starts (models over 2 GB), in one walk over the buffers.
        let lens = match (by_hand, buffers_vector(bytes)) {
            (true, Some(VectorField::Absent)) => Some(BufferLens::default()),
            (true, Some(VectorField::At(span))) if Some(span.len) == load.buffers => {
                let mut lens = BufferLens(Vec::with_capacity(span.len));
                for i in 0..span.len {
                    let raw = span.element(i, 4).and_then(|at| RawBuffer::read(bytes, at));
                    let offset = match raw {
                        Some(RawBuffer { data, offset }) => {
                            lens.push(data);
                            offset
                        }
                        None => {
                            lens.push(Data::Unreadable);
                            planus_buffer_offset(buffers, i)?
                        }
                    };
                    load.external_from = earliest(load.external_from, external(offset));
                }
                Some(lens)
            }
            _ => {
                for i in 0..buffer_count {
                    let offset = planus_buffer_offset(buffers, i)?;
                    load.external_from = earliest(load.external_from, external(offset));
                }
                None
            }
        };
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
        // Buffer `index`'s data as read by hand ([`Data::Unreadable`]: planus must read it).
        let data_of = |index: u32| {
            lens.as_ref()
                .map_or(Data::Unreadable, |lens| lens.get(index))
        };
        // Buffer `index`'s data length by planus, `None` without data.
        let planus_len = |index: u32| Ok(buffer_data(index)?.map(<[u8]>::len));
        let buffer_len = BufferLen {
            by_hand: &data_of,
            by_planus: &planus_len,
            count: buffer_count,
        };

        // TFLite's verifier counts every table it visits (`loader_limits`): the model, its
        // operator codes, buffers, metadata entries and signatures here, then each subgraph,
        // tensor and operator with the tables they hold.
        let mut tables = 1 + codes.len() + buffer_count;
        tables += len_of(root.metadata());
        if let Ok(Some(signatures)) = root.signature_defs() {
            for signature in signatures.iter().flatten() {
                tables += 1 + len_of(signature.inputs()) + len_of(signature.outputs());
            }
        }
        let mut subgraphs = Vec::new();
        if let Some(list) = root.subgraphs().map_err(malformed)? {
            load.has_subgraphs = true;
            subgraphs.reserve(list.len());
            for (s, subgraph) in list.into_iter().enumerate() {
                let subgraph = subgraph.map_err(malformed)?;
                tables += 1;
                let mut tensors = Vec::new();
                let mut classes = TensorClasses::default();
                let list = subgraph.tensors().map_err(malformed)?;
                load.has_tensors.push(list.is_some());
                if let Some(list) = list {
                    tensors.reserve(list.len());
                    // By hand where the vector was found by hand, else (and for a tensor the
                    // hand reader gives up on) by planus.
                    let raw =
                        tensors_vector(bytes, s).filter(|span| by_hand && span.len == list.len());
                    for t in 0..list.len() {
                        let mut sink = OddSink {
                            odd: &mut load.odd_tensors,
                            subgraph: s,
                            index: t,
                            buffers: buffer_count,
                        };
                        let element = raw.and_then(|span| span.element(t, 4));
                        let by_hand = match element {
                            Some(element) => digest_raw_tensor(
                                bytes,
                                element,
                                &buffer_len,
                                &mut tables,
                                &mut classes,
                            )?,
                            None => None,
                        };
                        let class = match (by_hand, element) {
                            (Some(read), Some(element)) => {
                                // What its class says, and its own buffer, data and zero
                                // points: a comparison or two, out of the reader's loop body.
                                if read.tensor_odd
                                    || classes.load(read.class).is_odd_constant(read.data)
                                {
                                    sink.keep_raw(bytes, element, read.data);
                                }
                                read.class
                            }
                            _ => {
                                // `t` is below the vector's length.
                                let tensor = list.get(t).ok_or_else(|| missing("a tensor"))?;
                                let facts = digest_tensor(
                                    tensor.map_err(malformed)?,
                                    &buffer_len,
                                    &mut tables,
                                    &mut sink,
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
                    let (external, operator_tables) = graph.read_operators(
                        bytes,
                        raw,
                        list,
                        s,
                        &codes,
                        &mut load.missing_options,
                    )?;
                    load.external_from = earliest(load.external_from, external);
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
            load,
            tables,
        })
    }
}

/// Buffer `i`'s `offset`, read by planus.
fn planus_buffer_offset(
    buffers: Option<planus::Vector<'_, planus::Result<fb::BufferRef<'_>>>>,
    i: usize,
) -> Result<u64, Error> {
    // `i` is below the vector's length.
    let buffer = buffers
        .and_then(|list| list.get(i))
        .ok_or_else(|| missing("a buffer"))?;
    buffer.map_err(malformed)?.offset().map_err(malformed)
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

/// Where a tensor some runtime may refuse goes, with where it is and the buffers it may name.
struct OddSink<'o> {
    odd: &'o mut Vec<OddTensor>,
    subgraph: usize,
    index: usize,
    buffers: usize,
}

impl OddSink<'_> {
    /// Keeps the tensor when some runtime may refuse it ([`is_odd`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // the fields of one tensor, read where they are
    fn check(
        &mut self,
        type_: i8,
        dims: impl ExactSizeIterator<Item = i32> + Clone,
        buffer: u32,
        data: Option<usize>,
        is_variable: bool,
        sparsity: Option<SparsityFields>,
        quantization: Option<QuantizationCounts>,
    ) {
        if is_odd(
            type_,
            dims.clone(),
            buffer,
            self.buffers,
            data,
            is_variable,
            sparsity.is_some(),
            quantization,
        ) {
            self.keep(
                type_,
                dims,
                buffer,
                data,
                is_variable,
                sparsity,
                quantization,
            );
        }
    }

    /// Keeps the tensor whose offset is stored at `element`, read again (a cold path: most
    /// models have no such tensor).
    #[cold]
    #[inline(never)]
    fn keep_raw(&mut self, bytes: &[u8], element: usize, data: Option<usize>) {
        if let Some(raw) = RawTensor::read(bytes, element) {
            let counts = raw.quantization.map(|q| QuantizationCounts {
                scales: q.scales,
                zero_points: q.zero_points,
                dimension: q.dimension,
            });
            self.keep(
                raw.type_,
                i32s(raw.shape),
                raw.buffer,
                data,
                raw.is_variable,
                raw.sparsity,
                counts,
            );
        }
    }

    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn keep(
        &mut self,
        type_: i8,
        dims: impl Iterator<Item = i32>,
        buffer: u32,
        data: Option<usize>,
        is_variable: bool,
        sparsity: Option<SparsityFields>,
        quantization: Option<QuantizationCounts>,
    ) {
        self.odd.push(OddTensor {
            subgraph: self.subgraph,
            index: self.index,
            type_,
            dims: dims.collect(),
            buffer,
            data,
            is_variable,
            sparsity,
            quantization,
        });
    }
}

/// [`digest_tensor`] by hand, for the tensor whose offset is stored at `element`, straight
/// into its class: `Ok(None)` when the hand reader gives up and planus must read it.
///
/// The class of a tensor read by hand, and what its class cannot say of whether some runtime may
/// refuse it ([`ClassLoad`](crate::loading::ClassLoad)).
struct HandTensor {
    class: u32,
    /// Its buffer index is past the buffers, or its zero points are not one per scale.
    tensor_odd: bool,
    /// Its data's length; `None` without data.
    data: Option<usize>,
}

/// One function from the tensor's bytes to its class, with the reader inlined: its facts are
/// packed into their key where they are read (perf, on a model of 3.4 million tensors:
/// handing the reader's fields, then the facts, back through memory stalled on each tensor).
#[inline(never)]
fn digest_raw_tensor<H, P>(
    bytes: &[u8],
    element: usize,
    buffer_len: &BufferLen<'_, H, P>,
    tables: &mut usize,
    classes: &mut TensorClasses,
) -> Result<Option<HandTensor>, Error>
where
    H: Fn(u32) -> Data,
    P: Fn(u32) -> Result<Option<usize>, Error>,
{
    let Some(raw) = RawTensor::read(bytes, element) else {
        return Ok(None);
    };
    *tables += 1 + raw.variant_tensors + usize::from(raw.sparsity.is_some());
    let data = match buffer_len.by_hand(raw.buffer) {
        Data::Absent => None,
        Data::Bytes(len) => Some(len),
        Data::Unreadable => buffer_len.planus(raw.buffer)?,
    };
    let quantization = raw.quantization.map(|q| {
        *tables += 1 + usize::from(q.details);
        Quantization {
            scale_count: q.scales,
            first_scale: q.first_scale,
            quantized_dimension: q.dimension,
        }
    });
    let counts = raw.quantization.map(|q| QuantizationCounts {
        scales: q.scales,
        zero_points: q.zero_points,
        dimension: q.dimension,
    });
    let mut facts = TensorFacts {
        element_type: ElementType::from_schema(raw.type_).unwrap_or(ElementType::NoType),
        dims: Dims::Inline(0, [0; Dims::INLINE]),
        // TF: a tensor is constant when its buffer holds data.
        is_const: data.is_some_and(|len| len > 0),
        is_shape_dynamic: i32s(raw.shape_signature).any(|d| d == -1),
        is_variable: raw.is_variable,
        quantization,
        is_sparse: raw.sparsity.is_some(),
    };
    // What a class cannot say of the tensor: its buffer index, its zero points.
    let tensor_odd = (raw.buffer != 0 && raw.buffer as usize >= buffer_len.count)
        || counts.is_some_and(|q| q.scales > 0 && q.zero_points != Some(q.scales));
    let rank = raw.shape.len() / 4;
    let class = if rank > Dims::INLINE {
        facts.dims = Dims::new(i32s(raw.shape));
        classes.intern_key(None, facts)?
    } else {
        let mut dims = [0; Dims::INLINE];
        for (d, c) in dims.iter_mut().zip(raw.shape.chunks_exact(4)) {
            *d = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let key = pack_key(&facts, rank, &dims);
        facts.dims = Dims::Inline(rank as u8, dims);
        classes.intern_key(key, facts)?
    };
    Ok(Some(HandTensor {
        class,
        tensor_odd,
        data,
    }))
}

/// Digests a tensor, and adds its FlatBuffer tables to `tables`: itself, its quantization
/// table (and that table's details), its sparsity table, its variant tensors.
fn digest_tensor<H, P>(
    tensor: fb::TensorRef<'_>,
    buffer_len: &BufferLen<'_, H, P>,
    tables: &mut usize,
    odd: &mut OddSink<'_>,
) -> Result<TensorFacts, Error>
where
    H: Fn(u32) -> Data,
    P: Fn(u32) -> Result<Option<usize>, Error>,
{
    *tables += 1 + len_of(tensor.variant_tensors());
    let dims = match tensor.shape().map_err(malformed)? {
        Some(shape) => Dims::new(shape.iter()),
        None => Dims::new(std::iter::empty()),
    };
    let is_shape_dynamic = match tensor.shape_signature().map_err(malformed)? {
        Some(signature) => signature.iter().any(|d| d == -1),
        None => false,
    };
    let buffer = tensor.buffer().map_err(malformed)?;
    let data = buffer_len.of(buffer)?;
    let (quantization, counts) = match tensor.quantization().map_err(malformed)? {
        None => (None, None),
        Some(q) => {
            *tables += 1 + present(q.details());
            let scales = q.scale().map_err(malformed)?;
            let zero_points = q.zero_point().map_err(malformed)?;
            let quantized_dimension = q.quantized_dimension().map_err(malformed)?;
            let scale_count = scales.map_or(0, |s| s.len());
            (
                Some(Quantization {
                    scale_count,
                    first_scale: scales.and_then(|s| s.get(0)),
                    quantized_dimension,
                }),
                Some(QuantizationCounts {
                    scales: scale_count,
                    zero_points: zero_points.map(|z| z.len()),
                    dimension: quantized_dimension,
                }),
            )
        }
    };
    let type_ = tensor.type_().map_err(malformed)?;
    let is_variable = tensor.is_variable().map_err(malformed)?;
    let sparsity = match tensor.sparsity().map_err(malformed)? {
        None => None,
        Some(sparsity) => Some(SparsityFields {
            traversal_order: sparsity.traversal_order().map_err(malformed)?.is_some(),
            dim_metadata: sparsity.dim_metadata().map_err(malformed)?.is_some(),
        }),
    };
    let is_sparse = sparsity.is_some();
    *tables += usize::from(is_sparse);
    odd.check(
        type_,
        dims.as_slice().iter().copied(),
        buffer,
        data,
        is_variable,
        sparsity,
        counts,
    );
    Ok(TensorFacts {
        element_type: ElementType::from_schema(type_).unwrap_or(ElementType::NoType),
        dims,
        // TF: a tensor is constant when its buffer holds data.
        is_const: data.is_some_and(|len| len > 0),
        is_shape_dynamic,
        is_variable,
        quantization,
        is_sparse,
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
pub(crate) fn pool_mark(position: usize) -> Result<u32, Error> {
    u32::try_from(position).map_err(|_| too_many_indices())
}

#[cold]
fn too_many_indices() -> Error {
    DecodeError::TooManyTensorIndices.into()
}

/// [`digest_operator`] from the hand reader's fields: [`HandRead::GaveUp`] (nothing appended)
/// when planus must read the operator instead; the same typed errors otherwise.
#[inline(never)] // for the reason given at `digest_operator`
fn digest_raw_operator<'b>(
    bytes: &'b [u8],
    raw: &RawOperator<'b>,
    at: OperatorLocation,
    codes: &[OperatorCode<'_>],
    tensors: usize,
    out: &mut Digested<'_, 'b>,
) -> Result<HandRead, Error> {
    let opcode_index = raw.opcode_index;
    let code = operator_code(codes, opcode_index, at)?;
    let pool = &mut *out.pool;
    // Nothing to undo below when the range is shared: the pool ends here either way.
    let start = pool.len();
    let range = match out.last_indices.get(opcode_index as usize) {
        Some(&Some(memo))
            if same_bytes(memo.inputs, raw.inputs) && same_bytes(memo.outputs, raw.outputs) =>
        {
            memo.range
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
                return Ok(HandRead::GaveUp);
            }
        };
        tables += usize::from(options.is_some());
        options::read(code.builtin, kind, options)?
    };
    // Only custom options live outside the FlatBuffer in large models.
    let external = if code.is_custom() {
        match raw.large_custom_options_offset(bytes) {
            Some(offset) => external(offset),
            None => {
                pool.truncate(start);
                return Ok(HandRead::GaveUp);
            }
        }
    } else {
        None
    };
    out.tables += tables;
    if let Some(slot) = out.last_indices.get_mut(opcode_index as usize) {
        *slot = Some(IndicesMemo {
            inputs: raw.inputs,
            outputs: raw.outputs,
            range,
        });
    }
    let read = out.options.entry(opcode_index, params, options_present)?;
    out.push(opcode_index, range, read)?;
    Ok(HandRead::Read { external })
}

/// Whether two short byte strings (an options table's vtable or fields) are equal: the same
/// place (FlatBuffer writers share vtables), or the same bytes compared eight at a time,
/// inline (perf: a call to `memcmp` per string showed in profiles of the bench model).
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
/// indices to `pool`; returns where its custom options are kept outside the FlatBuffer, if
/// they are.
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
) -> Result<Option<u64>, Error> {
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
    let external = if code.is_custom() {
        external(operator.large_custom_options_offset().map_err(malformed)?)
    } else {
        None
    };
    out.tables += 1 + present(operator.builtin_options()) + present(operator.builtin_options_2());
    let read = out.options.entry(opcode_index, params, options_present)?;
    out.push(opcode_index, [start, split, end], read)?;
    Ok(external)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{AddParams, Conv2DParams};
    use crate::tensor::TensorSpec;
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
                    (&model.codes, tensors, operators, &model.load, model.tables)
                )
            }
            Err(error) => format!("error: {error}"),
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
