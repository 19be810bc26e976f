//! The FlatBuffer wire format, read by hand: the one place in the crate that reads vtables.
//!
//! A table starts with a signed offset to its vtable; a vtable lists each field's offset in the
//! table (0: absent, the schema's default); vectors and strings are a `u32` length and their
//! elements; every reference is an unsigned offset from where it is stored.
//!
//! Two kinds of callers use it. [`Model::from_bytes`](crate::Model::from_bytes) reads the
//! tables it visits millions of times (operators, tensors, buffers) here instead of through
//! planus' generated readers, which re-derive the vtable and build a rich error value at each
//! field; these readers locate the vtable once per table and make exactly planus' checks for
//! the fields they read (an offset stays inside the buffer, a vtable is at least 4 bytes and of
//! even length, a vector's elements fit in the buffer). Re-stamping ([`stamp`](crate::stamp()))
//! finds the fields it patches here, in a model already validated.
//!
//! Every reader returns `None` where it gives up: the model reader then reads that table again
//! with planus, whose error reports what is malformed (so the two never disagree about a
//! model), and re-stamping reports the field it could not find.

use crate::generated::schema::tflite as fb;

/// Field ids (declaration order) in TF's schema.
pub(crate) const MODEL_VERSION: usize = 0;
pub(crate) const MODEL_OPERATOR_CODES: usize = 1;
pub(crate) const MODEL_SUBGRAPHS: usize = 2;
pub(crate) const MODEL_BUFFERS: usize = 4;
pub(crate) const MODEL_METADATA: usize = 6;
/// The fields of the `Model` table this crate's schema knows.
pub(crate) const MODEL_FIELDS: usize = 8;
pub(crate) const OPERATOR_CODE_DEPRECATED: usize = 0;
pub(crate) const OPERATOR_CODE_CUSTOM: usize = 1;
pub(crate) const OPERATOR_CODE_VERSION: usize = 2;
pub(crate) const OPERATOR_CODE_BUILTIN: usize = 3;
/// The fields of the `OperatorCode` table this crate's schema knows.
pub(crate) const OPERATOR_CODE_FIELDS: usize = 4;
pub(crate) const BUFFER_DATA: usize = 0;
const BUFFER_OFFSET: usize = 1;
pub(crate) const METADATA_NAME: usize = 0;
const SUBGRAPH_TENSORS: usize = 0;
const SUBGRAPH_OPERATORS: usize = 3;
const OPERATOR_OPCODE_INDEX: usize = 0;
const OPERATOR_INPUTS: usize = 1;
const OPERATOR_OUTPUTS: usize = 2;
/// The union's tag; its value is the next slot.
const OPERATOR_BUILTIN_OPTIONS_TYPE: usize = 3;
const OPERATOR_LARGE_CUSTOM_OPTIONS: usize = 9;
const OPERATOR_BUILTIN_OPTIONS_2_TYPE: usize = 11;
const TENSOR_SHAPE: usize = 0;
const TENSOR_TYPE: usize = 1;
const TENSOR_BUFFER: usize = 2;
const TENSOR_QUANTIZATION: usize = 4;
const TENSOR_IS_VARIABLE: usize = 5;
const TENSOR_SPARSITY: usize = 6;
const TENSOR_SHAPE_SIGNATURE: usize = 7;
const TENSOR_VARIANT_TENSORS: usize = 9;
const SPARSITY_TRAVERSAL_ORDER: usize = 0;
const SPARSITY_DIM_METADATA: usize = 2;
const QUANTIZATION_SCALE: usize = 2;
const QUANTIZATION_ZERO_POINT: usize = 3;
/// The union's tag; its value is the next slot.
const QUANTIZATION_DETAILS_TYPE: usize = 4;
const QUANTIZATION_DIMENSION: usize = 6;

pub(crate) fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let bytes = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([bytes[0], bytes[1]]))
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let bytes = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// The position the offset stored at `at` points to (inside the buffer).
pub(crate) fn deref(b: &[u8], at: usize) -> Option<usize> {
    at.checked_add(u32_at(b, at)? as usize)
        .filter(|&target| target < b.len())
}

/// Where a vector's elements are: how many, and where the first one starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) len: usize,
    pub(crate) first: usize,
}

impl Span {
    /// Where element `i`, of `width` bytes each, starts.
    #[inline]
    pub(crate) fn element(&self, i: usize, width: usize) -> Option<usize> {
        (i < self.len).then(|| self.first + width * i)
    }
}

/// A vector field as read: absent (the schema's default, an empty or missing vector), or there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VectorField {
    Absent,
    At(Span),
}

/// A buffer's `data` field as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Data {
    /// No `data` vector.
    Absent,
    /// A `data` vector of this many bytes (perhaps 0).
    Bytes(usize),
    /// The hand reader gave up on it: planus reads it where a tensor needs it, and reports
    /// what is wrong.
    Unreadable,
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
        Self::at(b, at)
    }

    /// The table at position `at`.
    #[inline]
    pub(crate) fn at(b: &'a [u8], at: usize) -> Option<Self> {
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

    /// The model's root table.
    #[inline]
    pub(crate) fn root(b: &'a [u8]) -> Option<Self> {
        Self::at_offset(b, 0)
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

    /// Where field `id` is stored, `None` when it is absent (its default).
    #[inline]
    pub(crate) fn field(&self, id: usize) -> Option<usize> {
        match self.slot(id) {
            0 => None,
            o => self.at.checked_add(o),
        }
    }

    /// Whether a field from id `known` on is present: one newer than the schema.
    pub(crate) fn has_fields_from(&self, known: usize) -> bool {
        (known..self.slots.len() / 2).any(|id| self.slot(id) != 0)
    }

    /// A byte field (`default` when absent).
    #[inline]
    fn u8(&self, b: &[u8], id: usize, default: u8) -> Option<u8> {
        match self.slot(id) {
            0 => Some(default),
            o => b.get(self.at.checked_add(o)?).copied(),
        }
    }

    /// A `uint32` field (`default` when absent).
    #[inline]
    pub(crate) fn u32(&self, b: &[u8], id: usize, default: u32) -> Option<u32> {
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

    /// A vector field of `width`-byte elements. planus' checks: the vector's header is inside
    /// the buffer, and so are its elements.
    #[inline]
    pub(crate) fn vector(&self, b: &[u8], id: usize, width: usize) -> Option<VectorField> {
        match self.slot(id) {
            0 => Some(VectorField::Absent),
            o => {
                let field = self.at.checked_add(o)?;
                let vector = field.checked_add(u32_at(b, field)? as usize)?;
                let len = u32_at(b, vector)? as usize;
                let first = vector + 4;
                let end = first.checked_add(len.checked_mul(width)?)?;
                (end <= b.len()).then_some(VectorField::At(Span { len, first }))
            }
        }
    }

    /// A vector of tables (offsets), absent or present alike: `None` when absent.
    #[inline]
    pub(crate) fn tables(&self, b: &[u8], id: usize) -> Option<Span> {
        match self.vector(b, id, 4)? {
            VectorField::Absent => None,
            VectorField::At(span) => Some(span),
        }
    }

    /// The bytes of a vector of `int32`s (empty when absent).
    #[inline]
    fn int32s(&self, b: &'a [u8], id: usize) -> Option<&'a [u8]> {
        match self.vector(b, id, 4)? {
            VectorField::Absent => Some(&[]),
            VectorField::At(Span { len, first }) => b.get(first..first + 4 * len),
        }
    }
}

/// Where subgraph `s`'s vector at `slot` is.
fn subgraph_vector(b: &[u8], s: usize, slot: usize) -> Option<Span> {
    let root = RawTable::root(b)?;
    let element = root.tables(b, MODEL_SUBGRAPHS)?.element(s, 4)?;
    RawTable::at_offset(b, element)?.tables(b, slot)
}

/// Where the model's `buffers` vector is; `None` when the hand reader gives up.
pub(crate) fn buffers_vector(b: &[u8]) -> Option<VectorField> {
    RawTable::root(b)?.vector(b, MODEL_BUFFERS, 4)
}

/// Where subgraph `s`'s operators vector is.
pub(crate) fn operators_vector(b: &[u8], s: usize) -> Option<Span> {
    subgraph_vector(b, s, SUBGRAPH_OPERATORS)
}

/// Where subgraph `s`'s tensors vector is.
pub(crate) fn tensors_vector(b: &[u8], s: usize) -> Option<Span> {
    subgraph_vector(b, s, SUBGRAPH_TENSORS)
}

/// The fields of a buffer that reading a model needs.
pub(crate) struct RawBuffer {
    pub(crate) data: Data,
    /// `offset`: where the data is in the file when it is kept outside the FlatBuffer (only
    /// valid above 1); 0 when absent.
    pub(crate) offset: u64,
}

impl RawBuffer {
    /// The buffer whose offset is stored at `element`; `None` when the hand reader gives up on
    /// the table or its offset.
    #[inline]
    pub(crate) fn read(b: &[u8], element: usize) -> Option<Self> {
        let buffer = RawTable::at_offset(b, element)?;
        let offset = buffer.u64(b, BUFFER_OFFSET)?;
        let data = match buffer.vector(b, BUFFER_DATA, 1) {
            None => Data::Unreadable,
            Some(VectorField::Absent) => Data::Absent,
            Some(VectorField::At(span)) => Data::Bytes(span.len),
        };
        Some(Self { data, offset })
    }
}

/// Where a union's value is, as planus' `access_union` reads it: its tag, and the table and the
/// slot its value is read from.
#[derive(Clone, Copy)]
pub(crate) struct UnionAt {
    pub(crate) tag: u8,
    table: usize,
    slot: usize,
}

/// A union field whose tag is slot `id` (its value the next slot), as planus' `access_union`
/// reads it: both slots present, the tag read at its slot (at the table's start when absent), a
/// value only for a non-zero tag with both slots set. `Err` for a vtable with the tag slot but
/// not the value slot, or a tag outside the buffer.
fn union(b: &[u8], table: &RawTable<'_>, id: usize) -> Result<Option<UnionAt>, ()> {
    if table.has_slot(id + 1) {
        let (tag_slot, value_slot) = (table.slot(id), table.slot(id + 1));
        let at = table.at.checked_add(tag_slot).ok_or(())?;
        let tag = *b.get(at).ok_or(())?;
        Ok(
            (tag_slot != 0 && value_slot != 0 && tag != 0).then_some(UnionAt {
                tag,
                table: table.at,
                slot: value_slot,
            }),
        )
    } else if table.has_slot(id) {
        Err(())
    } else {
        Ok(None)
    }
}

/// Reads a union value `U` the hand reader located.
pub(crate) fn union_value<'a, U: planus::TableReadUnion<'a>>(
    b: &'a [u8],
    at: UnionAt,
) -> Result<U, planus::errors::ErrorKind> {
    let buffer = b
        .get(at.table..)
        .ok_or(planus::errors::ErrorKind::InvalidOffset)?;
    let object = planus::SliceWithStartOffset {
        buffer,
        offset_from_start: at.table,
    };
    U::from_buffer(object, at.tag, at.slot)
}

/// An operator's fields that [`Model::from_bytes`](crate::Model::from_bytes) reads.
pub(crate) struct RawOperator<'a> {
    pub(crate) opcode_index: u32,
    /// The input tensor indices' bytes (little-endian `int32`s); empty when absent.
    pub(crate) inputs: &'a [u8],
    /// The output tensor indices' bytes.
    pub(crate) outputs: &'a [u8],
    /// The options union, when present with a non-zero tag.
    pub(crate) options: Option<UnionAt>,
    /// The second options union (`builtin_options_2`), the same way; `None` also when its
    /// vtable entry is cut in half (planus refuses it, and it is then not counted).
    pub(crate) options_2: Option<UnionAt>,
    table: RawTable<'a>,
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

/// A tensor's `quantization` table, as read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawQuantization {
    pub(crate) scales: usize,
    pub(crate) first_scale: Option<f32>,
    /// The number of zero points; `None` when the vector is absent.
    pub(crate) zero_points: Option<usize>,
    pub(crate) dimension: i32,
    /// Whether a `details` union member of this crate's schema is there.
    pub(crate) details: bool,
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
    /// The `sparsity` table, when there is one.
    pub(crate) sparsity: Option<SparsityFields>,
    pub(crate) quantization: Option<RawQuantization>,
    /// The length of `variant_tensors` (0 when absent or unreadable).
    pub(crate) variant_tensors: usize,
}

impl<'a> RawTensor<'a> {
    /// Reads the tensor whose offset is stored at `element`.
    #[inline(always)] // into `digest_raw_tensor`, which packs its fields where they are read
    pub(crate) fn read(b: &'a [u8], element: usize) -> Option<Self> {
        let table = RawTable::at_offset(b, element)?;
        let variant_tensors = match table.vector(b, TENSOR_VARIANT_TENSORS, 4) {
            Some(VectorField::At(span)) => span.len,
            _ => 0,
        };
        let shape = table.int32s(b, TENSOR_SHAPE)?;
        let shape_signature = table.int32s(b, TENSOR_SHAPE_SIGNATURE)?;
        let buffer = table.u32(b, TENSOR_BUFFER, 0)?;
        let quantization = match table.field(TENSOR_QUANTIZATION) {
            None => None,
            Some(field) => {
                let q = RawTable::at_offset(b, field)?;
                let (scales, first_scale) = match q.vector(b, QUANTIZATION_SCALE, 4)? {
                    VectorField::Absent => (0, None),
                    VectorField::At(span) => (
                        span.len,
                        span.element(0, 4)
                            .and_then(|at| u32_at(b, at))
                            .map(f32::from_bits),
                    ),
                };
                let zero_points = match q.vector(b, QUANTIZATION_ZERO_POINT, 8)? {
                    VectorField::Absent => None,
                    VectorField::At(span) => Some(span.len),
                };
                let dimension = q.u32(b, QUANTIZATION_DIMENSION, 0)? as i32;
                let details = match union(b, &q, QUANTIZATION_DETAILS_TYPE) {
                    Ok(Some(at)) => union_value::<fb::QuantizationDetailsRef<'_>>(b, at).is_ok(),
                    _ => false,
                };
                Some(RawQuantization {
                    scales,
                    first_scale,
                    zero_points,
                    dimension,
                    details,
                })
            }
        };
        let type_ = table.u8(b, TENSOR_TYPE, 0)? as i8;
        let is_variable = table.u8(b, TENSOR_IS_VARIABLE, 0)? != 0;
        let sparsity = match table.field(TENSOR_SPARSITY) {
            None => None,
            Some(field) => {
                let sparsity = RawTable::at_offset(b, field)?;
                let present = |id| -> Option<bool> {
                    Some(sparsity.vector(b, id, 4)? != VectorField::Absent)
                };
                Some(SparsityFields {
                    traversal_order: present(SPARSITY_TRAVERSAL_ORDER)?,
                    dim_metadata: present(SPARSITY_DIM_METADATA)?,
                })
            }
        };
        Some(Self {
            shape,
            shape_signature,
            type_,
            buffer,
            is_variable,
            sparsity,
            quantization,
            variant_tensors,
        })
    }
}

/// Which of its vectors a tensor's `sparsity` table has: TFLite's interpreter builder refuses a
/// constant whose table lacks either ("Invalid sparsity parameter.").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SparsityFields {
    pub(crate) traversal_order: bool,
    pub(crate) dim_metadata: bool,
}

/// The `int32`s of a vector's bytes.
#[inline]
pub(crate) fn i32s(bytes: &[u8]) -> impl ExactSizeIterator<Item = i32> + Clone + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}
