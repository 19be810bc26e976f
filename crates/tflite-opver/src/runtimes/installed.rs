//! The TensorFlow Lite runtimes a Python user installs, and which of them load a model.
//!
//! A model converted by a new TensorFlow meets an older runtime on a device: the
//! `tf.lite.Interpreter` of an older `tensorflow-cpu`, a pinned `tflite-runtime`, an
//! `ai-edge-litert` release. The model's `min_runtime_version` metadata cannot say whether it
//! loads (a hand-kept map, often absent or wrong, naming TensorFlow releases, not LiteRT ones);
//! the runtime's own op resolver, tensor types and checks do. [`Runtime::all`] lists every
//! runtime a CPython 3.11 user on Linux x86-64 can install, each with the facts probed from its
//! real wheel (`cargo xtask tflite-runtimes`): the (builtin code, version) pairs its default op
//! resolver registers, the tensor types it accepts, and the exact text of each refusal.
//! [`Model::runtime_verdicts`] constructs the interpreter as each runtime would and says, in
//! that runtime's words, why one refuses, and which operator codes block it; then what its
//! `allocate_tensors()` does with the model's custom ops ([`Allocation`]; a kernel's own checks
//! are not replayed, so a model of builtin operators is not judged there).
//!
//! ```
//! use tflite_opver::{
//!     BuiltinOperator, ElementType, Model, ModelBuilder, OpSignature, OpVersion, Runtime,
//!     RuntimeFamily, TensorSpec, params::Params,
//! };
//!
//! // A float SQRT stamped version 2 (the version of its int8 and int16 kernels).
//! let t = TensorSpec::new(ElementType::Float32, &[1, 4]);
//! let sqrt = OpSignature::new(BuiltinOperator::SQRT, vec![t.clone()], vec![t], Params::None);
//! let bytes = ModelBuilder::new().signature(&sqrt, OpVersion::new(2)).finish();
//! let model = Model::from_bytes(&bytes)?;
//! let verdicts = model.runtime_verdicts();
//!
//! let tf_2_20: Runtime = "tensorflow-cpu 2.20.0".parse()?;
//! let verdict = verdicts.verdict(tf_2_20);
//! assert!(!verdict.loads());
//! assert_eq!(
//!     verdict.error(),
//!     Some("Didn't find op for builtin opcode 'SQRT' version '2'. An older version of this \
//!           builtin might be supported. Are you using an old TFLite binary with a newer \
//!           model?\nRegistration failed.\n")
//! );
//! assert_eq!(verdict.blocking[0].max_registered, Some(OpVersion::ONE));
//! // Its operator needs only version 1: re-stamping with `StampMode::Minimize` fixes it.
//! assert_eq!(verdict.blocking[0].required.version(), OpVersion::ONE);
//! let oldest = verdicts.oldest(RuntimeFamily::TensorflowCpu);
//! assert_eq!(oldest.map(|r| r.to_string()).as_deref(), Some("tensorflow-cpu 2.21.0"));
//! # Ok::<(), tflite_opver::Error>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::error::Error;
use crate::generated::runtimes::{RUNTIMES, RuntimeFacts};
use crate::model::Model;
use crate::operator::code::{BuiltinOperator, OpVersion};
use crate::rules::tensorflow::VersionReason;
use crate::runtimes::allocation::{self, Allocation};
use crate::runtimes::interpreter::{self, Construction, Unresolved};
use crate::runtimes::resolver::Resolver;

pub use crate::runtimes::interpreter::RefusedBy;

/// Where a runtime comes from: the PyPI distribution a user installs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuntimeFamily {
    /// `tensorflow-cpu`: `tf.lite.Interpreter`.
    TensorflowCpu,
    /// `tflite-runtime`: `tflite_runtime.interpreter.Interpreter`.
    TfliteRuntime,
    /// `ai-edge-litert` (LiteRT): `ai_edge_litert.interpreter.Interpreter`.
    AiEdgeLitert,
}

impl RuntimeFamily {
    /// Every family, in the order runtimes are listed.
    pub const ALL: [RuntimeFamily; 3] = [
        RuntimeFamily::TensorflowCpu,
        RuntimeFamily::TfliteRuntime,
        RuntimeFamily::AiEdgeLitert,
    ];

    /// The distribution's name on PyPI: `tensorflow-cpu`, `tflite-runtime`, `ai-edge-litert`.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeFamily::TensorflowCpu => "tensorflow-cpu",
            RuntimeFamily::TfliteRuntime => "tflite-runtime",
            RuntimeFamily::AiEdgeLitert => "ai-edge-litert",
        }
    }

    fn of(name: &str) -> RuntimeFamily {
        match name {
            "tensorflow-cpu" => RuntimeFamily::TensorflowCpu,
            "tflite-runtime" => RuntimeFamily::TfliteRuntime,
            _ => RuntimeFamily::AiEdgeLitert,
        }
    }
}

impl fmt::Display for RuntimeFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One TensorFlow Lite runtime, named as its users name it: `tensorflow-cpu 2.21.0`,
/// `tflite-runtime 2.14.0`, `ai-edge-litert 2.3.0`.
///
/// Its facts were probed from its real wheel on CPython 3.11, Linux x86-64: every (builtin
/// code, version) pair its default op resolver registers, found by constructing a
/// one-operator model for each; the highest builtin code it knows; the tensor types it
/// accepts; and the exact text it raises for each kind of refusal.
#[derive(Clone, Copy)]
pub struct Runtime {
    facts: &'static RuntimeFacts,
}

impl Runtime {
    /// Every runtime covered: by family (`tensorflow-cpu`, `tflite-runtime`, `ai-edge-litert`),
    /// each family oldest first.
    pub fn all() -> impl ExactSizeIterator<Item = Runtime> + Clone {
        RUNTIMES.iter().map(|facts| Runtime { facts })
    }

    /// The runtime named `name`, as in `"ai-edge-litert 1.4.0"`.
    pub fn find(name: &str) -> Option<Runtime> {
        let (family, version) = name.trim().split_once(' ')?;
        Runtime::all().find(|r| r.facts.family == family && r.facts.version == version.trim())
    }

    /// Its distribution.
    pub fn family(self) -> RuntimeFamily {
        RuntimeFamily::of(self.facts.family)
    }

    /// Its release, as PyPI names it: `2.21.0`.
    pub fn version(self) -> &'static str {
        self.facts.version
    }

    /// The Python class that was probed: `tensorflow.lite.python.interpreter.Interpreter`.
    pub fn interpreter(self) -> &'static str {
        self.facts.interpreter
    }

    /// The highest builtin code it knows; a model with a higher one is "out of range".
    pub fn max_builtin_code(self) -> BuiltinOperator {
        BuiltinOperator::new(self.facts.max_builtin_code)
    }

    /// Whether its default op resolver registers `op` at `version`. `CUSTOM` is never
    /// registered by code: custom ops are looked up by name.
    pub fn registers(self, op: BuiltinOperator, version: OpVersion) -> bool {
        interpreter::registers(self.facts, op.code(), version.get())
    }

    /// The versions of `op` it registers, lowest first.
    pub fn registered_versions(self, op: BuiltinOperator) -> impl Iterator<Item = OpVersion> {
        let mask = usize::try_from(op.code())
            .ok()
            .and_then(|code| self.facts.registrations.get(code))
            .copied()
            .unwrap_or(0);
        (0..64)
            .filter(move |v| mask & (1u64 << v) != 0)
            .map(OpVersion::new)
    }

    /// The highest version of `op` it registers, if any.
    pub fn max_version(self, op: BuiltinOperator) -> Option<OpVersion> {
        self.registered_versions(op).last()
    }

    /// Whether its default op resolver registers custom op `name` at `version`
    /// (`AudioSpectrogram`, `Mfcc`... as probed at `allocate_tensors`).
    pub fn registers_custom(self, name: &str, version: OpVersion) -> bool {
        allocation::registers_custom(self.facts, allocation::c_name(name), version.get())
    }

    /// The custom ops its default op resolver registers, with their versions.
    pub fn custom_ops(self) -> impl Iterator<Item = (&'static str, Vec<OpVersion>)> {
        self.facts.custom_ops.iter().map(|&(name, mask)| {
            let versions = (0..64)
                .filter(|v| mask & (1u64 << v) != 0)
                .map(OpVersion::new)
                .collect();
            (name, versions)
        })
    }

    /// Whether its interpreter applies the Flex delegate by itself, so that `Flex*` ops
    /// (TensorFlow ops kept by the converter's `SELECT_TF_OPS`) run: `tf.lite.Interpreter` of
    /// tensorflow-cpu 2.12 to 2.18.
    pub fn applies_flex(self) -> bool {
        self.facts.flex_applied
    }

    /// Whether it accepts tensors of type `value` (the schema's `TensorType`, as stored).
    pub fn accepts_tensor_type(self, value: i8) -> bool {
        self.facts.types.iter().any(|t| t.value == value)
    }

    /// Whether it runs FlatBuffers' verifier on the model before reading it (at most a million
    /// tables, at most 2^31 - 2 bytes).
    pub fn verifies(self) -> bool {
        self.facts.verifies
    }

    /// A [`Resolver`] with exactly its builtin registrations and its highest builtin code (and
    /// no custom ops: add yours with [`Resolver::add_custom`]).
    pub fn resolver(self) -> Resolver {
        let mut resolver = Resolver::new();
        resolver.set_max_builtin_code(self.max_builtin_code());
        for op in BuiltinOperator::all() {
            for version in self.registered_versions(op) {
                // A single version is never an empty range.
                let _ = resolver.add_builtin(op, version, version, ());
            }
        }
        resolver
    }

    /// Whether constructing its interpreter from `model`'s bytes succeeds, and if not, its
    /// words and the operator codes that block it. [`Model::runtime_verdicts`] judges every
    /// runtime at once.
    pub fn load(self, model: &Model<'_>) -> RuntimeVerdict {
        verdict(self, model, &mut Reasons::new(model))
    }
}

impl PartialEq for Runtime {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.facts, other.facts)
    }
}

impl Eq for Runtime {}

impl std::hash::Hash for Runtime {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.facts.family.hash(state);
        self.facts.version.hash(state);
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.facts.family, self.facts.version)
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Runtime({self})")
    }
}

impl FromStr for Runtime {
    type Err = Error;

    /// Parses a runtime's name, `"ai-edge-litert 2.3.0"`; an unknown one is an
    /// [`Error::UnknownRuntime`] listing the known ones.
    fn from_str(name: &str) -> Result<Self, Error> {
        Runtime::find(name).ok_or_else(|| Error::UnknownRuntime {
            name: name.to_owned(),
        })
    }
}

/// What constructing a runtime's interpreter from a model does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadOutcome {
    /// The interpreter is constructed.
    Loads,
    /// It raises (a `ValueError`), with this exact text.
    Refused {
        /// Which check refused the model.
        by: RefusedBy,
        /// The exception's text, as the runtime words it.
        message: String,
    },
    /// The runtime crashes: a model without a `subgraphs` vector makes TFLite dereference a
    /// null pointer (the Python process dies with a segmentation fault).
    Crashes,
}

/// Why an operator code blocks a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockingCause {
    /// A builtin code above the highest the runtime knows ("Op builtin_code out of range").
    CodeOutOfRange,
    /// A version the runtime never registered ("Didn't find op for builtin opcode").
    VersionNotRegistered,
    /// A `CUSTOM` code that names no custom op.
    NoCustomCode,
}

/// An operator code a runtime cannot resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockingOperator {
    /// Its index in the model's operator codes.
    pub code: usize,
    /// Its builtin operator.
    pub op: BuiltinOperator,
    /// The version stored in the model: the one the runtime looks up.
    pub version: OpVersion,
    /// The highest version of the operator the runtime registers; `None` when it has none.
    pub max_registered: Option<OpVersion>,
    /// Why it blocks.
    pub cause: BlockingCause,
    /// The version its operators need, and the rule of TF's `op_version.cc` that set it: when
    /// it is lower than `version`, re-stamping the model (`StampMode::Minimize`) may unblock
    /// the runtime.
    pub required: VersionReason,
}

/// What one runtime does with one model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeVerdict {
    /// The runtime.
    pub runtime: Runtime,
    /// Whether its interpreter is constructed, and if not, its words.
    pub outcome: LoadOutcome,
    /// Every operator code it cannot resolve, in the model's order (the error text names only
    /// the first: the runtime stops there).
    pub blocking: Vec<BlockingOperator>,
    /// What `allocate_tensors()` then does, as far as the facts reach.
    pub allocation: Allocation,
}

impl RuntimeVerdict {
    /// Whether the runtime constructs an interpreter from the model.
    pub fn loads(&self) -> bool {
        self.outcome == LoadOutcome::Loads
    }

    /// Whether `allocate_tensors()` succeeds: `Some(false)` when it is refused (or the
    /// interpreter is never constructed), `Some(true)` only when every check it makes is
    /// replayed, `None` when not judged ([`Allocation`]).
    pub fn allocates(&self) -> Option<bool> {
        self.allocation.allocates()
    }

    /// Whether the model is usable on the runtime as far as the tool can tell: `Some(false)`
    /// when construction or allocation is refused, `Some(true)` when it constructs and
    /// allocates, `None` when it constructs and allocation is not judged.
    pub fn runs(&self) -> Option<bool> {
        if self.loads() {
            self.allocates()
        } else {
            Some(false)
        }
    }

    /// The text the runtime raises, when it refuses the model.
    pub fn error(&self) -> Option<&str> {
        match &self.outcome {
            LoadOutcome::Refused { message, .. } => Some(message),
            _ => None,
        }
    }
}

/// Every runtime's verdict on one model ([`Model::runtime_verdicts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeVerdicts {
    verdicts: Vec<RuntimeVerdict>,
}

impl RuntimeVerdicts {
    /// The verdicts, in [`Runtime::all`]'s order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &RuntimeVerdict> {
        self.verdicts.iter()
    }

    /// The verdict of `runtime`.
    pub fn verdict(&self, runtime: Runtime) -> &RuntimeVerdict {
        // Every runtime has a verdict, in `Runtime::all`'s order.
        self.verdicts
            .iter()
            .find(|v| v.runtime == runtime)
            .unwrap_or(&self.verdicts[0])
    }

    /// The runtimes that load the model.
    pub fn loading(&self) -> impl Iterator<Item = Runtime> + '_ {
        self.verdicts
            .iter()
            .filter(|v| v.loads())
            .map(|v| v.runtime)
    }

    /// [`Model::restamp_refused_by`] from these verdicts on `model` and its
    /// [`Model::stamp_warnings`] (so that neither is computed twice): the runtimes that load it
    /// as stored but refuse its re-stamped copy.
    ///
    /// Re-stamping raises the codes stored too low and writes metadata, which no loader
    /// reads. Away from the verifier's limits, the copy is refused exactly by the runtimes
    /// that load the model and lack a raised version ([`StoredTooLow::stored_only`]); within
    /// 64 tables or 64 KiB below a limit, where the metadata could push the copy over it, the
    /// copy is written and judged. A model already over a limit is refused by every runtime
    /// that verifies, before and after, so the versions alone decide there too (and a
    /// converter's million-operator model is not copied and read again).
    pub fn restamp_refused_by(
        &self,
        model: &Model<'_>,
        warnings: &[crate::stamp::warnings::StampWarning],
    ) -> Result<Vec<Runtime>, Error> {
        use crate::runtimes::verifier::{VERIFIER_MAX_BYTES, VERIFIER_MAX_TABLES};
        if warnings.is_empty() {
            return Ok(Vec::new());
        }
        let (tables, len) = (model.flatbuffer_tables(), model.flatbuffer_len());
        let over_limits = tables > VERIFIER_MAX_TABLES || len > VERIFIER_MAX_BYTES;
        let near_limits = !over_limits
            && (tables.saturating_add(64) > VERIFIER_MAX_TABLES
                || len.saturating_add(64 * 1024) > VERIFIER_MAX_BYTES);
        if !near_limits {
            let raised = warnings.iter().any(|w| {
                matches!(
                    w,
                    crate::stamp::warnings::StampWarning::VersionTooLow { .. }
                )
            });
            if !raised {
                return Ok(Vec::new());
            }
            let low = model.stored_too_low();
            return Ok(self
                .verdicts
                .iter()
                .filter(|v| v.loads() && low.iter().any(|l| !v.runtime.registers(l.op, l.required)))
                .map(|v| v.runtime)
                .collect());
        }
        let stamped = crate::stamp::stamp(model.bytes(), crate::stamp::StampMode::Raise)?;
        let after = Model::from_bytes(&stamped.bytes)?;
        let mut reasons = Reasons::new(&after);
        Ok(self
            .verdicts
            .iter()
            .filter(|before| {
                before.loads() && !verdict(before.runtime, &after, &mut reasons).loads()
            })
            .map(|before| before.runtime)
            .collect())
    }

    /// The oldest runtime of `family` that loads the model. A newer one need not: a runtime
    /// that verifies the FlatBuffer refuses a model its elders load.
    pub fn oldest(&self, family: RuntimeFamily) -> Option<Runtime> {
        self.loading().find(|r| r.family() == family)
    }
}

impl<'v> IntoIterator for &'v RuntimeVerdicts {
    type Item = &'v RuntimeVerdict;
    type IntoIter = std::slice::Iter<'v, RuntimeVerdict>;

    fn into_iter(self) -> Self::IntoIter {
        self.verdicts.iter()
    }
}

/// An operator code stored below the version its operators need by TF's rules, with what
/// the known runtimes make of it ([`Model::stored_too_low`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTooLow {
    /// Its index in the model's operator codes.
    pub code: usize,
    /// Its builtin operator.
    pub op: BuiltinOperator,
    /// The version stored: the one runtimes look up.
    pub stored: OpVersion,
    /// The version its operators need.
    pub required: OpVersion,
    /// The runtimes that register the stored version but not the required one: they run the
    /// model as stored with no version check in the way, and whether their kernel handles
    /// these operators cannot be read from versions. Re-stamped, the model is refused by them.
    pub stored_only: Vec<Runtime>,
    /// Whether every known runtime registers the required version: for them the finding
    /// is about the file's metadata only.
    pub all_register_required: bool,
}

impl Model<'_> {
    /// Every operator code stored below what its operators need (builtin codes only), with
    /// the known runtimes that register the stored version but not the required one.
    pub fn stored_too_low(&self) -> Vec<StoredTooLow> {
        let reasons = self.required_version_reasons();
        self.operator_codes()
            .iter()
            .zip(&reasons)
            .enumerate()
            .filter(|(_, (code, reason))| !code.is_custom() && reason.version() > code.version)
            .map(|(i, (code, reason))| {
                let required = reason.version();
                StoredTooLow {
                    code: i,
                    op: code.builtin,
                    stored: code.version,
                    required,
                    stored_only: Runtime::all()
                        .filter(|r| {
                            r.registers(code.builtin, code.version)
                                && !r.registers(code.builtin, required)
                        })
                        .collect(),
                    all_register_required: Runtime::all()
                        .all(|r| r.registers(code.builtin, required)),
                }
            })
            .collect()
    }

    /// The runtimes that construct the model as stored but refuse the copy
    /// [`stamp`](crate::stamp()) writes (`StampMode::Raise`, as `tflite-opver stamp` does):
    /// what re-stamping would cost. Empty when the stamps are not too low.
    pub fn restamp_refused_by(&self) -> Result<Vec<Runtime>, Error> {
        let warnings = self.stamp_warnings();
        self.runtime_verdicts().restamp_refused_by(self, &warnings)
    }

    /// Every runtime's verdict on this model ([`Runtime::all`]): whether constructing its
    /// interpreter from these bytes succeeds (the default op resolver, no experimental
    /// flags), in its own words when it does not, and which operator codes block it.
    pub fn runtime_verdicts(&self) -> RuntimeVerdicts {
        let mut reasons = Reasons::new(self);
        RuntimeVerdicts {
            verdicts: Runtime::all()
                .map(|runtime| verdict(runtime, self, &mut reasons))
                .collect(),
        }
    }
}

/// The operator codes' required versions and their reasons, computed once, when a runtime is
/// first blocked by an operator code.
struct Reasons<'m, 'a> {
    model: &'m Model<'a>,
    reasons: Option<Vec<VersionReason>>,
    /// What allocation looks at, read when a runtime first constructs the model.
    plan: Option<allocation::Plan<'a>>,
}

impl<'m, 'a> Reasons<'m, 'a> {
    fn new(model: &'m Model<'a>) -> Self {
        Self {
            model,
            reasons: None,
            plan: None,
        }
    }

    fn plan(&mut self) -> &allocation::Plan<'a> {
        let model = self.model;
        self.plan.get_or_insert_with(|| allocation::plan(model))
    }

    fn of(&mut self, code: usize) -> VersionReason {
        let model = self.model;
        let reasons = self
            .reasons
            .get_or_insert_with(|| model.required_version_reasons());
        reasons
            .get(code)
            .cloned()
            .unwrap_or_else(|| VersionReason::new(OpVersion::ONE, "no operator uses this code"))
    }
}

fn verdict(runtime: Runtime, model: &Model<'_>, reasons: &mut Reasons<'_, '_>) -> RuntimeVerdict {
    let outcome = match interpreter::construct(model, runtime.facts) {
        Construction::Constructs => LoadOutcome::Loads,
        Construction::Refused(by, message) => LoadOutcome::Refused { by, message },
        Construction::Crashes => LoadOutcome::Crashes,
    };
    let mut blocking = Vec::new();
    for (i, code) in model.operator_codes().iter().enumerate() {
        let cause = match interpreter::resolve(
            runtime.facts,
            code.builtin,
            code.version.get(),
            code.custom_code.is_some(),
        ) {
            None => continue,
            Some(Unresolved::OutOfRange) => BlockingCause::CodeOutOfRange,
            Some(Unresolved::NotFound) => BlockingCause::VersionNotRegistered,
            Some(Unresolved::NoCustomCode) => BlockingCause::NoCustomCode,
        };
        blocking.push(BlockingOperator {
            code: i,
            op: code.builtin,
            version: code.version,
            max_registered: runtime.max_version(code.builtin),
            cause,
            required: reasons.of(i),
        });
    }
    let allocation = if outcome == LoadOutcome::Loads {
        allocation::allocate(reasons.plan(), runtime.facts)
    } else {
        Allocation::NotConstructed
    };
    RuntimeVerdict {
        runtime,
        outcome,
        blocking,
        allocation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::ModelBuilder;
    use crate::operator::code::OpVersion;
    use crate::operator::signature::OpSignature;
    use crate::operator::tensor::{ElementType, TensorSpec};
    use crate::params::Params;

    /// The oldest runtime of a family that loads a model says nothing of the newer ones: those
    /// that verify the FlatBuffer refuse a model of more than a million tables that older ones
    /// load. (A model counted as that large; `tests/` read real ones of each count.)
    #[test]
    fn the_oldest_runtime_that_loads_a_model_need_not_be_followed_by_all_newer_ones() {
        let t = TensorSpec::new(ElementType::Float32, &[1]);
        let relu = OpSignature::new(
            BuiltinOperator::RELU,
            vec![t.clone()],
            vec![t],
            Params::None,
        );
        let bytes = ModelBuilder::new()
            .signature(&relu, OpVersion::ONE)
            .finish();
        let mut model = Model::from_bytes(&bytes).unwrap();
        model.tables = crate::runtimes::verifier::VERIFIER_MAX_TABLES + 1;
        let verdicts = model.runtime_verdicts();
        for verdict in &verdicts {
            if verdict.runtime.verifies() {
                assert_eq!(
                    verdict.outcome,
                    LoadOutcome::Refused {
                        by: RefusedBy::Verifier,
                        message: "The model is not a valid Flatbuffer buffer".to_owned()
                    },
                    "{}",
                    verdict.runtime
                );
            } else {
                assert!(verdict.loads(), "{}", verdict.runtime);
            }
        }
        let oldest = verdicts.oldest(RuntimeFamily::TensorflowCpu).unwrap();
        assert_eq!(oldest.to_string(), "tensorflow-cpu 2.12.1");
        assert!(
            !verdicts
                .verdict("tensorflow-cpu 2.21.0".parse().unwrap())
                .loads()
        );
        assert_eq!(verdicts.oldest(RuntimeFamily::AiEdgeLitert), None);
        // At the limit, every runtime loads it.
        model.tables = crate::runtimes::verifier::VERIFIER_MAX_TABLES;
        assert_eq!(model.runtime_verdicts().loading().count(), 30);
    }

    /// An unknown runtime's error lists every runtime by the name `Runtime` prints and
    /// `Runtime::find` takes (the error reads them from the table, not through `Runtime`).
    #[test]
    fn an_unknown_runtime_error_lists_every_runtime_by_its_name() {
        let text = "tflite-runtime 0.0.1"
            .parse::<Runtime>()
            .unwrap_err()
            .to_string();
        let names: Vec<String> = Runtime::all().map(|r| r.to_string()).collect();
        assert!(text.ends_with(&names.join(", ")), "{text}");
        for name in &names {
            assert!(Runtime::find(name).is_some(), "{name}");
        }
    }
}
