//! Tensors as TensorFlow Lite's version rules see them: an element type, a shape, and the few
//! facts (constness, quantization, sparsity) an op's rules test.
//!
//! [`ElementType`] is TF's `TfLiteType`; [`TensorSpec`] is TF's `OpSignatureTensorSpec` plus
//! the tensor facts its op-specific rules read. Both sit below operator options
//! ([`Params`](crate::params::Params) holds an `ElementType` for quantized bias types) and
//! signatures (an [`OpSignature`](crate::OpSignature) holds one `TensorSpec` per input and
//! output).

/// A tensor's element type: TF's `TfLiteType`, which the version rules compare against.
///
/// The schema's `TensorType` byte converts to it with [`ElementType::from_schema`] (TF's
/// `ConvertTensorType`); [`ElementType::NoType`] marks an absent optional input (tensor index
/// -1) or a type byte this crate does not know, as in TF.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[allow(missing_docs)] // TF's names
pub enum ElementType {
    /// `kTfLiteNoType`: no tensor (absent optional input) or an unknown type.
    #[default]
    NoType,
    Float32,
    Int32,
    UInt8,
    Int64,
    String,
    Bool,
    Int16,
    Complex64,
    Int8,
    Float16,
    Float64,
    Complex128,
    UInt64,
    Resource,
    Variant,
    UInt32,
    UInt16,
    Int4,
    BFloat16,
}

impl ElementType {
    /// TF's `ConvertTensorType`: a schema `TensorType` value (`FLOAT32 = 0` ... `BFLOAT16 =
    /// 18`, `schema.fbs`) to the runtime type; `None` for a value the schema does not define.
    pub fn from_schema(value: i8) -> Option<Self> {
        Some(match value {
            0 => Self::Float32,
            1 => Self::Float16,
            2 => Self::Int32,
            3 => Self::UInt8,
            4 => Self::Int64,
            5 => Self::String,
            6 => Self::Bool,
            7 => Self::Int16,
            8 => Self::Complex64,
            9 => Self::Int8,
            10 => Self::Float64,
            11 => Self::Complex128,
            12 => Self::UInt64,
            13 => Self::Resource,
            14 => Self::Variant,
            15 => Self::UInt32,
            16 => Self::UInt16,
            17 => Self::Int4,
            18 => Self::BFloat16,
            _ => return None,
        })
    }

    /// The bits one element takes in a constant tensor's buffer; `None` for types whose data has
    /// no fixed size (strings, resources, variants) and [`ElementType::NoType`].
    pub(crate) fn bits(self) -> Option<u8> {
        Some(match self {
            Self::Int4 => 4,
            Self::UInt8 | Self::Int8 | Self::Bool => 8,
            Self::Int16 | Self::UInt16 | Self::Float16 | Self::BFloat16 => 16,
            Self::Float32 | Self::Int32 | Self::UInt32 => 32,
            Self::Int64 | Self::UInt64 | Self::Float64 | Self::Complex64 => 64,
            Self::Complex128 => 128,
            Self::String | Self::Resource | Self::Variant | Self::NoType => return None,
        })
    }

    /// The schema's `TensorType` value, or `None` for [`ElementType::NoType`].
    pub fn to_schema(self) -> Option<i8> {
        (0..=18).find(|&v| Self::from_schema(v) == Some(self))
    }

    /// The schema's name (`"FLOAT32"`, `"INT8"`...), or `"NOTYPE"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::NoType => "NOTYPE",
            Self::Float32 => "FLOAT32",
            Self::Int32 => "INT32",
            Self::UInt8 => "UINT8",
            Self::Int64 => "INT64",
            Self::String => "STRING",
            Self::Bool => "BOOL",
            Self::Int16 => "INT16",
            Self::Complex64 => "COMPLEX64",
            Self::Int8 => "INT8",
            Self::Float16 => "FLOAT16",
            Self::Float64 => "FLOAT64",
            Self::Complex128 => "COMPLEX128",
            Self::UInt64 => "UINT64",
            Self::Resource => "RESOURCE",
            Self::Variant => "VARIANT",
            Self::UInt32 => "UINT32",
            Self::UInt16 => "UINT16",
            Self::Int4 => "INT4",
            Self::BFloat16 => "BFLOAT16",
        }
    }
}

/// What a tensor's `QuantizationParameters` table says, in the terms TF's rules use.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Quantization {
    /// Number of entries in `scale` (0 when the vector is absent or empty). One scale is
    /// per-tensor quantization; one per channel of `quantized_dimension` is per-channel.
    pub scale_count: usize,
    /// `scale[0]`, if there is one.
    pub first_scale: Option<f32>,
    /// The dimension the scales run along.
    pub quantized_dimension: i32,
}

impl Quantization {
    /// A per-tensor quantization with one scale.
    pub fn per_tensor(scale: f32) -> Self {
        Self {
            scale_count: 1,
            first_scale: Some(scale),
            quantized_dimension: 0,
        }
    }

    /// A per-channel quantization: `channels` scales along `dimension`.
    pub fn per_channel(channels: usize, dimension: i32) -> Self {
        Self {
            scale_count: channels,
            first_scale: (channels > 0).then_some(1.0),
            quantized_dimension: dimension,
        }
    }
}

/// One input or output of an operator: TF's `OpSignatureTensorSpec` plus the tensor facts
/// its op-specific rules read (quantization, sparsity).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TensorSpec {
    /// Element type; [`ElementType::NoType`] for an absent optional input.
    pub element_type: ElementType,
    /// The `shape` field (empty for scalars, absent shapes and absent inputs).
    pub dims: Vec<i32>,
    /// The tensor has a non-empty constant buffer.
    pub is_const: bool,
    /// `shape_signature` has a -1: some dimension is only known at run time.
    pub is_shape_dynamic: bool,
    /// The tensor is a variable (`is_variable`).
    pub is_variable: bool,
    /// The quantization table, if the tensor has one (even an empty one: TF's ADD, ABS and MUL
    /// rules only ask whether the table exists).
    pub quantization: Option<Quantization>,
    /// The tensor has a `sparsity` table.
    pub is_sparse: bool,
    /// The subgraph tensor index; `None` for an absent optional input (index -1) and for
    /// hand-built specs.
    pub tensor_index: Option<u32>,
}

impl TensorSpec {
    /// A non-constant, unquantized tensor of `element_type` and shape `dims`.
    pub fn new(element_type: ElementType, dims: &[i32]) -> Self {
        Self {
            element_type,
            dims: dims.to_vec(),
            ..Self::default()
        }
    }

    /// The spec of an absent optional input (tensor index -1 in the model): no type, no dims.
    pub fn absent() -> Self {
        Self::default()
    }

    /// Whether this is an absent optional input.
    pub fn is_absent(&self) -> bool {
        self.element_type == ElementType::NoType && self.tensor_index.is_none()
    }

    /// The same tensor marked constant.
    pub fn constant(mut self) -> Self {
        self.is_const = true;
        self
    }

    /// The same tensor with quantization parameters.
    pub fn quantized(mut self, quantization: Quantization) -> Self {
        self.quantization = Some(quantization);
        self
    }

    /// The same tensor marked sparse.
    pub fn sparse(mut self) -> Self {
        self.is_sparse = true;
        self
    }

    /// The same tensor with a dynamic shape.
    pub fn dynamic(mut self) -> Self {
        self.is_shape_dynamic = true;
        self
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    pub(crate) fn dim(&self, i: usize) -> Option<i32> {
        self.dims.get(i).copied()
    }

    pub(crate) fn scale_count(&self) -> usize {
        self.quantization.map_or(0, |q| q.scale_count)
    }

    /// TF's per-channel test for QUANTIZE / DEQUANTIZE: more than one scale, and as many as
    /// the quantized dimension is long.
    pub(crate) fn is_per_channel_along_quantized_dimension(&self) -> bool {
        let Some(q) = self.quantization else {
            return false;
        };
        let len = usize::try_from(q.quantized_dimension)
            .ok()
            .and_then(|d| self.dim(d));
        q.scale_count > 1 && len.is_some_and(|n| size_equal(q.scale_count, n))
    }
}

/// TF's `IsTensorSizeEqual`: a non-negative dimension equal to a count.
pub(crate) fn size_equal(count: usize, dim: i32) -> bool {
    usize::try_from(dim).is_ok_and(|d| d == count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_types_round_trip() {
        for v in 0..=18 {
            let t = ElementType::from_schema(v).expect("defined");
            assert_eq!(t.to_schema(), Some(v));
        }
        assert_eq!(ElementType::from_schema(19), None);
        assert_eq!(ElementType::from_schema(-1), None);
        assert_eq!(ElementType::NoType.to_schema(), None);
        assert_eq!(ElementType::from_schema(9), Some(ElementType::Int8));
        assert_eq!(ElementType::Int4.name(), "INT4");
    }
}
