//! Op signatures: what TensorFlow Lite's version rules look at for one operator.

use crate::operator::code::BuiltinOperator;
use crate::operator::tensor::{ElementType, TensorSpec, size_equal};
use crate::params::Params;

/// Facts TF derives from an operator's tensors for particular ops (TF's `ext_options` in
/// `op_signature.cc`); all false / zero for other ops.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SignatureFacts {
    /// CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED / QUANTIZE / DEQUANTIZE /
    /// EMBEDDING_LOOKUP: the weights (or the quantized tensor) have one scale per channel.
    pub is_per_channel_quantized: bool,
    /// CONV_2D: the input has a different channel count than the filter (grouped conv).
    pub is_grouped_convolution: bool,
    /// FULLY_CONNECTED: the weights tensor is sparse.
    pub sparse_weight: bool,
    /// ADD / ABS / MUL: an input carries a quantization table.
    pub input_quantized: bool,
    /// MUL: the first scale of input 1, input 2 and output (0 when any is missing).
    pub mul_scales: [f32; 3],
    /// STRIDED_SLICE: rank of the input.
    pub num_dims: usize,
}

impl SignatureFacts {
    /// Derives the facts for `op` from its tensors, as TF's `GetOpSignature` does.
    ///
    /// Where TF would index past a missing tensor or dimension (and crash), the fact is false.
    #[allow(clippy::collapsible_match)] // one arm per op, like TF's switch
    #[inline]
    pub fn derive(op: BuiltinOperator, inputs: &[TensorSpec], outputs: &[TensorSpec]) -> Self {
        type B = BuiltinOperator;
        let mut facts = Self::default();
        let input = |i: usize| inputs.get(i).filter(|t| !t.is_absent());
        match op {
            B::DEPTHWISE_CONV_2D => {
                if let Some(filter) = input(1) {
                    let channels = filter.dim(3).unwrap_or(0);
                    facts.is_per_channel_quantized = filter.quantization.is_some()
                        && channels > 0
                        && size_equal(filter.scale_count(), channels);
                }
            }
            B::CONV_2D => {
                if let Some(filter) = input(1) {
                    let filters = filter.dim(0).unwrap_or(0);
                    facts.is_per_channel_quantized = filter.quantization.is_some()
                        && filters > 0
                        && size_equal(filter.scale_count(), filters);
                    if let Some(x) = input(0).filter(|x| !x.dims.is_empty()) {
                        facts.is_grouped_convolution = x.dim(3) != filter.dim(3);
                    }
                }
            }
            B::FULLY_CONNECTED => {
                if let Some(weights) = input(1) {
                    facts.sparse_weight = weights.is_sparse;
                    if weights.scale_count() > 0 && !weights.dims.is_empty() {
                        facts.is_per_channel_quantized = weights
                            .dim(0)
                            .is_some_and(|n| size_equal(weights.scale_count(), n));
                    }
                }
            }
            B::EMBEDDING_LOOKUP => {
                if let Some(table) = input(1) {
                    let n = table.scale_count();
                    if n > 0 && !table.dims.is_empty() {
                        facts.is_per_channel_quantized =
                            n > 1 && table.dim(0).is_some_and(|d| size_equal(n, d));
                    }
                }
            }
            B::MUL => {
                if inputs.len() >= 2 && !outputs.is_empty() {
                    let first = |t: Option<&TensorSpec>| {
                        t.and_then(|t| t.quantization)
                            .filter(|q| q.scale_count > 0)
                            .and_then(|q| q.first_scale)
                    };
                    if let (Some(a), Some(b), Some(c)) =
                        (first(input(0)), first(input(1)), first(outputs.first()))
                    {
                        facts.mul_scales = [a, b, c];
                    }
                    facts.input_quantized = input(0).is_some_and(|t| t.quantization.is_some())
                        || input(1).is_some_and(|t| t.quantization.is_some());
                }
            }
            B::ADD | B::ABS => {
                facts.input_quantized = input(0).is_some_and(|t| t.quantization.is_some());
            }
            B::STRIDED_SLICE => {
                facts.num_dims = input(0).map_or(0, TensorSpec::rank);
            }
            B::DEQUANTIZE => {
                facts.is_per_channel_quantized =
                    input(0).is_some_and(TensorSpec::is_per_channel_along_quantized_dimension);
            }
            B::QUANTIZE => {
                facts.is_per_channel_quantized = outputs
                    .first()
                    .is_some_and(TensorSpec::is_per_channel_along_quantized_dimension);
            }
            _ => {}
        }
        facts
    }
}

/// Everything TF's version rules look at for one operator.
///
/// An [`OpSignature`] is TF's `OpSignature` (`tensorflow/compiler/mlir/lite/tools/versioning/
/// op_signature.h`): the builtin operator, one [`TensorSpec`] per input and output (type, dims,
/// constness, dynamic shape), the operator's [`Params`], and the handful of facts TF derives
/// from the tensors' quantization and sparsity for particular ops ([`SignatureFacts`], TF's
/// `ext_options`). [`op_version`](crate::op_version) turns a signature into a version.
///
/// A signature comes from a model ([`Model::signature`](crate::Model::signature)) or is built by hand:
///
/// ```
/// use tflite_opver::{
///     BuiltinOperator, ElementType, OpSignature, TensorSpec,
///     params::{DepthwiseConv2DParams, Params},
/// };
///
/// let f32 = |dims: &[i32]| TensorSpec::new(ElementType::Float32, dims);
/// let dilated = Params::DepthwiseConv2D(DepthwiseConv2DParams {
///     dilation_width_factor: 2,
///     dilation_height_factor: 2,
///     ..Default::default()
/// });
/// let sig = OpSignature::new(
///     BuiltinOperator::DEPTHWISE_CONV_2D,
///     vec![f32(&[1, 8, 8, 4]), f32(&[1, 3, 3, 4]).constant(), f32(&[4]).constant()],
///     vec![f32(&[1, 8, 8, 4])],
///     dilated,
/// );
/// assert_eq!(tflite_opver::op_version(&sig).get(), 2);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct OpSignature {
    /// The builtin operator ([`BuiltinOperator::CUSTOM`] for custom ops).
    pub op: BuiltinOperator,
    /// The custom op's name (`custom_code`), for custom ops.
    pub custom_name: Option<String>,
    /// One spec per operator input, in order; absent optional inputs included.
    pub inputs: Vec<TensorSpec>,
    /// One spec per operator output, in order.
    pub outputs: Vec<TensorSpec>,
    /// The operator's options; schema defaults when it has no options table.
    pub params: Params,
    /// Whether the operator has an options table of the type its op reads. Without one,
    /// TF's version rules see a zero-filled struct; see [`OpSignature::versioning_params`].
    /// Always `true` for ops whose options this crate does not model ([`Params::None`]):
    /// nothing they read can be missing.
    pub options_present: bool,
    /// Facts derived from the tensors (TF's `ext_options`).
    pub facts: SignatureFacts,
}

impl OpSignature {
    /// A signature for a builtin `op` with options `params` (taken as present), deriving the
    /// [`SignatureFacts`] from the tensors.
    pub fn new(
        op: BuiltinOperator,
        inputs: Vec<TensorSpec>,
        outputs: Vec<TensorSpec>,
        params: Params,
    ) -> Self {
        let facts = SignatureFacts::derive(op, &inputs, &outputs);
        Self {
            op,
            custom_name: None,
            inputs,
            outputs,
            params,
            options_present: true,
            facts,
        }
    }

    /// The same signature as if the operator had no options table: params are the schema
    /// defaults, and the version rules see TF's zero-filled struct.
    pub fn without_options(mut self) -> Self {
        self.params = Params::defaults_for(self.op);
        self.options_present = self.params == Params::None;
        self
    }

    /// The params as TF's version rules see them: [`OpSignature::params`] when the options
    /// table is there, [`Params::zero_filled`] when it is not (TF's `ParseOpData` leaves the
    /// C struct zeroed; `flatbuffer_conversions.cc`).
    pub fn versioning_params(&self) -> Params {
        if self.options_present {
            self.params
        } else {
            self.params.zero_filled()
        }
    }

    /// Input `i`'s spec; `None` past the end.
    pub fn input(&self, i: usize) -> Option<&TensorSpec> {
        self.inputs.get(i)
    }

    /// Output `i`'s spec; `None` past the end.
    pub fn output(&self, i: usize) -> Option<&TensorSpec> {
        self.outputs.get(i)
    }

    /// Input `i`'s element type; [`ElementType::NoType`] when there is no such input.
    pub fn input_type(&self, i: usize) -> ElementType {
        self.inputs
            .get(i)
            .map_or(ElementType::NoType, |t| t.element_type)
    }

    /// Output `i`'s element type; [`ElementType::NoType`] when there is no such output.
    pub fn output_type(&self, i: usize) -> ElementType {
        self.outputs
            .get(i)
            .map_or(ElementType::NoType, |t| t.element_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::tensor::Quantization;

    #[test]
    fn conv_facts_follow_the_filter() {
        let x = TensorSpec::new(ElementType::Int8, &[1, 8, 8, 4]);
        let w = TensorSpec::new(ElementType::Int8, &[16, 3, 3, 2])
            .constant()
            .quantized(Quantization::per_channel(16, 0));
        let f = SignatureFacts::derive(BuiltinOperator::CONV_2D, &[x, w], &[]);
        assert!(f.is_per_channel_quantized);
        assert!(f.is_grouped_convolution, "4 input channels, 2 per filter");
    }

    #[test]
    fn absent_inputs_give_no_facts_instead_of_crashing() {
        let f = SignatureFacts::derive(
            BuiltinOperator::FULLY_CONNECTED,
            &[TensorSpec::absent(), TensorSpec::absent()],
            &[],
        );
        assert_eq!(f, SignatureFacts::default());
        let f = SignatureFacts::derive(BuiltinOperator::CONV_2D, &[], &[]);
        assert_eq!(f, SignatureFacts::default());
    }

    #[test]
    fn mul_reads_first_scales() {
        let q = |s| TensorSpec::new(ElementType::Int8, &[4]).quantized(Quantization::per_tensor(s));
        let f = SignatureFacts::derive(BuiltinOperator::MUL, &[q(2.0), q(3.0)], &[q(4.0)]);
        assert_eq!(f.mul_scales, [2.0, 3.0, 4.0]);
        assert!(f.input_quantized);
    }
}
