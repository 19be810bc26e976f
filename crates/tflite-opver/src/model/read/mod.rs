//! Reading a model's bytes into a [`Model`]: validated once, digested into plain values.
//!
//! There are two readers of the same tables. planus' generated readers read everything, and
//! report what is malformed; the hand readers of [`wire`](crate::model::wire) read the tables a large
//! model has millions of (buffers, tensors, operators) a few times faster. Each buffer, tensor
//! and operator is read by hand where its vector was found by hand, and by planus otherwise or
//! where the hand reader gives up, so a malformed model is always reported by planus; a test
//! checks that the two agree on every corruption of a sample model.
//!
//! [`Model::read`] walks the model in the order its parts depend on each other, one module each:
//! - `buffers`: each buffer's data length, read once, which makes a tensor constant;
//! - `tensors`: each tensor digested into its class ([`classes`](crate::model::classes)), the few a
//!   runtime may refuse kept aside;
//! - `operators`: each operator digested into its form ([`forms`](crate::model::forms)) and its
//!   tensor indices, pooled;
//!
//! and what TFLite's interpreter builder checks goes into the model's [`LoadFacts`] on the way.

mod buffers;
mod fields;
mod operators;
mod tensors;

use planus::ReadAsRoot;

use crate::error::{DecodeError, Error, cut_off, malformed};
use crate::generated::schema::tflite as fb;
use crate::model::classes::TensorClasses;
use crate::model::load_facts::LoadFacts;
use crate::model::subgraph::Subgraph;
use crate::model::wire::{
    Data, RawBuffer, VectorField, buffers_vector, operators_vector, tensors_vector,
};
use crate::model::{FILE_IDENTIFIER, Model, OperatorCode, RuntimeMetadata};
use crate::operator::code::{BuiltinOperator, OpVersion};
use crate::runtimes::min_runtime::RuntimeVersion;

use buffers::{BufferLen, BufferLens};
use fields::{earliest, external, len_of, missing};
use tensors::{OddSink, digest_raw_tensor, digest_tensor};

impl<'a> Model<'a> {
    /// [`Model::from_bytes`], reading operators by hand (`by_hand`) or through planus alone. An
    /// offset past the end of the file is reported as the model cut off ([`cut_off`]).
    pub(crate) fn read(bytes: &'a [u8], by_hand: bool) -> Result<Self, Error> {
        Self::read_all(bytes, by_hand).map_err(|error| cut_off(error, bytes.len()))
    }

    fn read_all(bytes: &'a [u8], by_hand: bool) -> Result<Self, Error> {
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
        let mut lens = match (by_hand, buffers_vector(bytes)) {
            (true, Some(VectorField::Absent)) => Some(BufferLens::default()),
            (true, Some(VectorField::At(span))) if Some(span.len) == load.buffers => {
                let mut lens = BufferLens::with_capacity(span.len);
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
        // Buffer `index`'s data length by planus, `None` without data.
        let planus_len = |index: u32| Ok(buffer_data(index)?.map(<[u8]>::len));

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
            let last = list.len().saturating_sub(1);
            for (s, subgraph) in list.into_iter().enumerate() {
                let buffer_len = BufferLen {
                    lens: lens.as_ref(),
                    by_planus: &planus_len,
                    count: buffer_count,
                };
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
                        // Where tensor `t` goes if some runtime may refuse it.
                        let sink = |odd| OddSink {
                            odd,
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
                                    sink(&mut load.odd_tensors).keep_raw(bytes, element, read.data);
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
                                    &mut sink(&mut load.odd_tensors),
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
                // No tensor is left to read after the last subgraph's: its index pool takes
                // the lengths' allocation.
                if s == last {
                    graph.indices = lens.take().map(BufferLens::into_pool).unwrap_or_default();
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::ModelBuilder;
    use crate::operator::tensor::TensorSpec;
    use crate::operator::tensor::{ElementType, Quantization};
    use crate::params::{AddParams, Conv2DParams, Params};

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
