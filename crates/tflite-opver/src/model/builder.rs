//! Writing small `.tflite` models from signatures: for tests, examples and benchmarks.

use crate::generated::schema::tflite as fb;
use crate::operator::code::{BuiltinOperator, OpVersion};
use crate::operator::options;
use crate::operator::signature::OpSignature;
use crate::operator::tensor::TensorSpec;
use crate::params::Params;
use crate::runtimes::min_runtime::RuntimeVersion;

/// Builds a one-subgraph model.
///
/// [`ModelBuilder`] writes one subgraph whose operators are given as [`OpSignature`]s (or as
/// tensors and an operator code), with the options tables their [`Params`] describe. The
/// output is a real TFLite FlatBuffer (identifier `TFL3`, schema version 3) that
/// [`Model::from_bytes`](crate::Model::from_bytes) and TensorFlow both read, and that the
/// runtimes construct an interpreter from: a constant tensor gets zeros, as many bytes as its
/// shape and type need (4 bytes where that is not known: strings, resources, variants, an empty
/// or unknown shape, or more than 64 MiB), and a sparse one a sparsity table with a dense
/// dimension per axis.
///
/// ```
/// use tflite_opver::{
///     BuiltinOperator, ElementType, ModelBuilder, OpSignature, OpVersion, TensorSpec,
///     params::Params,
/// };
///
/// let t = TensorSpec::new(ElementType::Int8, &[1, 4]);
/// let relu = OpSignature::new(BuiltinOperator::RELU, vec![t.clone()], vec![t], Params::None);
/// let bytes = ModelBuilder::new().signature(&relu, OpVersion::ONE).finish();
///
/// let model = tflite_opver::Model::from_bytes(&bytes)?;
/// assert_eq!(model.required_versions(), [OpVersion::new(2)]); // int8 RELU is version 2
/// # Ok::<(), tflite_opver::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct ModelBuilder {
    codes: Vec<fb::OperatorCode>,
    tensors: Vec<fb::Tensor>,
    buffers: Vec<fb::Buffer>,
    operators: Vec<fb::Operator>,
    min_runtime_version: Option<Vec<u8>>,
    metadata: Vec<(String, Vec<u8>)>,
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
                data: Some(vec![0; constant_bytes(spec)]),
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
            sparsity: spec.is_sparse.then(|| {
                Box::new(fb::SparsityParameters {
                    traversal_order: Some((0..spec.dims.len() as i32).collect()),
                    block_map: None,
                    dim_metadata: Some(vec![fb::DimensionMetadata::default(); spec.dims.len()]),
                })
            }),
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
            builtin_options: params.and_then(options::write),
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

    /// Adds a metadata entry `name` whose buffer holds `data`, such as the converter's
    /// `CONVERSION_METADATA`. Entries are written in the order given, after
    /// `min_runtime_version`. A model given neither has no metadata vector at all.
    pub fn metadata(&mut self, name: &str, data: &[u8]) -> &mut Self {
        self.metadata.push((name.to_owned(), data.to_vec()));
        self
    }

    /// The model's bytes.
    pub fn finish(&self) -> Vec<u8> {
        let mut buffers = self.buffers.clone();
        let runtime = self
            .min_runtime_version
            .as_ref()
            .map(|data| (RuntimeVersion::METADATA_NAME, data));
        let entries = runtime.into_iter().chain(
            self.metadata
                .iter()
                .map(|(name, data)| (name.as_str(), data)),
        );
        let metadata: Vec<fb::Metadata> = entries
            .map(|(name, data)| {
                buffers.push(fb::Buffer {
                    data: Some(data.clone()),
                    ..Default::default()
                });
                fb::Metadata {
                    name: Some(name.to_owned()),
                    buffer: (buffers.len() - 1) as u32,
                }
            })
            .collect();
        let metadata = (!metadata.is_empty()).then_some(metadata);
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

/// The bytes of a constant tensor's data: its elements at their size, when that is known and at
/// most 64 MiB; 4 otherwise (enough for TF's "is constant" test, which wants some data).
fn constant_bytes(spec: &TensorSpec) -> usize {
    const MAX: u64 = 64 << 20;
    let Some(bits) = spec.element_type.bits() else {
        return 4;
    };
    let mut count: u64 = 1;
    for &d in &spec.dims {
        match u64::try_from(d).ok().and_then(|d| count.checked_mul(d)) {
            Some(c) if c <= MAX * 8 => count = c,
            _ => return 4,
        }
    }
    match (count * u64::from(bits)).div_ceil(8) {
        0 => 4,
        bytes if bytes <= MAX => bytes as usize,
        _ => 4,
    }
}
