//! What a TensorFlow Lite runtime does when it constructs an interpreter from a model's bytes,
//! modelled step by step, with the facts probed from that runtime (`src/generated/runtimes.rs`).
//!
//! `Interpreter(model_content=bytes)` builds a `FlatBufferModel` (verifying the FlatBuffer in
//! the runtimes that verify), then runs `InterpreterBuilder`, whose checks run in this order
//! and stop at the first that fails (TFLite's `tensorflow/lite/core/interpreter_builder.cc`,
//! `tflite/core/interpreter_builder.cc` in LiteRT; `Subgraph::SetTensorParametersReadOnly` and
//! `SetTensorParametersReadWrite` in `core/subgraph.cc`, `BytesRequired` in `util.cc`):
//!
//! 1. the verifier: at most a million tables, at most 2^31 - 2 bytes of FlatBuffer;
//! 2. the schema version, 3;
//! 3. each operator code in turn, through the op resolver: a builtin code above what the
//!    runtime knows is "out of range", a (code, version) it never registered is "Didn't find op",
//!    a `CUSTOM` code must name its op (an unknown custom op is left for a delegate); the first
//!    failure ends it, so only that code is named, followed by "Registration failed.";
//! 4. a `subgraphs` vector (without one, TFLite dereferences a null pointer), not empty; a
//!    `buffers` vector;
//! 5. each subgraph in turn: a `tensors` vector, then every tensor (each failure is reported
//!    and the next tensor checked; the subgraph then fails): its type, its buffer index, its
//!    quantization parameters, and either, for a constant, the variable flag and the size of
//!    its data against its shape, or, for any other tensor, its size and the string-variable
//!    check.
//!
//! Each runtime's own texts come from its facts, path and line included where its build
//! prints them. Not modelled: sparsity parameters, multi-axis and blockwise quantization
//! details, data kept outside the FlatBuffer, the options of each operator (`ParseOpData`),
//! and signature definitions. Real models, as converters write them, pass all of these.

use crate::generated::runtimes::{NAMES, RuntimeFacts, TypeFacts};
use crate::model::Model;
use crate::model::load_facts::{OddTensor, QuantizationCounts};
use crate::operator::code::BuiltinOperator;
use crate::runtimes::verifier::{VERIFIER_MAX_BYTES, VERIFIER_MAX_TABLES};

/// What constructing the interpreter does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Construction {
    Constructs,
    /// It raises, with this text.
    Refused(RefusedBy, String),
    /// TFLite dereferences a null pointer: the process dies.
    Crashes,
}

/// Which check of a runtime's interpreter construction refused a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RefusedBy {
    /// FlatBuffers' verifier: too many tables, or a FlatBuffer too large.
    Verifier,
    /// The schema version is not 3.
    SchemaVersion,
    /// An operator code the op resolver cannot resolve (the blocking operators say which).
    Operator,
    /// An operator without the options table its kernel's parser needs (`ParseOpData`).
    OperatorOptions,
    /// No subgraphs or no buffers.
    Structure,
    /// A tensor: its type, buffer, quantization parameters, size or variable flag.
    Tensor,
}

impl RefusedBy {
    /// Its name in `tflite-opver runtimes --json`.
    pub fn name(self) -> &'static str {
        match self {
            RefusedBy::Verifier => "verifier",
            RefusedBy::SchemaVersion => "schema_version",
            RefusedBy::Operator => "operator",
            RefusedBy::OperatorOptions => "operator_options",
            RefusedBy::Structure => "structure",
            RefusedBy::Tensor => "tensor",
        }
    }
}

/// Why one operator code does not resolve in a runtime ([`resolve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unresolved {
    OutOfRange,
    NotFound,
    NoCustomCode,
}

/// Resolves operator code `code` in `runtime`: `None` when it resolves (or is a custom op,
/// which is left for a delegate).
pub(crate) fn resolve(
    runtime: &RuntimeFacts,
    builtin: BuiltinOperator,
    version: i32,
    custom_code: bool,
) -> Option<Unresolved> {
    let code = builtin.code();
    if code > runtime.max_builtin_code {
        Some(Unresolved::OutOfRange)
    } else if builtin != BuiltinOperator::CUSTOM {
        (!registers(runtime, code, version)).then_some(Unresolved::NotFound)
    } else if !custom_code {
        Some(Unresolved::NoCustomCode)
    } else {
        None
    }
}

/// Whether `runtime` registers builtin `code` at `version`.
pub(crate) fn registers(runtime: &RuntimeFacts, code: i32, version: i32) -> bool {
    let (Ok(code), Ok(version)) = (usize::try_from(code), u32::try_from(version)) else {
        return false;
    };
    version < 64
        && runtime
            .registrations
            .get(code)
            .is_some_and(|mask| mask & (1 << version) != 0)
}

/// The name a runtime's schema gives builtin `code` (`EnumNameBuiltinOperator`: empty outside
/// the enum).
fn name_of(code: i32) -> &'static str {
    usize::try_from(code)
        .ok()
        .and_then(|c| NAMES.get(c))
        .copied()
        .unwrap_or("")
}

/// Fills a probed template: each `{key}` becomes its value.
pub(crate) fn fill(template: &str, values: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut text = template.to_owned();
    for (key, value) in values {
        text = text.replace(&format!("{{{key}}}"), &value.to_string());
    }
    text
}

/// A `size_t` printed with `%d`, as TFLite's `TF_LITE_ENSURE_EQ` prints sizes on x86-64: its
/// low 32 bits, as a signed `int`.
fn printed_as_int(value: u64) -> i32 {
    value as u32 as i32
}

/// Constructs an interpreter from `model` as `runtime` does.
pub(crate) fn construct(model: &Model<'_>, runtime: &RuntimeFacts) -> Construction {
    let load = model.load_facts();
    let flatbuffer_len = load.external_from.map_or(model.bytes().len(), |from| {
        usize::try_from(from)
            .unwrap_or(usize::MAX)
            .min(model.bytes().len())
    });
    if runtime.verifies
        && (model.flatbuffer_tables() > VERIFIER_MAX_TABLES || flatbuffer_len > VERIFIER_MAX_BYTES)
    {
        return Construction::Refused(RefusedBy::Verifier, runtime.verifier.to_owned());
    }
    if model.schema_version() != 3 {
        let text = fill(
            runtime.schema_version,
            &[("schema_version", &model.schema_version())],
        );
        return Construction::Refused(RefusedBy::SchemaVersion, text);
    }
    for code in model.operator_codes() {
        let unresolved = resolve(
            runtime,
            code.builtin,
            code.version.get(),
            code.custom_code.is_some(),
        );
        let text = match unresolved {
            None => continue,
            Some(Unresolved::OutOfRange) => {
                fill(runtime.out_of_range, &[("code", &code.builtin.code())])
            }
            Some(Unresolved::NotFound) => fill(
                runtime.not_found,
                &[
                    ("op", &name_of(code.builtin.code())),
                    ("version", &code.version.get()),
                ],
            ),
            Some(Unresolved::NoCustomCode) => runtime.no_custom_code.to_owned(),
        };
        return Construction::Refused(RefusedBy::Operator, text);
    }
    if !load.has_subgraphs {
        return Construction::Crashes;
    }
    if model.subgraph_count() == 0 {
        return Construction::Refused(RefusedBy::Structure, runtime.no_subgraphs.to_owned());
    }
    let Some(buffers) = load.buffers else {
        return Construction::Refused(RefusedBy::Structure, runtime.no_buffers.to_owned());
    };
    let mut odd = load.odd_tensors.iter().peekable();
    let mut options = load.missing_options.iter().peekable();
    for (s, &has_tensors) in load.has_tensors.iter().enumerate() {
        if !has_tensors {
            let text = fill(runtime.no_tensors, &[("subgraph", &s)]);
            return Construction::Refused(RefusedBy::Structure, text);
        }
        let mut text = String::new();
        while let Some(tensor) = odd.next_if(|t| t.subgraph == s) {
            match parse_tensor(runtime, tensor, buffers, &mut text) {
                Parsed::Accepted => {}
                Parsed::Refused if text.len() > TEXT_CAP => {
                    text.push_str(TEXT_CUT);
                    break;
                }
                Parsed::Refused => {}
                // `get_readonly_data` fails: the subgraph's tensors stop there.
                Parsed::Fatal => break,
            }
        }
        if !text.is_empty() {
            return Construction::Refused(RefusedBy::Tensor, text);
        }
        // `ParseNodes`: an operator whose options `ParseOpData` cannot do without.
        while let Some(missing) = options.next_if(|m| m.subgraph == s) {
            if let Some(&(_, text)) = runtime
                .options_required
                .iter()
                .find(|(code, _)| *code == missing.op.code())
            {
                return Construction::Refused(RefusedBy::OperatorOptions, text.to_owned());
            }
        }
    }
    Construction::Constructs
}

/// The longest text a verdict keeps of a runtime's reports on tensors. TFLite reports every
/// tensor it refuses, one after the other, in one exception: a model whose tensors it refuses
/// by the thousand (a hostile one, or one written by a tool that leaves out their data) gets a
/// text of megabytes, for each runtime. The verdict keeps the first 64 KiB of it, whole reports
/// only, and then says that it stopped ([`TEXT_CUT`]); no real model comes near.
pub(crate) const TEXT_CAP: usize = 64 * 1024;

/// What follows a text cut at [`TEXT_CAP`].
pub(crate) const TEXT_CUT: &str =
    "[tflite-opver: the runtime reports more tensors in the same way; the text stops here]";

/// What `ParseTensors` made of one tensor.
enum Parsed {
    Accepted,
    /// Reported; the next tensor is parsed, and the subgraph then fails.
    Refused,
    /// Reported; the subgraph fails at once.
    Fatal,
}

/// `InterpreterBuilder::ParseTensors` for one tensor: appends what the runtime reports.
fn parse_tensor(
    runtime: &RuntimeFacts,
    tensor: &OddTensor,
    buffers: usize,
    text: &mut String,
) -> Parsed {
    let t = tensor.index;
    let Some(facts) = type_facts(runtime, tensor.type_) else {
        text.push_str(&fill(runtime.unsupported_type, &[("type", &tensor.type_)]));
        return Parsed::Refused;
    };
    if tensor.buffer != 0 && tensor.buffer as usize >= buffers {
        text.push_str(&fill(
            runtime.buffer_out_of_range,
            &[
                ("tensor", &t),
                ("buffer", &tensor.buffer),
                ("buffers", &buffers),
            ],
        ));
        return Parsed::Fatal;
    }
    let mut refused = false;
    if let Some(q) = tensor.quantization
        && q.scales > 0
        && let Some(reported) = quantization_refusal(runtime, q, &tensor.dims, t)
    {
        text.push_str(&reported);
        refused = true;
    }
    let constant = tensor.buffer != 0
        && match tensor.data {
            None => false,
            Some(0) => runtime.empty_data_is_constant,
            Some(_) => true,
        };
    // Strings, resources and variants: sizes are not checked (and they cannot be variables).
    let unsized_kind = facts.bits == Some(0);
    if constant {
        if tensor.is_variable {
            text.push_str(&fill(runtime.variable_with_buffer, &[("tensor", &t)]));
            refused = true;
        }
        // A sparsity table without its vectors is refused, and the tensor then checked as a
        // dense one (`ParseSparsity` leaves it without sparsity).
        let mut sparse = false;
        if let Some(sparsity) = tensor.sparsity {
            if sparsity.traversal_order && sparsity.dim_metadata {
                sparse = true;
            } else {
                text.push_str(&fill(runtime.sparsity_invalid, &[("tensor", &t)]));
                refused = true;
            }
        }
        if !unsized_kind && !sparse {
            let len = tensor.data.unwrap_or(0) as u64;
            match required_bytes(runtime, facts, &tensor.dims, t, Shape::Constant) {
                Err(reported) => {
                    text.push_str(&reported);
                    refused = true;
                }
                Ok(required) => {
                    let fits = if runtime.larger_buffer_accepted {
                        required <= len
                    } else {
                        required == len
                    };
                    if !fits {
                        text.push_str(&fill(
                            runtime.size_mismatch,
                            &[
                                ("tensor", &t),
                                ("required", &printed_as_int(required)),
                                ("bytes", &printed_as_int(len)),
                            ],
                        ));
                        refused = true;
                    }
                }
            }
        }
    } else if !unsized_kind {
        if let Err(reported) = required_bytes(runtime, facts, &tensor.dims, t, Shape::ReadWrite) {
            text.push_str(&reported);
            refused = true;
        }
    } else if tensor.is_variable {
        text.push_str(&fill(runtime.string_variable, &[("tensor", &t)]));
        refused = true;
    }
    if refused {
        Parsed::Refused
    } else {
        Parsed::Accepted
    }
}

fn type_facts(runtime: &RuntimeFacts, value: i8) -> Option<&'static TypeFacts> {
    runtime.types.iter().find(|t| t.value == value)
}

/// Whether `BytesRequired` is computed for a constant or a read-write tensor: a type whose size
/// is unknown is refused with a text of each kind.
#[derive(Clone, Copy)]
enum Shape {
    Constant,
    ReadWrite,
}

/// `BytesRequired` for a tensor of `dims` of the type `facts` describes: the bytes, or the
/// report of the failure (the element count or byte count past `size_t`, or a type whose size
/// is unknown).
fn required_bytes(
    runtime: &RuntimeFacts,
    facts: &TypeFacts,
    dims: &[i32],
    t: usize,
    shape: Shape,
) -> Result<u64, String> {
    let overflow = |template: &str| fill(template, &[("tensor", &t)]);
    let mut count: u64 = 1;
    for &d in dims {
        if d < 0 && runtime.negative_dimension_refused {
            return Err(overflow(runtime.elements_overflow));
        }
        // Older runtimes cast the `int` to `size_t`, as C++ does.
        count = multiply_and_check_overflow(count, d as i64 as u64)
            .ok_or_else(|| overflow(runtime.elements_overflow))?;
    }
    let Some(bits) = facts.bits else {
        let refusal = match shape {
            Shape::Constant => facts.constant_refusal,
            Shape::ReadWrite => facts.read_write_refusal,
        };
        return Err(overflow(refusal.unwrap_or("")));
    };
    // `GetSizeOfType` gives sub-byte types one byte each; `BytesRequired` packs them after.
    let type_size = u64::from(bits.max(8) / 8);
    let bytes = multiply_and_check_overflow(type_size, count)
        .ok_or_else(|| overflow(runtime.bytes_overflow))?;
    Ok(match bits {
        4 => bytes.div_ceil(2),
        2 => bytes.div_ceil(4),
        1 => bytes.div_ceil(8),
        _ => bytes,
    })
}

/// TFLite's `MultiplyAndCheckOverflow` on a 64-bit `size_t`.
fn multiply_and_check_overflow(a: u64, b: u64) -> Option<u64> {
    let product = a.wrapping_mul(b);
    if (a | b) >> 32 != 0 && a != 0 && product / a != b {
        None
    } else {
        Some(product)
    }
}

/// `ParseQuantization`'s report on parameters with scales, if it refuses them.
fn quantization_refusal(
    runtime: &RuntimeFacts,
    q: QuantizationCounts,
    dims: &[i32],
    t: usize,
) -> Option<String> {
    let rank = dims.len();
    let Some(zero_points) = q.zero_points else {
        return Some(fill(runtime.quantization_no_zero_point, &[("tensor", &t)]));
    };
    if zero_points != q.scales {
        return Some(fill(
            runtime.quantization_counts,
            &[
                ("tensor", &t),
                ("zero_points", &zero_points),
                ("scales", &q.scales),
            ],
        ));
    }
    if q.dimension < 0 || (rank > 0 && q.dimension as usize >= rank) {
        return Some(fill(
            runtime.quantization_dimension,
            &[("tensor", &t), ("rank", &rank), ("dimension", &q.dimension)],
        ));
    }
    if q.scales != 1
        && rank > 0
        && let Some(&expected) = dims.get(q.dimension as usize)
        && q.scales as i64 != i64::from(expected)
    {
        return Some(fill(
            runtime.quantization_scales,
            &[
                ("tensor", &t),
                ("expected", &expected),
                ("scales", &q.scales),
            ],
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::runtimes::RUNTIMES;
    use crate::model::load_facts::{COMMON_TYPE_BITS, OPTIONS_NEEDED};

    #[test]
    fn every_runtime_accepts_the_common_types_at_their_sizes() {
        for runtime in RUNTIMES {
            for (value, &bits) in COMMON_TYPE_BITS.iter().enumerate() {
                let facts = type_facts(runtime, value as i8)
                    .unwrap_or_else(|| panic!("{}: type {value}", runtime.version));
                assert_eq!(facts.bits, Some(bits), "{} type {value}", runtime.version);
                assert!(facts.read_write_refusal.is_none());
            }
        }
    }

    /// Every operator a runtime refuses without its options is one whose parser the crate knows
    /// needs them, and the runtimes' schemas name every builtin code as the crate does.
    #[test]
    fn the_facts_agree_with_the_crates_own_tables() {
        for runtime in RUNTIMES {
            for &(code, text) in runtime.options_required {
                assert!(
                    OPTIONS_NEEDED.contains(&BuiltinOperator::new(code)),
                    "{}: {code} ({text})",
                    runtime.version
                );
            }
        }
        for (code, name) in NAMES.iter().enumerate() {
            let op = BuiltinOperator::new(code as i32);
            if op != BuiltinOperator::CUSTOM {
                assert_eq!(op.name(), Some(*name), "{code}");
            }
        }
    }

    #[test]
    fn sizes_overflow_as_in_cpp() {
        assert_eq!(multiply_and_check_overflow(4, 3), Some(12));
        assert_eq!(multiply_and_check_overflow(1, u64::MAX), Some(u64::MAX));
        assert_eq!(multiply_and_check_overflow(2, u64::MAX), None);
        assert_eq!(multiply_and_check_overflow(0, u64::MAX), Some(0));
        assert_eq!(multiply_and_check_overflow(1 << 32, 1 << 32), None);
        assert_eq!(printed_as_int(8), 8);
        assert_eq!(printed_as_int(u64::MAX), -1);
        assert_eq!(printed_as_int(1 << 32), 0);
    }

    #[test]
    fn templates_fill_each_placeholder() {
        assert_eq!(
            fill(
                "Tensor {tensor} of {tensor}: {x}",
                &[("tensor", &3), ("x", &"y")]
            ),
            "Tensor 3 of 3: y"
        );
    }
}
