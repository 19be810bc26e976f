//! Reading a subgraph's tensors: each by hand where it can be ([`RawTensor`]), by planus
//! otherwise, into its class ([`classes`](crate::model::classes)), keeping aside the few tensors some
//! runtime may refuse ([`OddSink`]).

use crate::error::{Error, malformed};
use crate::generated::schema::tflite as fb;
use crate::model::classes::{Dims, TensorClasses, TensorFacts, pack_key};
use crate::model::load_facts::{OddTensor, QuantizationCounts, is_odd};
use crate::model::wire::{Data, RawTensor, SparsityFields, i32s};
use crate::operator::tensor::{ElementType, Quantization};

use super::buffers::BufferLen;
use super::fields::{len_of, present};

/// Where a tensor some runtime may refuse goes, with where it is and the buffers it may name.
pub(super) struct OddSink<'o> {
    pub(super) odd: &'o mut Vec<OddTensor>,
    pub(super) subgraph: usize,
    pub(super) index: usize,
    pub(super) buffers: usize,
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
    pub(super) fn keep_raw(&mut self, bytes: &[u8], element: usize, data: Option<usize>) {
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
/// refuse it ([`ClassLoad`](crate::model::classes::ClassLoad)).
pub(super) struct HandTensor {
    pub(super) class: u32,
    /// Its buffer index is past the buffers, or its zero points are not one per scale.
    pub(super) tensor_odd: bool,
    /// Its data's length; `None` without data.
    pub(super) data: Option<usize>,
}

/// One function from the tensor's bytes to its class, with the reader inlined: its facts are
/// packed into their key where they are read (perf, on a model of 3.4 million tensors:
/// handing the reader's fields, then the facts, back through memory stalled on each tensor).
#[inline(never)]
pub(super) fn digest_raw_tensor<P>(
    bytes: &[u8],
    element: usize,
    buffer_len: &BufferLen<'_, P>,
    tables: &mut usize,
    classes: &mut TensorClasses,
) -> Result<Option<HandTensor>, Error>
where
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
    let facts = TensorFacts {
        element_type: ElementType::from_schema(raw.type_).unwrap_or(ElementType::NoType),
        // Its shape goes into its key below, and into its facts only if its class is new.
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
        let dims = Dims::new(i32s(raw.shape));
        classes.intern_key(None, || TensorFacts { dims, ..facts })?
    } else {
        let mut dims = [0; Dims::INLINE];
        for (d, c) in dims.iter_mut().zip(raw.shape.chunks_exact(4)) {
            *d = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let key = pack_key(&facts, rank, &dims);
        let dims = Dims::Inline(rank as u8, dims);
        classes.intern_key(key, || TensorFacts { dims, ..facts })?
    };
    Ok(Some(HandTensor {
        class,
        tensor_odd,
        data,
    }))
}

/// Digests a tensor, and adds its FlatBuffer tables to `tables`: itself, its quantization
/// table (and that table's details), its sparsity table, its variant tensors.
pub(super) fn digest_tensor<P>(
    tensor: fb::TensorRef<'_>,
    buffer_len: &BufferLen<'_, P>,
    tables: &mut usize,
    odd: &mut OddSink<'_>,
) -> Result<TensorFacts, Error>
where
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
