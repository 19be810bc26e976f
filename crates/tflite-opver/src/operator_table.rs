//! The operator and tensor tables of a model, read by hand: the hot loops of
//! [`Model::from_bytes`].
//!
//! planus reads every field through a general table reader that re-derives the vtable and
//! builds a rich error value at each access; on the bench's model of a million operators,
//! walking each operator's opcode index and tensor indices that way took 49 ms, and this
//! reader, which locates the vtable once per operator, 10 ms. It reads only what
//! [`Model::from_bytes`](crate::Model::from_bytes) needs from an operator (opcode index,
//! input and output tensor indices, where the options union sits, the large custom options
//! offset), with exactly planus' checks for those fields: an offset stays inside the buffer,
//! a vtable is at least 4 bytes and of even length, a vector's elements fit in the buffer.
//! Whatever it cannot read (`None`) is read again by planus, whose error then reports it, so
//! the two readers never disagree about a model. The options tables themselves are read by
//! planus' generated readers, from the position found here.

use crate::layout::{
    MODEL_BUFFERS, MODEL_SUBGRAPHS, OPERATOR_BUILTIN_OPTIONS_2_TYPE, OPERATOR_BUILTIN_OPTIONS_TYPE,
    OPERATOR_INPUTS, OPERATOR_LARGE_CUSTOM_OPTIONS, OPERATOR_OPCODE_INDEX, OPERATOR_OUTPUTS,
    SUBGRAPH_OPERATORS, SUBGRAPH_TENSORS,
};

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let bytes = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([bytes[0], bytes[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let bytes = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// A table located in the buffer: its position and its vtable's field slots (after the two
/// size fields), as planus' `Table::from_buffer` checks them.
#[derive(Clone, Copy)]
pub(crate) struct RawTable<'a> {
    /// Position of the table (its signed offset to the vtable).
    pub(crate) at: usize,
    /// The vtable's field slots: two bytes each.
    slots: &'a [u8],
}

impl<'a> RawTable<'a> {
    /// The table an offset stored at `field` points to.
    #[inline]
    pub(crate) fn at_offset(b: &'a [u8], field: usize) -> Option<Self> {
        let at = field.checked_add(u32_at(b, field)? as usize)?;
        // planus: the table (its start) must be inside the buffer.
        if at > b.len() {
            return None;
        }
        let relative = u32_at(b, at)? as i32;
        let vtable = usize::try_from((at as i64).checked_sub(i64::from(relative))?).ok()?;
        let size = usize::from(u16_at(b, vtable)?);
        if size < 4 || size % 2 != 0 {
            return None;
        }
        let slots = b.get(vtable..vtable.checked_add(size)?)?.get(4..)?;
        Some(Self { at, slots })
    }

    /// The offset of field slot `id` within the table; 0 when absent.
    #[inline]
    fn slot(&self, id: usize) -> usize {
        match self.slots.get(2 * id..2 * id + 2) {
            Some(s) => usize::from(u16::from_le_bytes([s[0], s[1]])),
            None => 0,
        }
    }

    /// Whether the vtable has slot `id` at all.
    #[inline]
    fn has_slot(&self, id: usize) -> bool {
        self.slots.len() > 2 * id
    }

    /// A `uint32` field (`default` when absent).
    #[inline]
    fn u32(&self, b: &[u8], id: usize, default: u32) -> Option<u32> {
        match self.slot(id) {
            0 => Some(default),
            o => u32_at(b, self.at.checked_add(o)?),
        }
    }

    /// A `uint64` field (0 when absent).
    #[inline]
    fn u64(&self, b: &[u8], id: usize) -> Option<u64> {
        match self.slot(id) {
            0 => Some(0),
            o => {
                let at = self.at.checked_add(o)?;
                let bytes: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
                Some(u64::from_le_bytes(bytes))
            }
        }
    }

    /// A vector field of 4-byte elements (offsets or `int32`s): its length and the position
    /// of its first element, `Some(None)` when absent. planus' checks: the vector's header is
    /// inside the buffer, and so are its elements.
    #[inline]
    fn vector(&self, b: &[u8], id: usize) -> Option<Option<(usize, usize)>> {
        match self.slot(id) {
            0 => Some(None),
            o => {
                let field = self.at.checked_add(o)?;
                let vector = field.checked_add(u32_at(b, field)? as usize)?;
                let len = u32_at(b, vector)? as usize;
                let first = vector + 4;
                let end = first.checked_add(len.checked_mul(4)?)?;
                (end <= b.len()).then_some(Some((len, first)))
            }
        }
    }

    /// The bytes of a vector of `int32`s (empty when absent).
    #[inline]
    fn int32s(&self, b: &'a [u8], id: usize) -> Option<&'a [u8]> {
        match self.vector(b, id)? {
            None => Some(&[]),
            Some((len, first)) => b.get(first..first + 4 * len),
        }
    }
}

/// Where subgraph `s`'s vector at `slot` is: (length, position of the first offset).
fn subgraph_vector(b: &[u8], s: usize, slot: usize) -> Option<(usize, usize)> {
    let root = RawTable::at_offset(b, 0)?;
    let (count, first) = root.vector(b, MODEL_SUBGRAPHS)??;
    if s >= count {
        return None;
    }
    let subgraph = RawTable::at_offset(b, first + 4 * s)?;
    subgraph.vector(b, slot)?
}

/// Where the model's `buffers` vector is: `Some(None)` when it has none, `None` when the hand
/// reader gives up.
pub(crate) fn buffers_vector(b: &[u8]) -> Option<Option<(usize, usize)>> {
    RawTable::at_offset(b, 0)?.vector(b, MODEL_BUFFERS)
}

/// The length of buffer `index`'s `data` in the `buffers` vector at `buffers` (`Some(None)`
/// when the buffer or its data is absent), as planus reads it; `None` when the hand reader
/// gives up.
pub(crate) fn buffer_data_len(
    b: &[u8],
    (count, first): (usize, usize),
    index: u32,
) -> Option<Option<usize>> {
    let index = index as usize;
    if index >= count {
        return Some(None);
    }
    let buffer = RawTable::at_offset(b, first.checked_add(index.checked_mul(4)?)?)?;
    data_len(b, &buffer)
}

/// The fields of the buffer whose offset is stored at `element`: its `data` length (as
/// [`buffer_data_len`] reads it) and its `offset` (0 when absent); `None` when the hand
/// reader gives up on the table or the offset.
#[inline]
pub(crate) fn buffer_fields(b: &[u8], element: usize) -> Option<(Option<Option<usize>>, u64)> {
    let buffer = RawTable::at_offset(b, element)?;
    // Buffer slots (schema.fbs): data 0, offset 1, size 2.
    let offset = buffer.u64(b, 1)?;
    Some((data_len(b, &buffer), offset))
}

/// A buffer's `data` length: `Some(None)` when absent, `None` when the vector is not inside
/// the buffer (planus' check).
#[inline]
fn data_len(b: &[u8], buffer: &RawTable<'_>) -> Option<Option<usize>> {
    // Buffer slot 0: `data`, a vector of bytes.
    match buffer.slot(0) {
        0 => Some(None),
        o => {
            let field = buffer.at.checked_add(o)?;
            let vector = field.checked_add(u32_at(b, field)? as usize)?;
            let len = u32_at(b, vector)? as usize;
            let end = (vector + 4).checked_add(len)?;
            (end <= b.len()).then_some(Some(len))
        }
    }
}

/// Where subgraph `s`'s operators vector is: (length, position of the first offset).
pub(crate) fn operators_vector(b: &[u8], s: usize) -> Option<(usize, usize)> {
    subgraph_vector(b, s, SUBGRAPH_OPERATORS)
}

/// Where subgraph `s`'s tensors vector is: (length, position of the first offset).
pub(crate) fn tensors_vector(b: &[u8], s: usize) -> Option<(usize, usize)> {
    subgraph_vector(b, s, SUBGRAPH_TENSORS)
}

/// An operator's fields that [`Model::from_bytes`](crate::Model::from_bytes) reads.
pub(crate) struct RawOperator<'a> {
    pub(crate) opcode_index: u32,
    /// The input tensor indices' bytes (little-endian `int32`s); empty when absent.
    pub(crate) inputs: &'a [u8],
    /// The output tensor indices' bytes.
    pub(crate) outputs: &'a [u8],
    /// The options union: its tag and where planus reads its value from (the operator table
    /// and the value's slot offset), when present with a non-zero tag.
    pub(crate) options: Option<(u8, usize, usize)>,
    /// The second options union (`builtin_options_2`), the same way; `None` also when its
    /// vtable entry is cut in half (planus refuses it, and it is then not counted).
    pub(crate) options_2: Option<(u8, usize, usize)>,
    pub(crate) table: RawTable<'a>,
}

impl<'a> RawOperator<'a> {
    /// Reads the operator whose offset is stored at `element`; `None` on anything planus
    /// would refuse (or anything this reader does not handle).
    #[inline]
    pub(crate) fn read(b: &'a [u8], element: usize) -> Option<Self> {
        let table = RawTable::at_offset(b, element)?;
        let opcode_index = table.u32(b, OPERATOR_OPCODE_INDEX, 0)?;
        let inputs = table.int32s(b, OPERATOR_INPUTS)?;
        let outputs = table.int32s(b, OPERATOR_OUTPUTS)?;
        // A cut union entry in the first options is an error planus reports.
        let options = union(b, &table, OPERATOR_BUILTIN_OPTIONS_TYPE).ok()?;
        let options_2 = union(b, &table, OPERATOR_BUILTIN_OPTIONS_2_TYPE)
            .ok()
            .flatten();
        Some(Self {
            opcode_index,
            inputs,
            outputs,
            options,
            options_2,
            table,
        })
    }

    /// `large_custom_options_offset` (0 when absent); `None` when unreadable.
    pub(crate) fn large_custom_options_offset(&self, b: &[u8]) -> Option<u64> {
        self.table.u64(b, OPERATOR_LARGE_CUSTOM_OPTIONS)
    }
}

/// A union field whose tag is slot `id` (its value the next slot), as planus'
/// `access_union` reads it: both slots present, the tag read at its slot (at the table's
/// start when absent), a value only for a non-zero tag with both slots set. `Err` for a vtable
/// with the tag slot but not the value slot, or a tag outside the buffer.
fn union(b: &[u8], table: &RawTable<'_>, id: usize) -> Result<Option<(u8, usize, usize)>, ()> {
    if table.has_slot(id + 1) {
        let (tag_slot, value_slot) = (table.slot(id), table.slot(id + 1));
        let at = table.at.checked_add(tag_slot).ok_or(())?;
        let tag = *b.get(at).ok_or(())?;
        Ok((tag_slot != 0 && value_slot != 0 && tag != 0).then_some((tag, table.at, value_slot)))
    } else if table.has_slot(id) {
        Err(())
    } else {
        Ok(None)
    }
}

/// Reads a union value `U` the hand reader located: `(tag, table, slot)`.
pub(crate) fn union_value<'a, U: planus::TableReadUnion<'a>>(
    b: &'a [u8],
    (tag, table, slot): (u8, usize, usize),
) -> Result<U, planus::errors::ErrorKind> {
    let buffer = b
        .get(table..)
        .ok_or(planus::errors::ErrorKind::InvalidOffset)?;
    let object = planus::SliceWithStartOffset {
        buffer,
        offset_from_start: table,
    };
    U::from_buffer(object, tag, slot)
}

/// The bytes an options table's scalar fields are read from: its vtable, and the table after
/// its offset to the vtable, up to 8 bytes past its last field (`None` when any of it is
/// outside the buffer). Two options tables with equal bytes, read by planus' generated
/// readers (which read scalars only, at most 8 bytes each, through the vtable), give equal
/// values; where each sits, and so its offset to its vtable, does not matter.
///
/// `known`: the vtable an earlier call found (its position and bytes); a table that uses the
/// same one (FlatBuffer writers share vtables) has the same extent, not measured again.
/// Returns the vtable's position too.
#[inline]
pub(crate) fn options_bytes<'b>(
    b: &'b [u8],
    (_, table, slot): (u8, usize, usize),
    known: Option<(usize, &'b [u8], usize)>,
) -> Option<(usize, &'b [u8], &'b [u8])> {
    let field = table.checked_add(slot)?;
    let at = field.checked_add(u32_at(b, field)? as usize)?;
    let relative = u32_at(b, at)? as i32;
    let vtable = usize::try_from((at as i64).checked_sub(i64::from(relative))?).ok()?;
    if let Some((known_at, vtable_bytes, table_len)) = known
        && known_at == vtable
    {
        let table_bytes = b.get(at.checked_add(4)?..at.checked_add(4 + table_len)?)?;
        return Some((vtable, vtable_bytes, table_bytes));
    }
    let vtable_size = usize::from(u16_at(b, vtable)?);
    if vtable_size < 4 || vtable_size % 2 != 0 {
        return None;
    }
    let vtable_bytes = b.get(vtable..vtable.checked_add(vtable_size)?)?;
    // A loop, not an iterator chain: its `reduce` was not inlined (perf, bench model).
    let mut end = 4;
    for o in vtable_bytes[4..].chunks_exact(2) {
        let o = usize::from(u16::from_le_bytes([o[0], o[1]]));
        if o != 0 {
            end = end.max(o + 8);
        }
    }
    let table_bytes = b.get(at.checked_add(4)?..at.checked_add(end)?)?;
    Some((vtable, vtable_bytes, table_bytes))
}

/// A tensor's fields that [`Model::from_bytes`](crate::Model::from_bytes) reads, read the
/// same way as [`RawOperator`]: `None` wherever planus would refuse a field it reads, and
/// planus reads the tensor again.
pub(crate) struct RawTensor<'a> {
    /// `shape`'s `int32` bytes (empty when absent).
    pub(crate) shape: &'a [u8],
    /// `shape_signature`'s `int32` bytes (empty when absent).
    pub(crate) shape_signature: &'a [u8],
    pub(crate) type_: i8,
    pub(crate) buffer: u32,
    pub(crate) is_variable: bool,
    /// Whether a (readable) `sparsity` table is there.
    pub(crate) sparse: bool,
    /// `quantization`: the number of scales, the first one, `quantized_dimension`, and whether
    /// a `details` union member of our schema is there.
    pub(crate) quantization: Option<(usize, Option<f32>, i32, bool)>,
    /// The length of `variant_tensors` (0 when absent or unreadable).
    pub(crate) variant_tensors: usize,
}

impl<'a> RawTensor<'a> {
    /// Reads the tensor whose offset is stored at `element`.
    #[inline(always)] // into `digest_raw_tensor`, which packs its fields where they are read
    pub(crate) fn read(b: &'a [u8], element: usize) -> Option<Self> {
        // Tensor slots (schema.fbs): shape 0, type 1, buffer 2, name 3, quantization 4,
        // is_variable 5, sparsity 6, shape_signature 7, has_rank 8, variant_tensors 9.
        let table = RawTable::at_offset(b, element)?;
        let variant_tensors = match table.vector(b, 9) {
            Some(Some((len, _))) => len,
            _ => 0,
        };
        let shape = table.int32s(b, 0)?;
        let shape_signature = table.int32s(b, 7)?;
        let buffer = table.u32(b, 2, 0)?;
        let quantization = match table.slot(4) {
            0 => None,
            o => {
                let q = RawTable::at_offset(b, table.at.checked_add(o)?)?;
                // QuantizationParameters slots: scale 2, details 4 (union), quantized_dimension 6.
                let (count, first) = match q.vector(b, 2)? {
                    None => (0, None),
                    Some((len, at)) => (
                        len,
                        (len > 0)
                            .then(|| u32_at(b, at))
                            .flatten()
                            .map(f32::from_bits),
                    ),
                };
                let dimension = q.u32(b, 6, 0)? as i32;
                let details = match union(b, &q, 4) {
                    Ok(Some(at)) => union_value::<
                        crate::generated::schema::tflite::QuantizationDetailsRef<'_>,
                    >(b, at)
                    .is_ok(),
                    _ => false,
                };
                Some((count, first, dimension, details))
            }
        };
        let type_ = match table.slot(1) {
            0 => 0,
            o => *b.get(table.at.checked_add(o)?)? as i8,
        };
        let is_variable = match table.slot(5) {
            0 => false,
            o => *b.get(table.at.checked_add(o)?)? != 0,
        };
        let sparse = match table.slot(6) {
            0 => false,
            o => {
                RawTable::at_offset(b, table.at.checked_add(o)?)?;
                true
            }
        };
        Some(Self {
            shape,
            shape_signature,
            type_,
            buffer,
            is_variable,
            sparse,
            quantization,
            variant_tensors,
        })
    }
}

/// The `int32`s of a vector's bytes.
#[inline]
pub(crate) fn i32s(bytes: &[u8]) -> impl Iterator<Item = i32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}
