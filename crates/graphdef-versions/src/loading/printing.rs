//! How TensorFlow prints ops, attr values and data types inside its error messages, release by
//! release.
//!
//! A release's refusal quotes the op it judged by (`Op<name=Range; signature=...>`), the value
//! it refused and the types it expected. These functions print them the way TensorFlow's own
//! helpers do, so a message can be compared with the real one byte for byte:
//! `DataTypeString` (`tensorflow/core/framework/types.cc`), `SummarizeAttrValue`
//! (`tensorflow/core/framework/attr_value_util.cc`) and `SummarizeOpDef`
//! (`tensorflow/core/framework/op_def_util.cc`).

use super::fingerprint::fingerprint64;
use crate::policy::ReleaseNumber;
use crate::schema::attr_value::{ListValue, Value};
use crate::schema::{AttrValue, NameAttrList, OpDef, TensorProto, TensorShapeProto};

/// Offset TensorFlow adds to a data type to make its reference type (`DT_FLOAT_REF` is 101).
const REF_OFFSET: i32 = 100;

/// Data types by enum value: the `DataType` enum name and the lower-case name
/// `DataTypeString` prints (`tensorflow/core/framework/types.proto`, `types.cc`), as of 2.21.
const DATA_TYPES: [(&str, &str); 34] = [
    ("DT_INVALID", "INVALID"),
    ("DT_FLOAT", "float"),
    ("DT_DOUBLE", "double"),
    ("DT_INT32", "int32"),
    ("DT_UINT8", "uint8"),
    ("DT_INT16", "int16"),
    ("DT_INT8", "int8"),
    ("DT_STRING", "string"),
    ("DT_COMPLEX64", "complex64"),
    ("DT_INT64", "int64"),
    ("DT_BOOL", "bool"),
    ("DT_QINT8", "qint8"),
    ("DT_QUINT8", "quint8"),
    ("DT_QINT32", "qint32"),
    ("DT_BFLOAT16", "bfloat16"),
    ("DT_QINT16", "qint16"),
    ("DT_QUINT16", "quint16"),
    ("DT_UINT16", "uint16"),
    ("DT_COMPLEX128", "complex128"),
    ("DT_HALF", "half"),
    ("DT_RESOURCE", "resource"),
    ("DT_VARIANT", "variant"),
    ("DT_UINT32", "uint32"),
    ("DT_UINT64", "uint64"),
    ("DT_FLOAT8_E5M2", "float8_e5m2"),
    ("DT_FLOAT8_E4M3FN", "float8_e4m3fn"),
    ("DT_FLOAT8_E4M3FNUZ", "float8_e4m3fnuz"),
    ("DT_FLOAT8_E4M3B11FNUZ", "float8_e4m3b11fnuz"),
    ("DT_FLOAT8_E5M2FNUZ", "float8_e5m2fnuz"),
    ("DT_INT4", "int4"),
    ("DT_UINT4", "uint4"),
    ("DT_INT2", "int2"),
    ("DT_UINT2", "uint2"),
    ("DT_FLOAT4_E2M1FN", "float4_e2m1fn"),
];

/// Whether `dtype` is a reference type (`float_ref`).
pub(crate) fn is_ref(dtype: i32) -> bool {
    dtype > REF_OFFSET
}

/// The reference type of `dtype` (`MakeRefType`).
pub(crate) fn ref_type(dtype: i32) -> i32 {
    dtype + REF_OFFSET
}

/// The type a reference type refers to; other types unchanged.
pub(crate) fn base_type(dtype: i32) -> i32 {
    if is_ref(dtype) {
        dtype - REF_OFFSET
    } else {
        dtype
    }
}

/// Whether an edge carrying `actual` may feed an input expecting `expected` (`TypesCompatible`,
/// `tensorflow/core/framework/types.h`): equal, or a reference to the expected type.
pub(crate) fn types_compatible(expected: i32, actual: i32) -> bool {
    expected == actual || expected == base_type(actual)
}

/// How long lists are shortened in a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum LongLists {
    /// 2.12: 15 entries or more print the first five, the farmhash of the ones in between
    /// (joined by `,`), and the last five.
    MiddleFingerprint,
    /// 2.13 on: 30 entries or more print the first five, `...`, the last five, and
    /// `{attr_hash=N}`, the farmhash of all of them joined by `,`.
    Ellipsis,
}

/// What differs between releases in how they print: which data types they know, how they
/// shorten long lists, and how they word a missing op (all found by running each release).
///
/// Releases of one dialect word every message alike, so they refuse a graph in the same
/// words when they define its ops alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Dialect {
    max_dtype: i32,
    long_lists: LongLists,
    /// Before 2.14, the `tf.contrib.resampler` example of a missing op came later.
    contrib_example_last: bool,
}

impl Dialect {
    /// TensorFlow 2.21's.
    #[cfg(test)]
    pub(crate) const LATEST: Dialect = Dialect {
        max_dtype: 33,
        long_lists: LongLists::Ellipsis,
        contrib_example_last: false,
    };

    /// The dialect of the release `major.minor`: the largest `DataType` its `types.proto`
    /// defines (25 up to 2.14, 30 up to 2.19, 32 in 2.20, 33 in 2.21).
    pub(crate) fn of(release: ReleaseNumber) -> Dialect {
        let (major, minor) = (release.major, release.minor);
        let max_dtype = match (major, minor) {
            (2, ..=14) => 25,
            (2, ..=19) => 30,
            (2, 20) => 32,
            _ => 33,
        };
        let long_lists = if (major, minor) < (2, 13) {
            LongLists::MiddleFingerprint
        } else {
            LongLists::Ellipsis
        };
        Dialect {
            max_dtype,
            long_lists,
            contrib_example_last: (major, minor) < (2, 14),
        }
    }

    /// Whether every data type this dialect knows, a `newer` one knows too: what a release
    /// accepts for its types, a release of the newer dialect accepts.
    pub(crate) fn known_types_within(&self, newer: &Dialect) -> bool {
        self.max_dtype <= newer.max_dtype
    }

    /// `OpRegistry::LookUp`'s refusal of an op it does not have, on a machine named `host`.
    pub(crate) fn op_not_registered(&self, op: &str, host: &str) -> String {
        if self.contrib_example_last {
            format!(
                "Op type not registered '{op}' in binary running on {host}. Make sure the Op \
                 and Kernel are registered in the binary running in this process. Note that if \
                 you are loading a saved graph which used ops from tf.contrib, accessing (e.g.) \
                 `tf.contrib.resampler` should be done before importing the graph, as contrib \
                 ops are lazily registered when the module is first accessed."
            )
        } else {
            format!(
                "Op type not registered '{op}' in binary running on {host}. Make sure the Op \
                 and Kernel are registered in the binary running in this process. Note that if \
                 you are loading a saved graph which used ops from tf.contrib (e.g. \
                 `tf.contrib.resampler`), accessing should be done before importing the graph, \
                 as contrib ops are lazily registered when the module is first accessed."
            )
        }
    }

    /// `DataType_IsValid`: whether the release's `DataType` enum has the value (a reference
    /// type is valid when its base type is).
    pub(crate) fn is_valid_dtype(&self, dtype: i32) -> bool {
        (0..=self.max_dtype).contains(&base_type(dtype))
    }

    fn known(&self, dtype: i32) -> Option<(&'static str, &'static str)> {
        if dtype > self.max_dtype {
            return None;
        }
        usize::try_from(dtype)
            .ok()
            .and_then(|index| DATA_TYPES.get(index))
            .copied()
    }

    /// `DataTypeString`: `float`, `int32`, `float_ref`, `unknown dtype enum (77)`.
    pub(crate) fn dtype_string(&self, dtype: i32) -> String {
        if is_ref(dtype) {
            if let Some((_, name)) = self.known(dtype - REF_OFFSET) {
                return format!("{name}_ref");
            }
        } else if let Some((_, name)) = self.known(dtype) {
            return name.to_string();
        }
        format!("unknown dtype enum ({dtype})")
    }

    /// The enum name (`DT_FLOAT`, `DT_FLOAT_REF`); empty for a value the release does not
    /// know, as protobuf's `EnumName` returns.
    fn dtype_enum_name(&self, dtype: i32) -> String {
        if is_ref(dtype) {
            if let Some((name, _)) = self.known(dtype - REF_OFFSET) {
                return format!("{name}_REF");
            }
        } else if let Some((name, _)) = self.known(dtype) {
            return name.to_string();
        }
        String::new()
    }

    /// `DataTypeVectorString`: the types joined by `", "`.
    pub(crate) fn dtypes_string(&self, dtypes: &[i32]) -> String {
        dtypes
            .iter()
            .map(|&t| self.dtype_string(t))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `absl::CEscape`: C escapes for quotes, backslash and control bytes, octal for the rest of
/// the unprintable bytes.
pub(crate) fn c_escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

/// `SummarizeString`: quoted and escaped; a long one keeps its first and last ten characters.
fn summarize_string(bytes: &[u8]) -> String {
    let escaped = c_escape(bytes);
    if escaped.len() >= 80 {
        // The escaped text is ASCII, so any byte index is a character boundary.
        let (prefix, suffix) = (&escaped[..10], &escaped[escaped.len() - 10..]);
        format!("\"{prefix}...{suffix}\"")
    } else {
        format!("\"{escaped}\"")
    }
}

/// C's `%.{precision}g`.
fn format_g(value: f64, precision: usize) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let precision = precision.max(1);
    let scientific = format!("{:.*e}", precision - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let mantissa = strip_zeros(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        strip_zeros(&format!("{value:.decimals$}")).to_string()
    }
}

fn strip_zeros(number: &str) -> &str {
    if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    }
}

/// How `strings::StrCat` prints a float: the shortest of 6 or 9 significant digits that reads
/// back as the same value (`FloatToBuffer`, `tensorflow/tsl/platform/numbers.cc`).
pub(crate) fn float_string(value: f32) -> String {
    let short = format_g(f64::from(value), 6);
    if short.parse::<f32>().is_ok_and(|back| back == value) || value.is_nan() {
        short
    } else {
        format_g(f64::from(value), 9)
    }
}

/// `PartialTensorShape::DebugString`: `[?,3]`, `[]`, `<unknown>`.
fn shape_string(shape: &TensorShapeProto) -> String {
    if shape.unknown_rank {
        return "<unknown>".to_string();
    }
    let dims: Vec<String> = shape
        .dim
        .iter()
        .map(|d| {
            if d.size < 0 {
                "?".to_string()
            } else {
                d.size.to_string()
            }
        })
        .collect();
    format!("[{}]", dims.join(","))
}

impl Dialect {
    /// A short form of `Tensor::DebugString`, for tensors in op defaults (rare).
    fn tensor_string(&self, tensor: &TensorProto) -> String {
        let shape = tensor
            .tensor_shape
            .as_ref()
            .map(shape_string)
            .unwrap_or_else(|| "[]".to_string());
        format!(
            "Tensor<type: {} shape: {shape} values: ...>",
            self.dtype_string(tensor.dtype)
        )
    }

    /// A list's pieces between brackets, shortened as the release does.
    fn shorten(&self, pieces: Vec<String>) -> String {
        match self.long_lists {
            LongLists::MiddleFingerprint if pieces.len() >= 15 => {
                let middle = &pieces[5..pieces.len() - 5];
                let fingerprint = fingerprint64(middle.join(",").as_bytes());
                let mut shown: Vec<String> = pieces[..5].to_vec();
                shown.push(fingerprint.to_string());
                shown.extend_from_slice(&pieces[pieces.len() - 5..]);
                format!("[{}]", shown.join(", "))
            }
            LongLists::Ellipsis if pieces.len() >= 30 => {
                let fingerprint = fingerprint64(pieces.join(",").as_bytes());
                let mut shown: Vec<String> = pieces[..5].to_vec();
                shown.push("...".to_string());
                shown.extend_from_slice(&pieces[pieces.len() - 5..]);
                format!("[{}]{{attr_hash={fingerprint}}}", shown.join(", "))
            }
            _ => format!("[{}]", pieces.join(", ")),
        }
    }

    fn summarize_func(&self, func: &NameAttrList) -> String {
        let mut entries: Vec<String> = func
            .attr
            .iter()
            .map(|(name, value)| format!("{name}={}", self.summarize_attr_value(value)))
            .collect();
        entries.sort();
        format!("{}[{}]", func.name, entries.join(", "))
    }

    fn summarize_list(&self, list: &ListValue) -> String {
        let pieces: Vec<String> = if !list.s.is_empty() {
            list.s.iter().map(|s| summarize_string(s)).collect()
        } else if !list.i.is_empty() {
            list.i.iter().map(i64::to_string).collect()
        } else if !list.f.is_empty() {
            list.f.iter().map(|&f| float_string(f)).collect()
        } else if !list.b.is_empty() {
            list.b.iter().map(bool::to_string).collect()
        } else if !list.r#type.is_empty() {
            list.r#type
                .iter()
                .map(|&t| self.dtype_enum_name(t))
                .collect()
        } else if !list.shape.is_empty() {
            list.shape.iter().map(shape_string).collect()
        } else if !list.tensor.is_empty() {
            list.tensor.iter().map(|t| self.tensor_string(t)).collect()
        } else {
            list.func.iter().map(|f| self.summarize_func(f)).collect()
        };
        self.shorten(pieces)
    }

    /// `SummarizeAttrValue`: `DT_FLOAT`, `"NDHWC"`, `[1, 1]`, `0.0001`, `true`.
    pub(crate) fn summarize_attr_value(&self, value: &AttrValue) -> String {
        match &value.value {
            Some(Value::S(s)) => summarize_string(s),
            Some(Value::I(i)) => i.to_string(),
            Some(Value::F(f)) => float_string(*f),
            Some(Value::B(b)) => b.to_string(),
            Some(Value::Type(t)) => self.dtype_enum_name(*t),
            Some(Value::Shape(shape)) => shape_string(shape),
            Some(Value::Tensor(tensor)) => self.tensor_string(tensor),
            Some(Value::List(list)) => self.summarize_list(list),
            Some(Value::Func(func)) => self.summarize_func(func),
            Some(Value::Placeholder(name)) => format!("${name}"),
            None => "<Unknown AttrValue type>".to_string(),
        }
    }

    /// `SummarizeArgs`: `input:T, filter:T, args:num_args*T`.
    fn summarize_args(&self, args: &[crate::schema::op_def::ArgDef]) -> String {
        args.iter()
            .map(|arg| self.summarize_arg(arg))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One argument as both `SummarizeArgs` (`op_def_util.cc`) and `Print(ArgDef)`
    /// (`function.cc`) print it: `y1:float`, `args:num_args*T`, `ref:Ref(T)`.
    pub(crate) fn summarize_arg(&self, arg: &crate::schema::op_def::ArgDef) -> String {
        let mut out = format!("{}:", arg.name);
        if arg.is_ref {
            out.push_str("Ref(");
        }
        if !arg.number_attr.is_empty() {
            out.push_str(&arg.number_attr);
            out.push('*');
        }
        if arg.r#type != 0 {
            out.push_str(&self.dtype_string(arg.r#type));
        } else {
            out.push_str(&arg.type_attr);
        }
        if arg.is_ref {
            out.push(')');
        }
        out
    }

    /// `SummarizeOpDef`: `Op<name=...; signature=... -> ...; attr=T:type,allowed=[...]>`.
    pub(crate) fn summarize_op_def(&self, op: &OpDef) -> String {
        let mut out = format!(
            "Op<name={}; signature={} -> {}",
            op.name,
            self.summarize_args(&op.input_arg),
            self.summarize_args(&op.output_arg)
        );
        for attr in &op.attr {
            out.push_str(&format!("; attr={}:{}", attr.name, attr.r#type));
            if let Some(default) = &attr.default_value {
                out.push_str(",default=");
                out.push_str(&self.summarize_attr_value(default));
            }
            if attr.has_minimum {
                out.push_str(&format!(",min={}", attr.minimum));
            }
            if let Some(allowed) = &attr.allowed_values {
                out.push_str(",allowed=");
                out.push_str(&self.summarize_attr_value(allowed));
            }
        }
        for (set, name) in [
            (op.is_commutative, "is_commutative"),
            (op.is_aggregate, "is_aggregate"),
            (op.is_stateful, "is_stateful"),
            (op.allows_uninitialized_input, "allows_uninitialized_input"),
            (
                op.is_distributed_communication,
                "is_distributed_communication",
            ),
        ] {
            if set {
                out.push_str(&format!("; {name}=true"));
            }
        }
        out.push('>');
        out
    }
}

/// `FormatNodeDefForError`: `{{node NAME}}`.
pub(crate) fn node_for_error(name: &str) -> String {
    format!("{{{{node {name}}}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_strcat_does() {
        for (value, text) in [
            (0.0001f32, "0.0001"),
            (0.2, "0.2"),
            (1.0, "1"),
            (1e-5, "1e-05"),
            (0.1, "0.1"),
            (123456.0, "123456"),
            (1234567.0, "1234567"),
            (1e10, "1e+10"),
            (-2.5, "-2.5"),
            (f32::INFINITY, "inf"),
        ] {
            assert_eq!(float_string(value), text, "{value}");
        }
    }

    #[test]
    fn data_types_print_by_both_names() {
        let d = Dialect::LATEST;
        assert_eq!(d.dtype_string(1), "float");
        assert_eq!(d.dtype_string(101), "float_ref");
        assert_eq!(d.dtype_string(33), "float4_e2m1fn");
        assert_eq!(d.dtype_string(77), "unknown dtype enum (77)");
        assert_eq!(d.dtype_enum_name(14), "DT_BFLOAT16");
        assert!(types_compatible(1, 101));
        assert!(!types_compatible(101, 1));
    }

    #[test]
    fn strings_escape_and_shorten() {
        assert_eq!(summarize_string(b"a\"b\n"), "\"a\\\"b\\n\"");
        let long = vec![b'x'; 100];
        assert_eq!(
            summarize_string(&long),
            format!("\"{}...{}\"", "x".repeat(10), "x".repeat(10))
        );
    }
}

#[cfg(test)]
mod long_list_tests {
    use super::*;

    fn types(n: usize) -> AttrValue {
        AttrValue {
            value: Some(Value::List(ListValue {
                r#type: (1..=n as i32).collect(),
                ..ListValue::default()
            })),
        }
    }

    #[test]
    fn long_lists_shorten_as_each_release_printed() {
        // A function attr allowed 15 and 30 types; 2.12.1 and 2.21.0 printed these.
        let old = Dialect::of(ReleaseNumber::new(2, 12, 1));
        assert_eq!(
            old.summarize_attr_value(&types(15)),
            "[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, 13693608440278487820, \
             DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16]"
        );
        assert_eq!(
            old.summarize_attr_value(&types(14)).matches(", ").count(),
            13
        );
        let new = Dialect::of(ReleaseNumber::new(2, 21, 0));
        assert_eq!(
            new.summarize_attr_value(&types(30)),
            "[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, ..., DT_FLOAT8_E4M3FNUZ, \
             DT_FLOAT8_E4M3B11FNUZ, DT_FLOAT8_E5M2FNUZ, DT_INT4, DT_UINT4]\
             {attr_hash=11565002296175249452}"
        );
        // 2.13.1 did not know types 26 to 30 and printed them as empty names.
        assert_eq!(
            Dialect::of(ReleaseNumber::new(2, 13, 1)).summarize_attr_value(&types(30)),
            "[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, ..., , , , , ]\
             {attr_hash=263973667344577082}"
        );
    }
}
