//! Minimum runtime versions: which TFLite release first runs each (operator, version).

use core::cmp::Ordering;
use core::fmt;
use core::str::FromStr;

use crate::error::Error;
use crate::operator::code::{BuiltinOperator, OpVersion};

/// A TFLite runtime (TensorFlow release) version: decimal numbers separated by dots, such as
/// `2.3.0`.
///
/// Ordering follows TF's `CompareRuntimeVersion` for such strings: numeric per component, and
/// when one version is a prefix of the other the shorter comes first (`1.14 < 1.14.1`,
/// `2.3 < 2.3.0`). Equality is on the numbers, so `02.3.0 == 2.3.0`; [`fmt::Display`] writes the
/// canonical form.
///
/// Components are limited to TF's `int` range (0 to 2³¹−1) and there are at most
/// [`RuntimeVersion::MAX_COMPONENTS`] of them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuntimeVersion {
    // Unused trailing slots stay 0 so the derived `Eq`/`Hash` see only the used prefix + len.
    parts: [u32; RuntimeVersion::MAX_COMPONENTS],
    len: u8,
}

impl RuntimeVersion {
    /// The most dot-separated components a version may have.
    pub const MAX_COMPONENTS: usize = 6;

    /// Size of the `min_runtime_version` metadata buffer the converter writes: the version
    /// string, NUL-padded (`runtime_version.cc`).
    pub const METADATA_BUFFER_LEN: usize = 16;

    /// The metadata name under which a model stores its minimum runtime version.
    pub const METADATA_NAME: &'static str = "min_runtime_version";

    /// A three-component version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        let mut parts = [0; Self::MAX_COMPONENTS];
        parts[0] = major;
        parts[1] = minor;
        parts[2] = patch;
        Self { parts, len: 3 }
    }

    /// Parses dot-separated decimal numbers (`"2.3.0"`, `"1.14"`). Anything else (empty text,
    /// empty components, signs, spaces, letters, too many components, numbers above 2³¹−1) is
    /// an [`Error::InvalidRuntimeVersion`].
    pub fn parse(text: &str) -> Result<Self, Error> {
        match parse_bytes(text.as_bytes()) {
            Ok(version) => Ok(version),
            Err(reason) => Err(Error::InvalidRuntimeVersion {
                text: text.to_owned(),
                reason,
            }),
        }
    }

    /// The numeric components, most significant first.
    pub fn components(&self) -> &[u32] {
        &self.parts[..usize::from(self.len)]
    }

    /// The 16-byte, NUL-padded `min_runtime_version` buffer content for this version, as the
    /// converter writes it. TFLite refuses (skips writing) strings of 16 bytes or more; so do
    /// we, with [`Error::RuntimeVersionTooLong`].
    pub fn to_metadata_bytes(&self) -> Result<[u8; Self::METADATA_BUFFER_LEN], Error> {
        let text = self.to_string();
        if text.len() >= Self::METADATA_BUFFER_LEN {
            return Err(Error::RuntimeVersionTooLong {
                len: text.len(),
                version: text,
            });
        }
        let mut buffer = [0u8; Self::METADATA_BUFFER_LEN];
        buffer[..text.len()].copy_from_slice(text.as_bytes());
        Ok(buffer)
    }
}

/// The text of a stored `min_runtime_version` buffer: the bytes up to the first NUL (all of
/// them if there is none), as TFLite reads it. Returns `None` when those bytes are not UTF-8.
///
/// ```
/// use tflite_opver::metadata_text;
///
/// assert_eq!(metadata_text(b"1.14.0\0\0\0\0\0\0\0\0\0\0"), Some("1.14.0"));
/// assert_eq!(metadata_text(b"\0\0\0\0"), Some(""));
/// ```
pub fn metadata_text(buffer: &[u8]) -> Option<&str> {
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    core::str::from_utf8(&buffer[..end]).ok()
}

/// Largest component value: TF parses components into a C++ `int`.
const MAX_COMPONENT: u32 = i32::MAX as u32;

/// Strict parser shared by [`RuntimeVersion::parse`] and the compile-time table.
const fn parse_bytes(bytes: &[u8]) -> Result<RuntimeVersion, &'static str> {
    if bytes.is_empty() {
        return Err("it is empty");
    }
    let mut parts = [0u32; RuntimeVersion::MAX_COMPONENTS];
    let mut len = 0usize;
    let mut value: u32 = 0;
    let mut digits = 0usize;
    let mut i = 0usize;
    while i <= bytes.len() {
        if i == bytes.len() || bytes[i] == b'.' {
            if digits == 0 {
                return Err("a component is empty");
            }
            if len == RuntimeVersion::MAX_COMPONENTS {
                return Err("it has more than 6 components");
            }
            parts[len] = value;
            len += 1;
            value = 0;
            digits = 0;
        } else {
            let b = bytes[i];
            if !b.is_ascii_digit() {
                return Err("a component is not a decimal number");
            }
            // Checked in u64 so that no digit string can overflow before the range check.
            let next = value as u64 * 10 + (b - b'0') as u64;
            if next > MAX_COMPONENT as u64 {
                return Err("a component is larger than 2147483647");
            }
            value = next as u32;
            digits += 1;
        }
        i += 1;
    }
    Ok(RuntimeVersion {
        parts,
        len: len as u8,
    })
}

/// Compile-time version literal for the fact table; a typo fails the build.
const fn rv(text: &str) -> RuntimeVersion {
    match parse_bytes(text.as_bytes()) {
        Ok(v) => v,
        Err(_) => panic!("bad runtime version literal in the table"),
    }
}

impl Ord for RuntimeVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        // Lexicographic on the numbers; a strict prefix sorts first. For numeric strings this
        // is exactly TF's CompareRuntimeVersion.
        self.components().cmp(other.components())
    }
}

impl PartialOrd for RuntimeVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl FromStr for RuntimeVersion {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}

impl fmt::Display for RuntimeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.components().iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{part}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for RuntimeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RuntimeVersion({self})")
    }
}

/// TF's `CompareRuntimeVersion(a, b)`: whether runtime version string `a` comes before `b`, for
/// any strings, exactly as TFLite decides it.
///
/// Both strings are split on `'.'` (an empty string is one empty component). Components are
/// compared pairwise as integers; a pair where either side is not an integer (by `absl`'s
/// `SimpleAtoi`: optional surrounding ASCII whitespace, optional sign, decimal digits, within
/// `int` range) is skipped as if equal. The first differing pair decides; if none does, `a` comes
/// first exactly when `b` has more components. So `"1.14" < "1.14.1"`, `"" < "1.5.0"`, but not
/// `"" < "2"`, and `"a.b.c"` is neither before nor after `"1.2.3"`.
///
/// ```
/// use tflite_opver::compare_runtime_version;
///
/// assert!(compare_runtime_version("1.14", "1.14.1"));
/// assert!(compare_runtime_version("1.9.0", "1.10.0"));
/// assert!(!compare_runtime_version("2.3.0", "2.3"));
/// ```
pub fn compare_runtime_version(a: &str, b: &str) -> bool {
    let mut left = a.split('.');
    let mut right = b.split('.');
    loop {
        match (left.next(), right.next()) {
            (Some(x), Some(y)) => {
                if let (Some(x), Some(y)) = (simple_atoi(x), simple_atoi(y))
                    && x != y
                {
                    return x < y;
                }
            }
            // `b` has components left over: `a` is a prefix of it.
            (None, Some(_)) => return true,
            (_, None) => return false,
        }
    }
}

/// `absl::SimpleAtoi` into an `int`: trims ASCII whitespace on both sides, accepts one leading
/// `+` or `-`, then at least one decimal digit and nothing else, within `i32` range.
fn simple_atoi(text: &str) -> Option<i32> {
    // absl::ascii_isspace: space, \t, \n, \v, \f, \r.
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r');
    let text = text.trim_matches(is_space);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        value = value * 10 + i64::from(b - b'0');
        if value > i64::from(i32::MAX) + 1 {
            return None;
        }
    }
    let value = if negative { -value } else { value };
    i32::try_from(value).ok()
}

/// One row of TF's minimum-runtime table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuntimeTableEntry {
    /// The operator.
    pub op: BuiltinOperator,
    /// The operator version.
    pub version: OpVersion,
    /// The first TFLite runtime with a kernel for this operator version.
    pub min_runtime: RuntimeVersion,
}

/// Every row of TF's minimum-runtime table, in TF's order.
///
/// Every `(BuiltinOperator, version)` pair TensorFlow has shipped a kernel for is listed with
/// the first TFLite runtime that has it ([`min_runtime_version_for_op`], TF's
/// `FindMinimumRuntimeVersionForOp`). A model's minimum runtime is the largest of those over its
/// operators ([`min_runtime_version_for_model`], TF's `UpdateMinimumRuntimeVersionForModel`),
/// and the converter stores it NUL-padded in a 16-byte metadata buffer named
/// `min_runtime_version` ([`RuntimeVersion::to_metadata_bytes`]).
///
/// Versions compare numerically, component by component, and a version that is a strict prefix
/// of another comes first: `"1.14" < "1.14.1"`, `"2.3" < "2.3.0"` ([`RuntimeVersion`]'s
/// `Ord`). For arbitrary strings, [`compare_runtime_version`] reproduces TF's
/// `CompareRuntimeVersion` exactly, including how it treats `""` and non-numeric parts.
///
/// Facts: the table and both functions come from
/// `tensorflow/compiler/mlir/lite/tools/versioning/runtime_version.cc` (copies of the table, some
/// of them older, live in `tensorflow/lite/tools/versioning/runtime_version.cc` and LiteRT's
/// `tflite/tools/versioning/runtime_version.cc`; the comment on `TABLE` says which revision
/// states the newest rows).
///
/// ```
/// use tflite_opver::{
///     BuiltinOperator, OpVersion, RuntimeVersion, min_runtime_version_for_model,
///     min_runtime_version_for_op,
/// };
///
/// let conv3 = min_runtime_version_for_op(BuiltinOperator::CONV_2D, OpVersion::new(3));
/// assert_eq!(conv3.map(|v| v.to_string()).as_deref(), Some("1.14.0"));
///
/// let model = [
///     (BuiltinOperator::CONV_2D, OpVersion::new(3)),
///     (BuiltinOperator::FULLY_CONNECTED, OpVersion::new(9)),
/// ];
/// let min = min_runtime_version_for_model(model).unwrap();
/// assert_eq!(min, "2.3.0".parse::<RuntimeVersion>().unwrap());
/// assert!("2.2.0".parse::<RuntimeVersion>().unwrap() < min);
/// ```
pub fn runtime_table() -> impl ExactSizeIterator<Item = RuntimeTableEntry> + Clone {
    TABLE
        .iter()
        .map(|&(op, version, min_runtime)| RuntimeTableEntry {
            op,
            version: OpVersion::new(version),
            min_runtime,
        })
}

/// TF's `FindMinimumRuntimeVersionForOp`: the oldest TFLite release that runs `op` at
/// `version`, or `None` where TF answers `""` (pairs it has no entry for: unknown ops,
/// versions that never existed, and ops such as `CUSTOM` or most `STABLEHLO_*` codes that no
/// runtime kernel backs).
pub fn min_runtime_version_for_op(
    op: BuiltinOperator,
    version: OpVersion,
) -> Option<RuntimeVersion> {
    let code = usize::try_from(op.code()).ok()?;
    let version = usize::try_from(version.get()).ok()?;
    let slot = *INDEX.get(code)?.get(version)?;
    (slot != NO_ENTRY).then(|| TABLE[usize::from(slot)].2)
}

/// TF's `UpdateMinimumRuntimeVersionForModel` without the buffer write: the largest minimum
/// runtime over the given `(operator, version)` pairs (one per operator in the model, or one
/// per operator code: the maximum is the same). Pairs TF has no entry for are skipped; `None`
/// when no pair has one (TF then writes an empty string).
pub fn min_runtime_version_for_model<I>(ops: I) -> Option<RuntimeVersion>
where
    I: IntoIterator<Item = (BuiltinOperator, OpVersion)>,
{
    ops.into_iter()
        .filter_map(|(op, version)| min_runtime_version_for_op(op, version))
        .max()
}

/// Whether a TFLite `runtime` has a kernel for `op` at `version` according to TF's table, i.e.
/// the pair's minimum runtime is known and not newer than `runtime`.
pub fn runtime_supports(runtime: &RuntimeVersion, op: BuiltinOperator, version: OpVersion) -> bool {
    min_runtime_version_for_op(op, version).is_some_and(|min| min <= *runtime)
}

/// Every `(operator, version)` pair TF's table says `runtime` runs, in TF's table order.
pub fn supported_by(
    runtime: &RuntimeVersion,
) -> impl Iterator<Item = (BuiltinOperator, OpVersion)> + '_ {
    runtime_table()
        .filter(move |entry| entry.min_runtime <= *runtime)
        .map(|entry| (entry.op, entry.version))
}

type B = BuiltinOperator;

/// TF's `(op, version) -> minimum runtime` table, row for row in TF's order, from
/// `FindMinimumRuntimeVersionForOp` in
/// `tensorflow/compiler/mlir/lite/tools/versioning/runtime_version.cc`. Rows marked
/// `// TF 03f49db5` are stated by that file at tensorflow/tensorflow commit
/// `03f49db5a23ec2b22a59f3f3d72e5744469ea30b` and absent from older revisions of it (e.g.
/// `6ee576304d65b94f7b645286fbd4df96a279f7fc`); rows also marked `LiteRT` are stated as well by
/// google-ai-edge/LiteRT's `tflite/tools/versioning/runtime_version.cc` (commit
/// `05215c291e48a7c2fe164566cedd678b80e9eb8c`). That TF revision is newer than 2.21 and also has
/// rows for 2.22 and later, which this table leaves out.
const TABLE: &[(BuiltinOperator, i32, RuntimeVersion)] = &[
    (B::AVERAGE_POOL_2D, 1, rv("1.5.0")),
    (B::AVERAGE_POOL_2D, 2, rv("1.14.0")),
    (B::AVERAGE_POOL_2D, 3, rv("2.3.0")),
    (B::BATCH_MATMUL, 1, rv("2.3.0")),
    (B::BATCH_MATMUL, 2, rv("2.3.0")),
    (B::BATCH_MATMUL, 3, rv("2.4.0")),
    (B::BATCH_MATMUL, 4, rv("2.5.0")),
    (B::BROADCAST_TO, 2, rv("2.5.0")),
    (B::BROADCAST_TO, 3, rv("2.5.0")),
    (B::CONV_2D, 1, rv("1.5.0")),
    (B::CONV_2D, 2, rv("1.14.0")),
    (B::CONV_2D, 3, rv("1.14.0")),
    (B::CONV_2D, 4, rv("2.3.0")),
    (B::CONV_2D, 5, rv("2.4.0")),
    (B::CONV_2D, 6, rv("2.9.0")),
    (B::CONV_2D, 7, rv("2.11.0")),
    (B::CONV_2D, 8, rv("2.15.0")),
    (B::DEPTHWISE_CONV_2D, 1, rv("1.5.0")),
    (B::DEPTHWISE_CONV_2D, 2, rv("1.12.0")),
    (B::DEPTHWISE_CONV_2D, 3, rv("1.14.0")),
    (B::DEPTHWISE_CONV_2D, 4, rv("2.2.0")),
    (B::DEPTHWISE_CONV_2D, 5, rv("2.3.0")),
    (B::DEPTHWISE_CONV_2D, 6, rv("2.3.0")),
    (B::DEPTHWISE_CONV_2D, 7, rv("2.11.0")),
    (B::ADD, 1, rv("1.5.0")),
    (B::ADD, 2, rv("1.14.0")),
    (B::ADD, 3, rv("2.4.0")),
    (B::ADD, 4, rv("2.6.0")),
    (B::ADD, 5, rv("2.13.0")),
    (B::ADD_N, 1, rv("1.14.0")),
    (B::SPACE_TO_BATCH_ND, 1, rv("1.6.0")),
    (B::SPACE_TO_BATCH_ND, 2, rv("1.14.0")),
    (B::SPACE_TO_BATCH_ND, 3, rv("2.3.0")),
    (B::SPACE_TO_BATCH_ND, 4, rv("2.12.0")),
    (B::SUB, 1, rv("1.6.0")),
    (B::SUB, 2, rv("1.14.0")),
    (B::SUB, 3, rv("2.3.0")),
    (B::SUB, 4, rv("2.4.0")),
    (B::SUB, 5, rv("2.4.0")),
    (B::DENSIFY, 1, rv("2.2.0")),
    (B::DIV, 1, rv("1.6.0")),
    (B::DIV, 2, rv("2.3.0")),
    (B::BATCH_TO_SPACE_ND, 1, rv("1.6.0")),
    (B::BATCH_TO_SPACE_ND, 2, rv("1.14.0")),
    (B::BATCH_TO_SPACE_ND, 3, rv("2.3.0")),
    (B::BATCH_TO_SPACE_ND, 4, rv("2.12.0")),
    (B::CAST, 1, rv("1.5.0")),
    (B::CAST, 2, rv("2.7.0")),
    (B::CAST, 3, rv("2.8.0")),
    (B::CAST, 4, rv("2.9.0")),
    (B::CAST, 5, rv("2.12.0")),
    (B::CAST, 6, rv("2.15.0")),
    (B::CAST, 7, rv("2.17.0")), // TF 03f49db5
    (B::CAST, 8, rv("2.21.0")), // TF 03f49db5
    (B::CONCATENATION, 1, rv("1.5.0")),
    (B::CONCATENATION, 2, rv("1.14.0")),
    (B::CONCATENATION, 3, rv("2.3.0")),
    (B::CONCATENATION, 4, rv("2.14.0")),
    (B::CONCATENATION, 5, rv("2.21.0")), // TF 03f49db5
    (B::DEPTH_TO_SPACE, 1, rv("2.1.0")),
    (B::DEPTH_TO_SPACE, 2, rv("2.5.0")),
    (B::EMBEDDING_LOOKUP, 1, rv("1.13.0")),
    (B::EMBEDDING_LOOKUP, 2, rv("1.14.0")),
    (B::EMBEDDING_LOOKUP, 3, rv("1.14.0")),
    (B::EMBEDDING_LOOKUP, 4, rv("2.18.0")),
    (B::EMBEDDING_LOOKUP, 5, rv("2.21.0")), // TF 03f49db5
    (B::EMBEDDING_LOOKUP_SPARSE, 1, rv("1.5.0")),
    (B::FAKE_QUANT, 1, rv("1.5.0")),
    (B::FAKE_QUANT, 2, rv("1.10.0")),
    (B::FULLY_CONNECTED, 1, rv("1.5.0")),
    (B::FULLY_CONNECTED, 2, rv("1.10.0")),
    (B::FULLY_CONNECTED, 3, rv("1.14.0")),
    (B::FULLY_CONNECTED, 4, rv("1.14.0")),
    (B::FULLY_CONNECTED, 5, rv("2.0.0")),
    (B::FULLY_CONNECTED, 6, rv("2.1.0")),
    (B::FULLY_CONNECTED, 7, rv("2.3.0")),
    (B::FULLY_CONNECTED, 8, rv("2.3.0")),
    (B::FULLY_CONNECTED, 9, rv("2.3.0")),
    (B::FULLY_CONNECTED, 10, rv("2.11.0")),
    (B::FULLY_CONNECTED, 11, rv("2.15.0")),
    (B::FULLY_CONNECTED, 12, rv("2.17.0")),
    (B::FULLY_CONNECTED, 13, rv("2.18.0")),
    (B::FULLY_CONNECTED, 14, rv("2.21.0")), // TF 03f49db5
    (B::GATHER, 1, rv("1.6.0")),
    (B::GATHER, 2, rv("1.14.0")),
    (B::GATHER, 3, rv("1.15.0")),
    (B::GATHER, 4, rv("2.4.0")),
    (B::GATHER, 5, rv("2.5.0")),
    (B::GATHER, 6, rv("2.13.0")),
    (B::GATHER, 7, rv("2.15.0")),
    (B::GATHER_ND, 1, rv("1.14.0")),
    (B::GATHER_ND, 2, rv("2.3.0")),
    (B::GATHER_ND, 3, rv("2.5.0")),
    (B::GATHER_ND, 4, rv("2.13.0")),
    (B::GATHER_ND, 5, rv("2.16.0")),
    (B::HASHTABLE_LOOKUP, 1, rv("1.5.0")),
    (B::SVDF, 1, rv("1.5.0")),
    (B::SVDF, 2, rv("1.14.0")),
    (B::SVDF, 3, rv("2.2.0")),
    (B::SVDF, 4, rv("2.3.0")),
    (B::L2_NORMALIZATION, 1, rv("1.5.0")),
    (B::L2_NORMALIZATION, 2, rv("1.14.0")),
    (B::L2_POOL_2D, 1, rv("1.5.0")),
    (B::LOCAL_RESPONSE_NORMALIZATION, 1, rv("1.5.0")),
    (B::MAX_POOL_2D, 1, rv("1.5.0")),
    (B::MAX_POOL_2D, 2, rv("1.14.0")),
    (B::MAX_POOL_2D, 3, rv("2.3.0")),
    (B::MAXIMUM, 1, rv("1.14.0")),
    (B::MAXIMUM, 2, rv("1.14.0")),
    (B::MAXIMUM, 3, rv("2.3.0")),
    (B::MAXIMUM, 4, rv("2.3.0")),
    (B::MINIMUM, 1, rv("1.14.0")),
    (B::MINIMUM, 2, rv("1.14.0")),
    (B::MINIMUM, 3, rv("2.3.0")),
    (B::MINIMUM, 4, rv("2.3.0")),
    (B::MUL, 1, rv("1.5.0")),
    (B::MUL, 2, rv("1.14.0")),
    (B::MUL, 3, rv("1.15.0")),
    (B::MUL, 4, rv("2.3.0")),
    (B::MUL, 5, rv("2.6.0")),
    (B::MUL, 6, rv("2.11.0")),
    (B::MUL, 7, rv("2.13.0")),
    (B::NON_MAX_SUPPRESSION_V4, 1, rv("2.1.0")),
    (B::NON_MAX_SUPPRESSION_V5, 1, rv("2.1.0")),
    (B::PAD, 1, rv("1.5.0")),
    (B::PAD, 2, rv("1.14.0")),
    (B::PAD, 3, rv("2.4.0")),
    (B::PAD, 4, rv("2.6.0")),
    (B::PAD, 5, rv("2.20.0")), // TF 03f49db5
    (B::TILE, 1, rv("1.10.1")),
    (B::TILE, 2, rv("2.2.0")),
    (B::TILE, 3, rv("2.8.0")),
    (B::PADV2, 1, rv("1.9.0")),
    (B::PADV2, 2, rv("1.14.0")),
    (B::PADV2, 3, rv("2.4.0")),
    (B::PADV2, 4, rv("2.6.0")),
    (B::PADV2, 5, rv("2.20.0")), // TF 03f49db5
    (B::RESHAPE, 1, rv("1.5.0")),
    (B::SOFTMAX, 1, rv("1.5.0")),
    (B::SOFTMAX, 2, rv("1.14.0")),
    (B::SOFTMAX, 3, rv("2.3.0")),
    (B::SPACE_TO_DEPTH, 1, rv("1.5.0")),
    (B::SPACE_TO_DEPTH, 2, rv("1.14.0")),
    (B::TRANSPOSE, 1, rv("1.6.0")),
    (B::TRANSPOSE, 2, rv("1.14.0")),
    (B::TRANSPOSE, 3, rv("1.15.0")),
    (B::TRANSPOSE, 4, rv("2.3.0")),
    (B::TRANSPOSE, 5, rv("2.4.0")),
    (B::TRANSPOSE, 6, rv("2.12.0")),
    (B::TRANSPOSE, 7, rv("2.14.4")), // TF 03f49db5, LiteRT
    (B::LSTM, 1, rv("1.7.0")),
    (B::LSTM, 2, rv("1.10.0")),
    (B::LSTM, 3, rv("1.14.0")),
    (B::LSTM, 4, rv("2.3.0")),
    (B::UNIDIRECTIONAL_SEQUENCE_LSTM, 1, rv("1.13.1")),
    (B::UNIDIRECTIONAL_SEQUENCE_LSTM, 2, rv("1.14.0")),
    (B::UNIDIRECTIONAL_SEQUENCE_LSTM, 3, rv("2.3.0")),
    (B::UNIDIRECTIONAL_SEQUENCE_LSTM, 4, rv("2.12.0")),
    (B::BIDIRECTIONAL_SEQUENCE_LSTM, 1, rv("1.14.0")),
    (B::BIDIRECTIONAL_SEQUENCE_LSTM, 2, rv("1.14.0")),
    (B::BIDIRECTIONAL_SEQUENCE_LSTM, 3, rv("1.14.0")),
    (B::BIDIRECTIONAL_SEQUENCE_RNN, 1, rv("1.14.0")),
    (B::BIDIRECTIONAL_SEQUENCE_RNN, 2, rv("1.14.0")),
    (B::BIDIRECTIONAL_SEQUENCE_RNN, 3, rv("2.3.0")),
    (B::MEAN, 1, rv("1.6.0")),
    (B::MEAN, 2, rv("1.14.0")),
    (B::MEAN, 3, rv("2.4.0")),
    (B::SUM, 1, rv("1.10.0")),
    (B::SUM, 2, rv("1.15.0")),
    (B::REDUCE_MAX, 1, rv("1.11.0")),
    (B::REDUCE_MAX, 2, rv("1.14.0")),
    (B::REDUCE_MAX, 3, rv("2.5.0")),
    (B::REDUCE_MIN, 1, rv("1.11.0")),
    (B::REDUCE_MIN, 2, rv("1.14.0")),
    (B::REDUCE_MIN, 3, rv("2.5.0")),
    (B::REDUCE_PROD, 1, rv("1.11.0")),
    (B::REDUCE_PROD, 2, rv("2.6.0")),
    (B::REDUCE_ANY, 1, rv("1.11.0")),
    (B::RELU6, 1, rv("1.5.0")),
    (B::RELU6, 2, rv("1.14.0")),
    (B::RELU6, 3, rv("2.5.0")),
    (B::RESIZE_BILINEAR, 1, rv("1.7.0")),
    (B::RESIZE_BILINEAR, 2, rv("1.14.0")),
    (B::RESIZE_BILINEAR, 3, rv("2.2.0")),
    (B::RESIZE_BILINEAR, 4, rv("2.5.0")),
    (B::RESIZE_NEAREST_NEIGHBOR, 1, rv("1.13.1")),
    (B::RESIZE_NEAREST_NEIGHBOR, 2, rv("1.14.0")),
    (B::RESIZE_NEAREST_NEIGHBOR, 3, rv("2.3.0")),
    (B::RESIZE_NEAREST_NEIGHBOR, 4, rv("2.4.0")),
    (B::RNN, 1, rv("1.5.0")),
    (B::RNN, 2, rv("1.14.0")),
    (B::RNN, 3, rv("2.3.0")),
    (B::SKIP_GRAM, 1, rv("1.5.0")),
    (B::SQUEEZE, 1, rv("1.6.0")),
    (B::SQUEEZE, 2, rv("2.5.0")),
    (B::SPLIT, 1, rv("1.5.0")),
    (B::SPLIT, 2, rv("1.14.0")),
    (B::SPLIT, 3, rv("1.14.0")),
    (B::SPLIT, 4, rv("2.3.0")),
    (B::SPLIT_V, 1, rv("1.13.1")),
    (B::SPLIT_V, 2, rv("2.3.0")),
    (B::STRIDED_SLICE, 1, rv("1.6.0")),
    (B::STRIDED_SLICE, 2, rv("1.14.0")),
    (B::STRIDED_SLICE, 3, rv("2.1.0")),
    (B::STRIDED_SLICE, 4, rv("2.2.0")),
    (B::STRIDED_SLICE, 5, rv("2.5.0")),
    (B::STRIDED_SLICE, 6, rv("2.6.0")),
    (B::STRIDED_SLICE, 7, rv("2.14.0")),
    (B::STRIDED_SLICE, 8, rv("2.14.0")),
    (B::TOPK_V2, 1, rv("1.7.0")),
    (B::TOPK_V2, 2, rv("1.14.0")),
    (B::TOPK_V2, 3, rv("2.13.0")),
    (B::ARG_MAX, 1, rv("1.9.0")),
    (B::ARG_MAX, 2, rv("1.14.0")),
    (B::ARG_MAX, 3, rv("2.9.0")),
    (B::ARG_MIN, 1, rv("1.9.0")),
    (B::ARG_MIN, 2, rv("1.14.0")),
    (B::ARG_MIN, 3, rv("2.9.0")),
    (B::TRANSPOSE_CONV, 1, rv("1.9.0")),
    (B::TRANSPOSE_CONV, 2, rv("2.2.0")),
    (B::TRANSPOSE_CONV, 3, rv("2.3.0")),
    (B::TRANSPOSE_CONV, 4, rv("2.13.0")),
    (B::TRANSPOSE_CONV, 5, rv("2.15.0")),
    (B::SPARSE_TO_DENSE, 1, rv("1.9.0")),
    (B::SPARSE_TO_DENSE, 2, rv("1.14.0")),
    (B::SPARSE_TO_DENSE, 3, rv("1.15.0")),
    (B::EXPAND_DIMS, 1, rv("1.10.0")),
    (B::PACK, 1, rv("1.11.0")),
    (B::PACK, 2, rv("1.14.0")),
    (B::PACK, 3, rv("2.3.0")),
    (B::PACK, 4, rv("2.13.0")),
    (B::SHAPE, 1, rv("1.10.0")),
    (B::SLICE, 1, rv("1.14.0")),
    (B::SLICE, 2, rv("1.14.0")),
    (B::SLICE, 3, rv("1.14.0")),
    (B::SLICE, 4, rv("2.4.0")),
    (B::SLICE, 5, rv("2.5.0")),
    (B::SLICE, 6, rv("2.14.0")),
    (B::SLICE, 7, rv("2.21.0")), // TF 03f49db5
    (B::TANH, 1, rv("1.14.0")),
    (B::TANH, 2, rv("1.14.0")),
    (B::TANH, 3, rv("2.3.0")),
    (B::ONE_HOT, 1, rv("1.11.0")),
    (B::UNPACK, 1, rv("1.11.0")),
    (B::UNPACK, 2, rv("1.14.0")),
    (B::UNPACK, 3, rv("2.2.0")),
    (B::UNPACK, 4, rv("2.3.0")),
    (B::LEAKY_RELU, 1, rv("1.13.1")),
    (B::LEAKY_RELU, 2, rv("2.3.0")),
    (B::LOGISTIC, 1, rv("1.14.0")),
    (B::LOGISTIC, 2, rv("1.14.0")),
    (B::LOGISTIC, 3, rv("2.3.0")),
    (B::LOG_SOFTMAX, 1, rv("1.14.0")),
    (B::LOG_SOFTMAX, 2, rv("1.14.0")),
    (B::LSH_PROJECTION, 1, rv("1.5.0")),
    (B::SQUARED_DIFFERENCE, 1, rv("1.13.1")),
    (B::SQUARED_DIFFERENCE, 2, rv("2.5.0")),
    (B::MIRROR_PAD, 1, rv("1.13.1")),
    (B::MIRROR_PAD, 2, rv("2.3.0")),
    (B::MIRROR_PAD, 3, rv("2.12.0")),
    (B::UNIQUE, 1, rv("1.14.0")),
    (B::UNIDIRECTIONAL_SEQUENCE_RNN, 1, rv("1.14.0")),
    (B::UNIDIRECTIONAL_SEQUENCE_RNN, 2, rv("1.14.0")),
    (B::UNIDIRECTIONAL_SEQUENCE_RNN, 3, rv("2.3.0")),
    (B::WHERE, 1, rv("1.14.0")),
    (B::DEQUANTIZE, 1, rv("1.13.1")),
    (B::DEQUANTIZE, 2, rv("1.14.0")),
    (B::DEQUANTIZE, 3, rv("1.15.0")),
    (B::DEQUANTIZE, 4, rv("2.2.0")),
    (B::DEQUANTIZE, 5, rv("2.7.0")),
    (B::DEQUANTIZE, 6, rv("2.18.0")),
    (B::DEQUANTIZE, 7, rv("2.21.0")), // TF 03f49db5
    (B::REVERSE_SEQUENCE, 1, rv("1.14.0")),
    (B::EQUAL, 1, rv("1.14.0")),
    (B::EQUAL, 2, rv("1.14.0")),
    (B::EQUAL, 3, rv("2.3.0")),
    (B::EQUAL, 4, rv("2.13.0")),
    (B::EQUAL, 5, rv("2.21.0")), // TF 03f49db5
    (B::NOT_EQUAL, 1, rv("1.14.0")),
    (B::NOT_EQUAL, 2, rv("1.14.0")),
    (B::NOT_EQUAL, 3, rv("2.3.0")),
    (B::NOT_EQUAL, 4, rv("2.21.0")), // TF 03f49db5
    (B::GREATER, 1, rv("1.14.0")),
    (B::GREATER, 2, rv("1.14.0")),
    (B::GREATER_EQUAL, 1, rv("1.14.0")),
    (B::GREATER_EQUAL, 2, rv("1.14.0")),
    (B::GREATER_EQUAL, 3, rv("2.13.0")),
    (B::LESS, 1, rv("1.14.0")),
    (B::LESS, 2, rv("1.14.0")),
    (B::LESS, 3, rv("2.13.0")),
    (B::LESS_EQUAL, 1, rv("1.14.0")),
    (B::LESS_EQUAL, 2, rv("1.14.0")),
    (B::SCATTER_ND, 1, rv("2.1.0")),
    (B::SEGMENT_SUM, 1, rv("2.2.0")),
    (B::SELECT, 1, rv("1.14.0")),
    (B::SELECT, 2, rv("1.14.0")),
    (B::SELECT, 3, rv("2.12.0")),
    (B::SELECT, 4, rv("2.12.0")),
    (B::SELECT_V2, 1, rv("2.2.0")),
    (B::SELECT_V2, 2, rv("2.12.0")),
    (B::IF, 1, rv("1.15.0")),
    (B::FLOOR_DIV, 1, rv("1.14.0")),
    (B::FLOOR_DIV, 2, rv("1.14.0")),
    (B::FLOOR_DIV, 3, rv("2.13.0")),
    (B::FLOOR, 1, rv("1.9.0")),
    (B::CEIL, 1, rv("1.14.0")),
    (B::MATRIX_DIAG, 1, rv("1.14.0")),
    (B::MATRIX_SET_DIAG, 1, rv("1.14.0")),
    (B::ELU, 1, rv("1.14.0")),
    (B::QUANTIZE, 1, rv("1.14.0")),
    (B::QUANTIZE, 2, rv("1.15.0")),
    (B::QUANTIZE, 3, rv("2.7.0")),
    (B::QUANTIZE, 4, rv("2.21.0")), // TF 03f49db5
    (B::ROUND, 1, rv("1.14.0")),
    (B::RELU, 1, rv("1.5.0")),
    (B::RELU, 2, rv("2.1.0")),
    (B::RELU, 3, rv("2.5.0")),
    (B::RELU_N1_TO_1, 1, rv("1.5.0")),
    (B::RELU_0_TO_1, 1, rv("2.10.0")),
    (B::PRELU, 1, rv("1.8.0")),
    (B::EXP, 1, rv("1.7.0")),
    (B::EXP, 2, rv("2.12.0")),
    (B::COS, 1, rv("1.14.0")),
    (B::NEG, 1, rv("1.9.0")),
    (B::POW, 1, rv("1.10.0")),
    (B::LOGICAL_OR, 1, rv("1.11.0")),
    (B::LOGICAL_AND, 1, rv("1.11.0")),
    (B::LOGICAL_NOT, 1, rv("1.11.0")),
    (B::FLOOR_MOD, 1, rv("1.13.0")),
    (B::FLOOR_MOD, 2, rv("2.13.0")),
    (B::RANGE, 1, rv("1.13.0")),
    (B::RANGE, 2, rv("2.14.0")),
    (B::SIN, 1, rv("1.9.0")),
    (B::LOG, 1, rv("1.14.0")),
    (B::LOG, 2, rv("2.15.0")),
    (B::SQRT, 1, rv("1.10.0")),
    (B::SQRT, 2, rv("2.21.0")), // TF 03f49db5
    (B::RSQRT, 1, rv("1.10.0")),
    (B::RSQRT, 2, rv("2.5.0")),
    (B::RSQRT, 3, rv("2.15.0")),
    (B::SQUARE, 1, rv("1.12.0")),
    (B::ZEROS_LIKE, 1, rv("1.12.0")),
    (B::ABS, 1, rv("1.13.0")),
    (B::ABS, 2, rv("2.4.0")),
    (B::ABS, 3, rv("2.5.0")),
    (B::ABS, 4, rv("2.6.0")),
    (B::ABS, 5, rv("2.12.0")),
    (B::HARD_SWISH, 1, rv("1.15.0")),
    (B::FILL, 1, rv("1.13.0")),
    (B::FILL, 2, rv("2.3.0")),
    (B::FILL, 3, rv("2.5.0")),
    (B::FILL, 4, rv("2.12.0")),
    (B::REVERSE_V2, 1, rv("1.14.0")),
    (B::REVERSE_V2, 2, rv("2.2.0")),
    (B::REVERSE_V2, 3, rv("2.5.0")),
    (B::RANK, 1, rv("1.14.0")),
    (B::WHILE, 1, rv("1.15.0")),
    (B::CUMSUM, 1, rv("2.4.0")),
    (B::CALL_ONCE, 1, rv("2.5.0")),
    (B::RFFT2D, 1, rv("2.5.0")),
    (B::CONV_3D, 1, rv("2.5.0")),
    (B::IMAG, 1, rv("2.5.0")),
    (B::REAL, 1, rv("2.5.0")),
    (B::COMPLEX_ABS, 1, rv("2.5.0")),
    (B::HASHTABLE, 1, rv("2.5.0")),
    (B::HASHTABLE_FIND, 1, rv("2.5.0")),
    (B::HASHTABLE_IMPORT, 1, rv("2.5.0")),
    (B::HASHTABLE_SIZE, 1, rv("2.5.0")),
    (B::REDUCE_ALL, 1, rv("2.6.0")),
    (B::CONV_3D_TRANSPOSE, 1, rv("2.6.0")),
    (B::VAR_HANDLE, 1, rv("2.6.0")),
    (B::READ_VARIABLE, 1, rv("2.6.0")),
    (B::ASSIGN_VARIABLE, 1, rv("2.6.0")),
    (B::BROADCAST_ARGS, 1, rv("2.6.0")),
    (B::RANDOM_STANDARD_NORMAL, 1, rv("2.8.0")),
    (B::BUCKETIZE, 1, rv("2.8.0")),
    (B::WHERE, 2, rv("2.8.0")),
    (B::RANDOM_UNIFORM, 1, rv("2.8.0")),
    (B::MULTINOMIAL, 1, rv("2.8.0")),
    (B::GELU, 1, rv("2.9.0")),
    (B::GELU, 2, rv("2.9.0")),
    (B::DYNAMIC_UPDATE_SLICE, 1, rv("2.9.0")),
    (B::DYNAMIC_UPDATE_SLICE, 2, rv("2.17.0")),
    (B::DYNAMIC_UPDATE_SLICE, 3, rv("2.19.0")), // TF 03f49db5, LiteRT
    (B::DYNAMIC_UPDATE_SLICE, 4, rv("2.20.0")), // TF 03f49db5, LiteRT
    (B::DYNAMIC_UPDATE_SLICE, 5, rv("2.21.0")), // TF 03f49db5
    (B::UNSORTED_SEGMENT_PROD, 1, rv("2.10.0")),
    (B::UNSORTED_SEGMENT_MAX, 1, rv("2.10.0")),
    (B::UNSORTED_SEGMENT_MIN, 1, rv("2.11.0")),
    (B::UNSORTED_SEGMENT_SUM, 1, rv("2.10.0")),
    (B::ATAN2, 1, rv("2.10.0")),
    (B::SIGN, 1, rv("2.11.0")),
    (B::SIGN, 2, rv("2.12.0")),
    (B::BITCAST, 1, rv("2.13.0")),
    (B::BITWISE_XOR, 1, rv("2.13.0")),
    (B::RIGHT_SHIFT, 1, rv("2.13.0")),
    (B::STABLEHLO_SCATTER, 1, rv("2.15.0")),
    (B::DILATE, 1, rv("2.15.0")),
    (B::STABLEHLO_RNG_BIT_GENERATOR, 1, rv("2.15.0")),
    (B::REDUCE_WINDOW, 1, rv("2.15.0")),
    (B::STABLEHLO_GATHER, 1, rv("2.16.0")),
    (B::STABLEHLO_ADD, 1, rv("2.16.0")),
    (B::STABLEHLO_MULTIPLY, 1, rv("2.16.0")),
    (B::STABLEHLO_REDUCE_WINDOW, 1, rv("2.16.0")),
    (B::STABLEHLO_MAXIMUM, 1, rv("2.16.0")),
    (B::STABLEHLO_MINIMUM, 1, rv("2.16.0")),
    (B::STABLEHLO_PAD, 1, rv("2.16.0")),
    (B::STABLEHLO_COMPOSITE, 1, rv("2.17.0")),
    (B::STABLEHLO_AND, 1, rv("2.17.0")),
    (B::STABLEHLO_SHIFT_LEFT, 1, rv("2.17.0")),
    (B::STABLEHLO_CBRT, 1, rv("2.17.0")),
    (B::STABLEHLO_CASE, 1, rv("2.17.0")),
];

/// Marks "no row" in [`INDEX`].
const NO_ENTRY: u16 = u16::MAX;

/// The highest operator version any row of [`TABLE`] has.
const MAX_TABLE_VERSION: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < TABLE.len() {
        let v = TABLE[i].1;
        assert!(v >= 1, "table versions start at 1");
        if v as usize > max {
            max = v as usize;
        }
        i += 1;
    }
    max
};

/// `INDEX[code][version]` is the row of [`TABLE`] for that pair, or [`NO_ENTRY`]; built at
/// compile time, which also rejects duplicate rows.
static INDEX: [[u16; MAX_TABLE_VERSION + 1]; BuiltinOperator::COUNT] = {
    let mut index = [[NO_ENTRY; MAX_TABLE_VERSION + 1]; BuiltinOperator::COUNT];
    assert!(TABLE.len() < NO_ENTRY as usize);
    let mut i = 0;
    while i < TABLE.len() {
        let code = TABLE[i].0.code();
        assert!(code >= 0 && (code as usize) < BuiltinOperator::COUNT);
        let slot = &mut index[code as usize][TABLE[i].1 as usize];
        assert!(*slot == NO_ENTRY, "duplicate (op, version) row");
        *slot = i as u16;
        i += 1;
    }
    index
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_landmarks() {
        let at = |op, v| min_runtime_version_for_op(op, OpVersion::new(v)).map(|r| r.to_string());
        assert_eq!(at(B::AVERAGE_POOL_2D, 1).as_deref(), Some("1.5.0"));
        assert_eq!(at(B::TILE, 1).as_deref(), Some("1.10.1"));
        assert_eq!(at(B::CONV_2D, 8).as_deref(), Some("2.15.0"));
        assert_eq!(at(B::TRANSPOSE, 7).as_deref(), Some("2.14.4"));
        // BROADCAST_TO version 1 was rolled back; TF has no row for it.
        assert_eq!(at(B::BROADCAST_TO, 1), None);
        assert_eq!(at(B::BROADCAST_TO, 2).as_deref(), Some("2.5.0"));
        assert_eq!(at(B::CONV_2D, 0), None);
        assert_eq!(at(B::CONV_2D, -1), None);
        assert_eq!(at(B::CONV_2D, 9), None);
        assert_eq!(at(B::CUSTOM, 1), None);
        assert_eq!(at(B::new(-1), 1), None);
        assert_eq!(at(B::new(4000), 1), None);
        assert_eq!(at(B::CONV_2D, i32::MAX), None);
        assert_eq!(TABLE.len(), 412);
    }

    #[test]
    fn parse_rejects_what_is_not_a_version() {
        for bad in [
            "",
            ".",
            "1.",
            ".1",
            "1..2",
            " 1.5.0",
            "1.5.0 ",
            "+1",
            "-1",
            "1.5.0-rc0",
            "a.b.c",
            "2147483648",
            "99999999999999999999",
            "1.2.3.4.5.6.7",
        ] {
            assert!(RuntimeVersion::parse(bad).is_err(), "{bad:?}");
        }
        for good in ["0", "1.14", "2.3.0", "2.1.0.1", "2147483647", "1.2.3.4.5.6"] {
            assert_eq!(RuntimeVersion::parse(good).unwrap().to_string(), good);
        }
        assert_eq!(
            RuntimeVersion::parse("02.03.00").unwrap(),
            RuntimeVersion::new(2, 3, 0)
        );
    }

    #[test]
    fn metadata_bytes() {
        let bytes = RuntimeVersion::new(1, 14, 0).to_metadata_bytes().unwrap();
        assert_eq!(&bytes, b"1.14.0\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(metadata_text(&bytes), Some("1.14.0"));
        // 15 bytes fit, 16 do not (TF needs room for a NUL).
        let fifteen = RuntimeVersion::parse("1234.5678.90123").unwrap();
        assert!(fifteen.to_metadata_bytes().is_ok());
        let sixteen = RuntimeVersion::parse("1234.5678.901234").unwrap();
        assert!(matches!(
            sixteen.to_metadata_bytes(),
            Err(Error::RuntimeVersionTooLong { len: 16, .. })
        ));
        assert_eq!(metadata_text(&[0xff, 0]), None);
    }

    #[test]
    fn simple_atoi_matches_absl() {
        assert_eq!(simple_atoi("12"), Some(12));
        assert_eq!(simple_atoi(" 12\t"), Some(12));
        assert_eq!(simple_atoi("+7"), Some(7));
        assert_eq!(simple_atoi("-7"), Some(-7));
        assert_eq!(simple_atoi("-2147483648"), Some(i32::MIN));
        assert_eq!(simple_atoi("2147483647"), Some(i32::MAX));
        for bad in [
            "",
            " ",
            "+",
            "-",
            "2147483648",
            "-2147483649",
            "0-rc0",
            "1 2",
            "0x10",
            "a",
        ] {
            assert_eq!(simple_atoi(bad), None, "{bad:?}");
        }
    }
}
