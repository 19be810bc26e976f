//! Writing small `.tflite` models from signatures: for tests, examples and benchmarks.
//!
//! [`ModelBuilder`] writes one subgraph whose operators are given as [`OpSignature`]s (or as
//! tensors and an operator code), with the options tables their [`Params`] describe. The
//! output is a real TFLite FlatBuffer (identifier `TFL3`, schema version 3) that
//! [`Model::from_bytes`](crate::Model::from_bytes) and TensorFlow both read. It holds no
//! weights: a constant tensor gets a 4-byte buffer, enough for TF's "is constant" test.
//!
//! ```
//! use tflite_opver::{ModelBuilder, BuiltinOperator, OpVersion, Params, ElementType, OpSignature, TensorSpec};
//!
//! let t = TensorSpec::new(ElementType::Int8, &[1, 4]);
//! let relu = OpSignature::new(BuiltinOperator::RELU, vec![t.clone()], vec![t], Params::None);
//! let bytes = ModelBuilder::new().signature(&relu, OpVersion::ONE).finish();
//!
//! let model = tflite_opver::Model::from_bytes(&bytes)?;
//! assert_eq!(model.required_versions(), [OpVersion::new(2)]); // int8 RELU is version 2
//! # Ok::<(), tflite_opver::Error>(())
//! ```

use crate::generated::schema::tflite as fb;
use crate::operator::{BuiltinOperator, OpVersion};
use crate::params::{Activation, LstmKernelType, Padding, Params, WeightsFormat};
use crate::runtime::RuntimeVersion;
use crate::signature::{ElementType, OpSignature, TensorSpec};

/// Builds a one-subgraph model; see the module documentation.
#[derive(Debug, Default)]
pub struct ModelBuilder {
    codes: Vec<fb::OperatorCode>,
    tensors: Vec<fb::Tensor>,
    buffers: Vec<fb::Buffer>,
    operators: Vec<fb::Operator>,
    min_runtime_version: Option<Vec<u8>>,
}

impl ModelBuilder {
    /// An empty model (buffer 0, the empty sentinel, already in place).
    pub fn new() -> Self {
        Self {
            buffers: vec![fb::Buffer::default()],
            ..Self::default()
        }
    }

    /// Adds a tensor described by `spec`; returns its index (-1 for an absent input).
    pub fn tensor(&mut self, spec: &TensorSpec) -> i32 {
        if spec.is_absent() {
            return -1;
        }
        let buffer = if spec.is_const {
            self.buffers.push(fb::Buffer {
                data: Some(vec![0; 4]),
                ..Default::default()
            });
            (self.buffers.len() - 1) as u32
        } else {
            0
        };
        let quantization = spec.quantization.map(|q| {
            let scale = vec![q.first_scale.unwrap_or(1.0); q.scale_count];
            Box::new(fb::QuantizationParameters {
                zero_point: Some(vec![0; q.scale_count]),
                scale: Some(scale),
                quantized_dimension: q.quantized_dimension,
                ..Default::default()
            })
        });
        let shape_signature = spec.is_shape_dynamic.then(|| {
            let mut dims = spec.dims.clone();
            if let Some(first) = dims.first_mut() {
                *first = -1;
            } else {
                dims.push(-1);
            }
            dims
        });
        self.tensors.push(fb::Tensor {
            shape: Some(spec.dims.clone()),
            type_: spec.element_type.to_schema().unwrap_or(0),
            buffer,
            name: Some(format!("t{}", self.tensors.len())),
            quantization,
            is_variable: spec.is_variable,
            sparsity: spec
                .is_sparse
                .then(|| Box::new(fb::SparsityParameters::default())),
            shape_signature,
            ..Default::default()
        });
        (self.tensors.len() - 1) as i32
    }

    /// The index of the operator code for a builtin `op` at `version`, adding it if new.
    pub fn operator_code(&mut self, op: BuiltinOperator, version: OpVersion) -> u32 {
        self.code(op, None, version)
    }

    /// The index of the operator code for custom op `name` at `version`, adding it if new.
    pub fn custom_code(&mut self, name: &str, version: OpVersion) -> u32 {
        self.code(BuiltinOperator::CUSTOM, Some(name), version)
    }

    fn code(&mut self, op: BuiltinOperator, custom: Option<&str>, version: OpVersion) -> u32 {
        let found = self.codes.iter().position(|c| {
            c.builtin_code == op.code()
                && c.custom_code.as_deref() == custom
                && c.version == version.get()
        });
        let index = found.unwrap_or_else(|| {
            self.codes.push(fb::OperatorCode {
                deprecated_builtin_code: op.deprecated_builtin_code(),
                custom_code: custom.map(str::to_owned),
                version: version.get(),
                builtin_code: op.code(),
            });
            self.codes.len() - 1
        });
        index as u32
    }

    /// Adds an operator using operator code `code` on existing tensors. `params` gives its
    /// options table; `None` writes none.
    pub fn operator(
        &mut self,
        code: u32,
        inputs: &[i32],
        outputs: &[i32],
        params: Option<&Params>,
    ) -> &mut Self {
        self.operators.push(fb::Operator {
            opcode_index: code,
            inputs: Some(inputs.to_vec()),
            outputs: Some(outputs.to_vec()),
            builtin_options: params.and_then(options),
            ..Default::default()
        });
        self
    }

    /// Adds the operator `sig` describes, with fresh tensors, under an operator code at
    /// `version`. Its options table is written when `sig.options_present`.
    pub fn signature(&mut self, sig: &OpSignature, version: OpVersion) -> &mut Self {
        let inputs: Vec<i32> = sig.inputs.iter().map(|t| self.tensor(t)).collect();
        let outputs: Vec<i32> = sig.outputs.iter().map(|t| self.tensor(t)).collect();
        let code = match &sig.custom_name {
            Some(name) if sig.op == BuiltinOperator::CUSTOM => self.custom_code(name, version),
            _ => self.operator_code(sig.op, version),
        };
        let params = sig.options_present.then_some(&sig.params);
        self.operator(code, &inputs, &outputs, params)
    }

    /// Adds `min_runtime_version` metadata holding `version`, 16 bytes NUL-padded.
    pub fn min_runtime_version(&mut self, version: &RuntimeVersion) -> &mut Self {
        let bytes = version.to_metadata_bytes().map(|b| b.to_vec()).ok();
        self.min_runtime_version = bytes;
        self
    }

    /// The model's bytes.
    pub fn finish(&self) -> Vec<u8> {
        let mut buffers = self.buffers.clone();
        let metadata = self.min_runtime_version.as_ref().map(|data| {
            buffers.push(fb::Buffer {
                data: Some(data.clone()),
                ..Default::default()
            });
            vec![fb::Metadata {
                name: Some(RuntimeVersion::METADATA_NAME.to_owned()),
                buffer: (buffers.len() - 1) as u32,
            }]
        });
        let model = fb::Model {
            version: 3,
            operator_codes: Some(self.codes.clone()),
            subgraphs: Some(vec![fb::SubGraph {
                tensors: Some(self.tensors.clone()),
                inputs: Some(Vec::new()),
                outputs: Some(Vec::new()),
                operators: Some(self.operators.clone()),
                name: Some("main".to_owned()),
            }]),
            description: Some("written by tflite-opver".to_owned()),
            buffers: Some(buffers),
            metadata,
            ..Default::default()
        };
        let mut builder = planus::Builder::new();
        let mut bytes = builder
            .finish(&model, Some(crate::model::FILE_IDENTIFIER))
            .to_vec();
        fix_identifier_order(&mut bytes);
        bytes
    }
}

/// planus 1.3 writes the 8-byte header as identifier then root offset (its back-to-front
/// buffer prepends each write), where FlatBuffers wants the root offset (from position 0)
/// then the identifier. Puts the two words back in order; a no-op on a correct header.
fn fix_identifier_order(bytes: &mut [u8]) {
    let id = crate::model::FILE_IDENTIFIER;
    if bytes.len() >= 8 && bytes[..4] == id && bytes[4..8] != id {
        let offset = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        // The offset was counted from position 4; from position 0 it is 4 more.
        bytes[..4].copy_from_slice(&(offset + 4).to_le_bytes());
        bytes[4..8].copy_from_slice(&id);
    }
}

fn padding(p: Padding) -> i8 {
    match p {
        Padding::Valid => 1,
        Padding::Same | Padding::Unknown => 0,
    }
}

fn activation(a: Activation) -> i8 {
    match a {
        Activation::None => 0,
        Activation::Relu => 1,
        Activation::ReluN1To1 => 2,
        Activation::Relu6 => 3,
        Activation::Tanh => 4,
        Activation::SignBit => 5,
    }
}

fn tensor_type(t: ElementType) -> i8 {
    t.to_schema().unwrap_or(0)
}

/// The options table for `params`, as the schema stores it.
fn options(params: &Params) -> Option<fb::BuiltinOptions> {
    use fb::BuiltinOptions as O;
    Some(match *params {
        Params::None => return None,
        Params::Conv2D(p) => O::Conv2DOptions(Box::new(fb::Conv2DOptions {
            padding: padding(p.padding),
            stride_w: p.stride_width,
            stride_h: p.stride_height,
            fused_activation_function: activation(p.activation),
            dilation_w_factor: p.dilation_width_factor,
            dilation_h_factor: p.dilation_height_factor,
            quantized_bias_type: tensor_type(p.quantized_bias_type),
        })),
        Params::DepthwiseConv2D(p) => {
            O::DepthwiseConv2DOptions(Box::new(fb::DepthwiseConv2DOptions {
                padding: padding(p.padding),
                stride_w: p.stride_width,
                stride_h: p.stride_height,
                depth_multiplier: p.depth_multiplier,
                fused_activation_function: activation(p.activation),
                dilation_w_factor: p.dilation_width_factor,
                dilation_h_factor: p.dilation_height_factor,
            }))
        }
        Params::Conv3D(p) => O::Conv3DOptions(Box::new(fb::Conv3DOptions {
            padding: padding(p.padding),
            stride_d: p.stride_depth,
            stride_w: p.stride_width,
            stride_h: p.stride_height,
            fused_activation_function: activation(p.activation),
            dilation_d_factor: p.dilation_depth_factor,
            dilation_w_factor: p.dilation_width_factor,
            dilation_h_factor: p.dilation_height_factor,
        })),
        Params::Pool2D(p) => O::Pool2DOptions(Box::new(fb::Pool2DOptions {
            padding: padding(p.padding),
            stride_w: p.stride_width,
            stride_h: p.stride_height,
            filter_width: p.filter_width,
            filter_height: p.filter_height,
            fused_activation_function: activation(p.activation),
        })),
        Params::FullyConnected(p) => {
            O::FullyConnectedOptions(Box::new(fb::FullyConnectedOptions {
                fused_activation_function: activation(p.activation),
                weights_format: match p.weights_format {
                    WeightsFormat::Default => 0,
                    WeightsFormat::Shuffled4x16Int8 => 1,
                },
                keep_num_dims: p.keep_num_dims,
                asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
                quantized_bias_type: tensor_type(p.quantized_bias_type),
            }))
        }
        Params::Add(p) => O::AddOptions(Box::new(fb::AddOptions {
            fused_activation_function: activation(p.activation),
            pot_scale_int16: p.pot_scale_int16,
        })),
        Params::Sub(p) => O::SubOptions(Box::new(fb::SubOptions {
            fused_activation_function: activation(p.activation),
            pot_scale_int16: p.pot_scale_int16,
        })),
        Params::Mul(p) => O::MulOptions(Box::new(fb::MulOptions {
            fused_activation_function: activation(p.activation),
        })),
        Params::Concatenation(p) => O::ConcatenationOptions(Box::new(fb::ConcatenationOptions {
            axis: p.axis,
            fused_activation_function: activation(p.activation),
        })),
        Params::Softmax(p) => O::SoftmaxOptions(Box::new(fb::SoftmaxOptions { beta: p.beta })),
        Params::Gather(p) => O::GatherOptions(Box::new(fb::GatherOptions {
            axis: p.axis,
            batch_dims: p.batch_dims,
        })),
        Params::Svdf(p) => O::SvdfOptions(Box::new(fb::SvdfOptions {
            rank: p.rank,
            fused_activation_function: activation(p.activation),
            asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
        })),
        Params::Rnn(p) => O::RnnOptions(Box::new(fb::RnnOptions {
            fused_activation_function: activation(p.activation),
            asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
        })),
        Params::SequenceRnn(p) => O::SequenceRnnOptions(Box::new(fb::SequenceRnnOptions {
            time_major: p.time_major,
            fused_activation_function: activation(p.activation),
            asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
        })),
        Params::BidirectionalSequenceRnn(p) => {
            O::BidirectionalSequenceRnnOptions(Box::new(fb::BidirectionalSequenceRnnOptions {
                time_major: p.time_major,
                fused_activation_function: activation(p.activation),
                merge_outputs: p.merge_outputs,
                asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
            }))
        }
        Params::Lstm(p) => O::LstmOptions(Box::new(fb::LstmOptions {
            fused_activation_function: activation(p.activation),
            cell_clip: p.cell_clip,
            proj_clip: p.proj_clip,
            kernel_type: match p.kernel_type {
                LstmKernelType::Full => 0,
                LstmKernelType::Basic => 1,
            },
            asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
        })),
        Params::UnidirectionalSequenceLstm(p) => {
            O::UnidirectionalSequenceLstmOptions(Box::new(fb::UnidirectionalSequenceLstmOptions {
                fused_activation_function: activation(p.activation),
                cell_clip: p.cell_clip,
                proj_clip: p.proj_clip,
                time_major: p.time_major,
                asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
                diagonal_recurrent_tensors: p.diagonal_recurrent_tensors,
            }))
        }
        Params::BidirectionalSequenceLstm(p) => {
            O::BidirectionalSequenceLstmOptions(Box::new(fb::BidirectionalSequenceLstmOptions {
                fused_activation_function: activation(p.activation),
                cell_clip: p.cell_clip,
                proj_clip: p.proj_clip,
                merge_outputs: p.merge_outputs,
                time_major: p.time_major,
                asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
            }))
        }
        Params::TransposeConv(p) => O::TransposeConvOptions(Box::new(fb::TransposeConvOptions {
            padding: padding(p.padding),
            stride_w: p.stride_width,
            stride_h: p.stride_height,
            fused_activation_function: activation(p.activation),
            quantized_bias_type: tensor_type(p.quantized_bias_type),
        })),
        Params::StridedSlice(p) => O::StridedSliceOptions(Box::new(fb::StridedSliceOptions {
            begin_mask: p.begin_mask,
            end_mask: p.end_mask,
            ellipsis_mask: p.ellipsis_mask,
            new_axis_mask: p.new_axis_mask,
            shrink_axis_mask: p.shrink_axis_mask,
            offset: p.offset,
        })),
        Params::ResizeBilinear(p) => {
            O::ResizeBilinearOptions(Box::new(fb::ResizeBilinearOptions {
                align_corners: p.align_corners,
                half_pixel_centers: p.half_pixel_centers,
            }))
        }
        Params::ResizeNearestNeighbor(p) => {
            O::ResizeNearestNeighborOptions(Box::new(fb::ResizeNearestNeighborOptions {
                align_corners: p.align_corners,
                half_pixel_centers: p.half_pixel_centers,
            }))
        }
        Params::FakeQuant(p) => O::FakeQuantOptions(Box::new(fb::FakeQuantOptions {
            min: p.min,
            max: p.max,
            num_bits: p.num_bits,
            narrow_range: p.narrow_range,
        })),
        Params::BatchMatMul(p) => O::BatchMatMulOptions(Box::new(fb::BatchMatMulOptions {
            adj_x: p.adj_x,
            adj_y: p.adj_y,
            asymmetric_quantize_inputs: p.asymmetric_quantize_inputs,
        })),
    })
}
