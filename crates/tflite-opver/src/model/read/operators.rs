//! Reading a subgraph's operators: each by hand where it can be ([`RawOperator`]), by planus
//! otherwise, into its facts, its pooled tensor indices and its form ([`forms`](crate::model::forms)).

use crate::error::{DecodeError, Error, malformed};
use crate::generated::schema::tflite as fb;
use crate::model::forms::{FormKey, FormTable};
use crate::model::load_facts::{MissingOptions, OPTIONS_NEEDED, has_needed_options};
use crate::model::pool::{pool_mark, too_many_indices};
use crate::model::subgraph::{OperatorFacts, Subgraph};
use crate::model::wire::{RawOperator, Span, i32s, union_value};
use crate::model::{OperatorCode, OperatorLocation};
use crate::operator::options;
use crate::params::{OptionsKind, Params};

use super::fields::{earliest, external, missing, present};

/// Where a subgraph's operators go while it is read: their facts, the tensor index pool, and
/// their forms ([`forms`](crate::model::forms)).
struct Digested<'p, 'b> {
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
    /// ([`Model::flatbuffer_tables`](crate::Model::flatbuffer_tables)).
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
    /// was found by hand too (`wire`), and by planus otherwise or when the hand reader gives up,
    /// so planus' error names whatever is malformed.
    ///
    /// A loop of its own: inside [`Model::from_bytes`](crate::Model::from_bytes), planus'
    /// iterator over the operators was not inlined and handed each operator back through memory
    /// (perf, bench model).
    pub(super) fn read_operators(
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
            forms: FormTable::new(codes.len()),
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
        // The pool may have started as the buffer lengths' allocation (`BufferLens::into_pool`),
        // larger than it needs.
        self.indices.shrink_to_fit();
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
/// inlined into [`Model::from_bytes`](crate::Model::from_bytes) it left no inlining budget for
/// planus' small readers (perf on the bench model of a million operators).
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

fn unknown_union_tag(error: &planus::Error) -> bool {
    matches!(
        error.error_kind,
        planus::errors::ErrorKind::UnknownUnionTag { .. }
    )
}
