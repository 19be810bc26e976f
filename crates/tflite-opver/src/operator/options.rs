//! Operator options: the schema's `builtin_options` tables to [`Params`] and back.
//!
//! Reading is TF's `ParseOpData` (`tensorflow/lite/core/api/flatbuffer_conversions.cc`) for
//! the options this crate models: every field present in the table is read, every absent one
//! takes the schema's default (planus returns it), and an operator without a table of the type
//! its op reads gets [`Params::defaults_for`] (the version rules then see the zero-filled
//! struct). Writing is the converse, for [`ModelBuilder`](crate::ModelBuilder). Both directions
//! are here, field by field, so that a field added to one cannot be forgotten in the other.

use crate::error::{Error, malformed};
use crate::generated::schema::tflite as fb;
use crate::operator::code::BuiltinOperator;
use crate::operator::tensor::ElementType;
use crate::params::{
    Activation, AddParams, BatchMatMulParams, BidirectionalSequenceLstmParams,
    BidirectionalSequenceRnnParams, ConcatenationParams, Conv2DParams, Conv3DParams,
    DepthwiseConv2DParams, FakeQuantParams, FullyConnectedParams, GatherParams, LstmKernelType,
    LstmParams, MulParams, OptionsKind, Padding, Params, Pool2DParams, ResizeBilinearParams,
    ResizeNearestNeighborParams, RnnParams, SequenceRnnParams, SoftmaxParams, StridedSliceParams,
    SubParams, SvdfParams, TransposeConvParams, UnidirectionalSequenceLstmParams, WeightsFormat,
};

/// TF's `ParseOpData` for the options this crate models: the params of `op` (which reads
/// options of `kind`), and whether the operator's options table was of that type.
///
/// Inlined into the model reader's `digest_operator`, for the reason given there.
#[inline(always)]
pub(crate) fn read(
    op: BuiltinOperator,
    kind: OptionsKind,
    options: Option<fb::BuiltinOptionsRef<'_>>,
) -> Result<(Params, bool), Error> {
    use fb::BuiltinOptionsRef as O;
    let e = malformed;
    let params = match (kind, options) {
        (OptionsKind::Conv2D, Some(O::Conv2DOptions(o))) => Params::Conv2D(Conv2DParams {
            padding: Padding::from_schema(o.padding().map_err(e)?),
            stride_width: o.stride_w().map_err(e)?,
            stride_height: o.stride_h().map_err(e)?,
            dilation_width_factor: o.dilation_w_factor().map_err(e)?,
            dilation_height_factor: o.dilation_h_factor().map_err(e)?,
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            quantized_bias_type: read_tensor_type(o.quantized_bias_type().map_err(e)?),
        }),
        (OptionsKind::DepthwiseConv2D, Some(O::DepthwiseConv2DOptions(o))) => {
            Params::DepthwiseConv2D(DepthwiseConv2DParams {
                padding: Padding::from_schema(o.padding().map_err(e)?),
                stride_width: o.stride_w().map_err(e)?,
                stride_height: o.stride_h().map_err(e)?,
                depth_multiplier: o.depth_multiplier().map_err(e)?,
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
                dilation_width_factor: o.dilation_w_factor().map_err(e)?,
                dilation_height_factor: o.dilation_h_factor().map_err(e)?,
            })
        }
        (OptionsKind::Conv3D, Some(O::Conv3DOptions(o))) => Params::Conv3D(Conv3DParams {
            padding: Padding::from_schema(o.padding().map_err(e)?),
            stride_depth: o.stride_d().map_err(e)?,
            stride_width: o.stride_w().map_err(e)?,
            stride_height: o.stride_h().map_err(e)?,
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            dilation_depth_factor: o.dilation_d_factor().map_err(e)?,
            dilation_width_factor: o.dilation_w_factor().map_err(e)?,
            dilation_height_factor: o.dilation_h_factor().map_err(e)?,
        }),
        (OptionsKind::Pool2D, Some(O::Pool2DOptions(o))) => Params::Pool2D(Pool2DParams {
            padding: Padding::from_schema(o.padding().map_err(e)?),
            stride_width: o.stride_w().map_err(e)?,
            stride_height: o.stride_h().map_err(e)?,
            filter_width: o.filter_width().map_err(e)?,
            filter_height: o.filter_height().map_err(e)?,
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
        }),
        (OptionsKind::FullyConnected, Some(O::FullyConnectedOptions(o))) => {
            Params::FullyConnected(FullyConnectedParams {
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
                weights_format: match o.weights_format().map_err(e)? {
                    1 => WeightsFormat::Shuffled4x16Int8,
                    _ => WeightsFormat::Default,
                },
                keep_num_dims: o.keep_num_dims().map_err(e)?,
                asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
                quantized_bias_type: read_tensor_type(o.quantized_bias_type().map_err(e)?),
            })
        }
        (OptionsKind::Add, Some(O::AddOptions(o))) => Params::Add(AddParams {
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            pot_scale_int16: o.pot_scale_int16().map_err(e)?,
        }),
        (OptionsKind::Sub, Some(O::SubOptions(o))) => Params::Sub(SubParams {
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            pot_scale_int16: o.pot_scale_int16().map_err(e)?,
        }),
        (OptionsKind::Mul, Some(O::MulOptions(o))) => Params::Mul(MulParams {
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
        }),
        (OptionsKind::Concatenation, Some(O::ConcatenationOptions(o))) => {
            Params::Concatenation(ConcatenationParams {
                axis: o.axis().map_err(e)?,
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            })
        }
        (OptionsKind::Softmax, Some(O::SoftmaxOptions(o))) => Params::Softmax(SoftmaxParams {
            beta: o.beta().map_err(e)?,
        }),
        (OptionsKind::Gather, Some(O::GatherOptions(o))) => Params::Gather(GatherParams {
            axis: o.axis().map_err(e)?,
            batch_dims: o.batch_dims().map_err(e)?,
        }),
        (OptionsKind::Svdf, Some(O::SvdfOptions(o))) => Params::Svdf(SvdfParams {
            rank: o.rank().map_err(e)?,
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
        }),
        (OptionsKind::Rnn, Some(O::RnnOptions(o))) => Params::Rnn(RnnParams {
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
        }),
        (OptionsKind::SequenceRnn, Some(O::SequenceRnnOptions(o))) => {
            Params::SequenceRnn(SequenceRnnParams {
                time_major: o.time_major().map_err(e)?,
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
                asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
            })
        }
        (OptionsKind::BidirectionalSequenceRnn, Some(O::BidirectionalSequenceRnnOptions(o))) => {
            Params::BidirectionalSequenceRnn(BidirectionalSequenceRnnParams {
                time_major: o.time_major().map_err(e)?,
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
                merge_outputs: o.merge_outputs().map_err(e)?,
                asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
            })
        }
        (OptionsKind::Lstm, Some(O::LstmOptions(o))) => Params::Lstm(LstmParams {
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            cell_clip: o.cell_clip().map_err(e)?,
            proj_clip: o.proj_clip().map_err(e)?,
            kernel_type: match o.kernel_type().map_err(e)? {
                1 => LstmKernelType::Basic,
                _ => LstmKernelType::Full,
            },
            asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
        }),
        (
            OptionsKind::UnidirectionalSequenceLstm,
            Some(O::UnidirectionalSequenceLstmOptions(o)),
        ) => Params::UnidirectionalSequenceLstm(UnidirectionalSequenceLstmParams {
            activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
            cell_clip: o.cell_clip().map_err(e)?,
            proj_clip: o.proj_clip().map_err(e)?,
            time_major: o.time_major().map_err(e)?,
            asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
            diagonal_recurrent_tensors: o.diagonal_recurrent_tensors().map_err(e)?,
        }),
        (OptionsKind::BidirectionalSequenceLstm, Some(O::BidirectionalSequenceLstmOptions(o))) => {
            Params::BidirectionalSequenceLstm(BidirectionalSequenceLstmParams {
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
                cell_clip: o.cell_clip().map_err(e)?,
                proj_clip: o.proj_clip().map_err(e)?,
                merge_outputs: o.merge_outputs().map_err(e)?,
                time_major: o.time_major().map_err(e)?,
                asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
            })
        }
        (OptionsKind::TransposeConv, Some(O::TransposeConvOptions(o))) => {
            Params::TransposeConv(TransposeConvParams {
                padding: Padding::from_schema(o.padding().map_err(e)?),
                stride_width: o.stride_w().map_err(e)?,
                stride_height: o.stride_h().map_err(e)?,
                activation: Activation::from_schema(o.fused_activation_function().map_err(e)?),
                quantized_bias_type: read_tensor_type(o.quantized_bias_type().map_err(e)?),
            })
        }
        (OptionsKind::StridedSlice, Some(O::StridedSliceOptions(o))) => {
            Params::StridedSlice(StridedSliceParams {
                begin_mask: o.begin_mask().map_err(e)?,
                end_mask: o.end_mask().map_err(e)?,
                ellipsis_mask: o.ellipsis_mask().map_err(e)?,
                new_axis_mask: o.new_axis_mask().map_err(e)?,
                shrink_axis_mask: o.shrink_axis_mask().map_err(e)?,
                offset: o.offset().map_err(e)?,
            })
        }
        (OptionsKind::ResizeBilinear, Some(O::ResizeBilinearOptions(o))) => {
            Params::ResizeBilinear(ResizeBilinearParams {
                align_corners: o.align_corners().map_err(e)?,
                half_pixel_centers: o.half_pixel_centers().map_err(e)?,
            })
        }
        (OptionsKind::ResizeNearestNeighbor, Some(O::ResizeNearestNeighborOptions(o))) => {
            Params::ResizeNearestNeighbor(ResizeNearestNeighborParams {
                align_corners: o.align_corners().map_err(e)?,
                half_pixel_centers: o.half_pixel_centers().map_err(e)?,
            })
        }
        (OptionsKind::FakeQuant, Some(O::FakeQuantOptions(o))) => {
            Params::FakeQuant(FakeQuantParams {
                min: o.min().map_err(e)?,
                max: o.max().map_err(e)?,
                num_bits: o.num_bits().map_err(e)?,
                narrow_range: o.narrow_range().map_err(e)?,
            })
        }
        (OptionsKind::BatchMatMul, Some(O::BatchMatMulOptions(o))) => {
            Params::BatchMatMul(BatchMatMulParams {
                adj_x: o.adj_x().map_err(e)?,
                adj_y: o.adj_y().map_err(e)?,
                asymmetric_quantize_inputs: o.asymmetric_quantize_inputs().map_err(e)?,
            })
        }
        // No options table of the type this op reads (or none modelled): schema defaults,
        // and TF's version rules will see the zero-filled struct.
        _ => return Ok((Params::defaults_for(op), kind == OptionsKind::None)),
    };
    Ok((params, true))
}

/// A `TensorType` field inside options, converted as TF's `ConvertTensorType` does (unknown
/// values become `NoType`).
fn read_tensor_type(value: i8) -> ElementType {
    ElementType::from_schema(value).unwrap_or(ElementType::NoType)
}

// Writing.

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

fn write_tensor_type(t: ElementType) -> i8 {
    t.to_schema().unwrap_or(0)
}

/// The options table for `params`, as the schema stores it (`None` for [`Params::None`]).
pub(crate) fn write(params: &Params) -> Option<fb::BuiltinOptions> {
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
            quantized_bias_type: write_tensor_type(p.quantized_bias_type),
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
                quantized_bias_type: write_tensor_type(p.quantized_bias_type),
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
            quantized_bias_type: write_tensor_type(p.quantized_bias_type),
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
