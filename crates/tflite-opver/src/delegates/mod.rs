//! Delegates: which operators a hardware backend takes, and why it leaves the rest to the CPU.

mod presets;

use core::fmt;
use std::collections::{BTreeSet, HashMap};

use crate::operator::code::{BuiltinOperator, OpVersion, OperatorKind};
use crate::operator::signature::OpSignature;

/// A condition a delegate places on an operator's signature, with the reason it states when
/// the condition does not hold.
#[derive(Clone, Copy)]
pub struct Check {
    reason: &'static str,
    accepts: fn(&OpSignature) -> bool,
}

impl Check {
    /// A check: `accepts` says whether the delegate can run the signature; `reason` is what it
    /// reports when it cannot.
    pub const fn new(reason: &'static str, accepts: fn(&OpSignature) -> bool) -> Self {
        Self { reason, accepts }
    }

    /// The reason reported when the check fails.
    pub const fn reason(&self) -> &'static str {
        self.reason
    }

    /// Whether the delegate accepts `signature`.
    pub fn accepts(&self, signature: &OpSignature) -> bool {
        (self.accepts)(signature)
    }
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Check")
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

/// How a delegate words a version refusal: from the highest version it runs and the version
/// the model asks for.
pub type VersionWording = fn(max: OpVersion, requested: OpVersion) -> String;

/// How a delegate words its refusal of an operator it has no kernel for: from the operator's
/// name and the node's index.
pub type UnsupportedWording = fn(op_name: &str, index: usize) -> String;

/// One row of a delegate's capability table: an operator, the highest version the delegate
/// runs, and optionally a check on the signature.
#[derive(Clone, Copy, Debug)]
pub struct Capability {
    op: OperatorKind<'static>,
    max_version: OpVersion,
    excluded_version: Option<OpVersion>,
    version_reason: Option<VersionWording>,
    check: Option<Check>,
}

impl Capability {
    /// The delegate runs builtin `op` at versions up to `max_version`.
    pub const fn new(op: BuiltinOperator, max_version: i32) -> Self {
        Self::row(OperatorKind::Builtin(op), max_version)
    }

    /// The delegate runs the custom operator `name` at versions up to `max_version`.
    pub const fn custom(name: &'static str, max_version: i32) -> Self {
        Self::row(OperatorKind::Custom(name), max_version)
    }

    /// The delegate runs builtin `op` without looking at its version.
    pub const fn any_version(op: BuiltinOperator) -> Self {
        Self::row(OperatorKind::Builtin(op), i32::MAX)
    }

    /// The delegate runs the custom operator `name` without looking at its version.
    pub const fn custom_any_version(name: &'static str) -> Self {
        Self::row(OperatorKind::Custom(name), i32::MAX)
    }

    const fn row(op: OperatorKind<'static>, max_version: i32) -> Self {
        Self {
            op,
            max_version: OpVersion::new(max_version),
            excluded_version: None,
            version_reason: None,
            check: None,
        }
    }

    /// The same row, additionally refusing exactly `version` (XNNPACK refuses
    /// `FULLY_CONNECTED` version 8, sparse weights, and takes every other version).
    pub const fn excluding_version(mut self, version: i32) -> Self {
        self.excluded_version = Some(OpVersion::new(version));
        self
    }

    /// The same row, wording its version refusals with `reason` instead of the GPU
    /// delegate's "Max version supported: N. Requested version M."
    pub const fn with_version_reason(mut self, reason: VersionWording) -> Self {
        self.version_reason = Some(reason);
        self
    }

    /// The same row, additionally requiring `check` to accept the signature.
    pub const fn with_check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }

    /// The operator this row is about.
    pub const fn op(&self) -> OperatorKind<'static> {
        self.op
    }

    /// The highest version the delegate runs (`i32::MAX` when it does not look at versions).
    pub const fn max_version(&self) -> OpVersion {
        self.max_version
    }

    /// Whether the delegate caps this operator's version at all.
    pub const fn has_version_ceiling(&self) -> bool {
        self.max_version.get() != i32::MAX
    }

    /// The one version the delegate refuses below its ceiling, if any.
    pub const fn excluded_version(&self) -> Option<OpVersion> {
        self.excluded_version
    }

    /// Whether the delegate takes `version` of this operator, judging by version alone.
    pub fn accepts_version(&self, version: OpVersion) -> bool {
        version <= self.max_version && self.excluded_version != Some(version)
    }

    /// The check on the signature, if any.
    pub const fn check(&self) -> Option<&Check> {
        self.check.as_ref()
    }
}

/// Why a delegate leaves an operator to the CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The capability table has no row for the operator.
    UnsupportedOp,
    /// The operator's version is above what the delegate runs.
    VersionTooNew {
        /// The delegate's highest version of the operator.
        max: OpVersion,
        /// The version the model's operator code asks for.
        requested: OpVersion,
    },
    /// The delegate refuses exactly this version of the operator, though it takes others.
    VersionExcluded {
        /// The version the model's operator code asks for.
        version: OpVersion,
    },
    /// The row's [`Check`] rejected the signature.
    CheckFailed {
        /// The check's reason.
        reason: &'static str,
    },
}

impl Refusal {
    /// Whether the refusal is on version grounds ([`Refusal::VersionTooNew`],
    /// [`Refusal::VersionExcluded`]).
    pub const fn is_version(&self) -> bool {
        matches!(
            self,
            Self::VersionTooNew { .. } | Self::VersionExcluded { .. }
        )
    }
}

/// Where one operator runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// On the delegate.
    Delegate,
    /// On the CPU, for this reason.
    Cpu(Refusal),
}

/// The judgement for one operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The index the caller gave the operator (its position in the subgraph).
    pub index: usize,
    /// The operator's name: TF's builtin name, or the custom op's name.
    pub op_name: String,
    /// Where it runs.
    pub placement: Placement,
    /// The delegate's own wording of the refusal, when it has one.
    reason_override: Option<String>,
}

impl Decision {
    /// The reason in TF's words, or `None` when the operator runs on the delegate.
    pub fn reason(&self) -> Option<String> {
        if let Some(reason) = &self.reason_override {
            return Some(reason.clone());
        }
        match &self.placement {
            Placement::Delegate => None,
            Placement::Cpu(Refusal::UnsupportedOp) => {
                Some(format!("Not supported op {}", self.op_name))
            }
            Placement::Cpu(Refusal::VersionTooNew { max, requested }) => Some(format!(
                "Max version supported: {max}. Requested version {requested}."
            )),
            Placement::Cpu(Refusal::VersionExcluded { version }) => Some(format!(
                "Unsupported version {version} of {}.",
                self.op_name
            )),
            Placement::Cpu(Refusal::CheckFailed { reason }) => Some((*reason).to_owned()),
        }
    }
}

/// A delegate described by its capability table.
///
/// A TFLite delegate (GPU, NNAPI, a vendor NPU) looks at each operator and either claims it or
/// leaves it to the CPU kernels. Versions matter here as much as in the interpreter: a delegate
/// built when `TRANSPOSE_CONV` had three versions must refuse version 4 rather than ignore
/// parameters it does not know. TF's GPU delegate says so in these words: "Max version
/// supported: 3. Requested version 4."
///
/// A [`Delegate`] is declarative: a table of [`Capability`] rows, one per operator, each with
/// the highest version the delegate runs and optionally a [`Check`] on the operator's
/// [`OpSignature`] with the reason it gives when the check fails. [`Delegate::partition`]
/// judges every operator of a model and returns a [`Partition`]: per operator, delegate or CPU
/// (with the reason), and a summary in TF's words.
///
/// TensorFlow Lite's own delegates are presets: [`Delegate::gpu`], [`Delegate::nnapi`] and
/// [`Delegate::xnnpack`] carry the version checks their sources make, operator by operator,
/// and say in [`Delegate::not_modelled`] what else the real delegate checks.
///
/// Facts: wording from TF's GPU delegate: `CheckMaxSupportedOpVersion` in
/// `tensorflow/lite/delegates/gpu/common/operation_parser.cc` (`model_builder_helper.cc` in
/// older releases; "Max version supported: N. Requested version M."), and the summary
/// ("Following operations are not supported by GPU delegate:" ... "N operations will run on the
/// GPU, and the remaining M operations will run on the CPU.") in `GetOpsToReplace`,
/// `tensorflow/lite/delegates/gpu/common/model_builder.cc`. "Not supported op NAME" is this
/// crate's default for an operator without a row; the presets use their delegate's own words
/// ([`Delegate::with_unsupported_reason`]).
///
/// ```
/// use tflite_opver::{
///     BuiltinOperator, Capability, Check, Delegate, ElementType, OpSignature, OpVersion,
///     TensorSpec, params::Params,
/// };
///
/// const FLOAT_ONLY: Check = Check::new("Only float32 inputs are supported.", |sig| {
///     sig.input_type(0) == ElementType::Float32
/// });
/// let gpu = Delegate::new(
///     "GPU",
///     [
///         Capability::new(BuiltinOperator::ADD, 2),
///         Capability::new(BuiltinOperator::TRANSPOSE_CONV, 3).with_check(FLOAT_ONLY),
///     ],
/// );
///
/// let sig = |op, ty| {
///     let t = TensorSpec::new(ty, &[1, 4]);
///     OpSignature::new(op, vec![t.clone(), t.clone()], vec![t], Params::None)
/// };
/// let ops = [
///     sig(BuiltinOperator::ADD, ElementType::Float32),
///     sig(BuiltinOperator::TRANSPOSE_CONV, ElementType::Float32),
///     sig(BuiltinOperator::MUL, ElementType::Float32),
/// ];
/// let versions = [1, 4, 1];
/// let partition = gpu.partition(
///     ops.iter().zip(versions).enumerate().map(|(i, (s, v))| (i, s, OpVersion::new(v))),
/// );
/// assert_eq!(partition.delegated(), 1);
/// assert_eq!(partition.on_cpu(), 2);
/// assert_eq!(
///     partition.to_string(),
///     "Following operations are not supported by GPU delegate:\n\
///      MUL: Not supported op MUL\n\
///      TRANSPOSE_CONV: Max version supported: 3. Requested version 4.\n\
///      1 operations will run on the GPU, and the remaining 2 operations will run on the CPU."
/// );
/// ```
#[derive(Clone, Debug)]
pub struct Delegate {
    name: String,
    capabilities: HashMap<OperatorKind<'static>, Capability>,
    not_modelled: Option<&'static str>,
    unsupported_reason: Option<UnsupportedWording>,
}

impl Delegate {
    /// A delegate called `name` (as in "will run on the GPU") with the given capability rows.
    /// A later row for the same operator replaces an earlier one.
    pub fn new(name: &str, capabilities: impl IntoIterator<Item = Capability>) -> Self {
        Self {
            name: name.to_owned(),
            capabilities: capabilities.into_iter().map(|c| (c.op, c)).collect(),
            not_modelled: None,
            unsupported_reason: None,
        }
    }

    /// The same delegate, wording its refusal of operators without a row with `reason`
    /// instead of "Not supported op NAME".
    pub fn with_unsupported_reason(mut self, reason: UnsupportedWording) -> Self {
        self.unsupported_reason = Some(reason);
        self
    }

    /// The same delegate, noting what else the real delegate checks that its table does not
    /// model (tensor types, shapes, constness, platform versions...).
    pub fn with_not_modelled(mut self, note: &'static str) -> Self {
        self.not_modelled = Some(note);
        self
    }

    /// What the real delegate checks beyond this table, when that was noted.
    pub fn not_modelled(&self) -> Option<&'static str> {
        self.not_modelled
    }

    /// The capability rows, in no particular order.
    pub fn capabilities(&self) -> impl Iterator<Item = &Capability> {
        self.capabilities.values()
    }

    /// The delegate's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The capability row for `op`, if any.
    pub fn capability(&self, op: OperatorKind<'_>) -> Option<&Capability> {
        match op {
            OperatorKind::Builtin(b) => self.capabilities.get(&OperatorKind::Builtin(b)),
            // Look custom rows up by name without requiring a 'static key.
            OperatorKind::Custom(name) => self
                .capabilities
                .values()
                .find(|c| c.op == OperatorKind::Custom(name)),
        }
    }

    /// Judges one operator: its signature and its operator code's version.
    ///
    /// The version is checked before the signature, as TF's GPU delegate does.
    pub fn place(&self, signature: &OpSignature, version: OpVersion) -> Placement {
        let Some(capability) = self.capability(kind_of(signature)) else {
            return Placement::Cpu(Refusal::UnsupportedOp);
        };
        if capability.excluded_version == Some(version) {
            return Placement::Cpu(Refusal::VersionExcluded { version });
        }
        if version > capability.max_version {
            return Placement::Cpu(Refusal::VersionTooNew {
                max: capability.max_version,
                requested: version,
            });
        }
        match capability.check {
            Some(check) if !check.accepts(signature) => Placement::Cpu(Refusal::CheckFailed {
                reason: check.reason,
            }),
            _ => Placement::Delegate,
        }
    }

    /// Judges every operator: `(index, signature, version)` for each, in execution order.
    pub fn partition<'s, I>(&self, operators: I) -> Partition
    where
        I: IntoIterator<Item = (usize, &'s OpSignature, OpVersion)>,
    {
        let decisions = operators
            .into_iter()
            .map(|(index, signature, version)| {
                let kind = kind_of(signature);
                let placement = self.place(signature, version);
                let reason_override = match &placement {
                    Placement::Cpu(Refusal::UnsupportedOp) => self
                        .unsupported_reason
                        .map(|reason| reason(&kind.to_string(), index)),
                    Placement::Cpu(Refusal::VersionTooNew { max, requested }) => self
                        .capability(kind)
                        .and_then(|c| c.version_reason)
                        .map(|reason| reason(*max, *requested)),
                    Placement::Cpu(Refusal::VersionExcluded { version }) => self
                        .capability(kind)
                        .and_then(|c| c.version_reason)
                        .map(|reason| reason(*version, *version)),
                    _ => None,
                };
                Decision {
                    index,
                    op_name: kind.to_string(),
                    placement,
                    reason_override,
                }
            })
            .collect();
        Partition {
            delegate: self.name.clone(),
            decisions,
        }
    }
}

/// The operator a signature is about: its custom name for custom ops.
fn kind_of(signature: &OpSignature) -> OperatorKind<'_> {
    match (&signature.custom_name, signature.op) {
        (Some(name), BuiltinOperator::CUSTOM) => OperatorKind::Custom(name),
        (_, op) => OperatorKind::Builtin(op),
    }
}

/// Every operator's placement, and the delegate/CPU summary.
///
/// [`fmt::Display`] writes TF's report: the refused operators (one line per distinct
/// `OP: reason`, sorted, as TF collects them in a set), then "N operations will run on the
/// NAME, and the remaining M operations will run on the CPU." When nothing is refused only the
/// last line is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    delegate: String,
    decisions: Vec<Decision>,
}

impl Partition {
    /// One decision per operator, in the order given.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// How many operators run on the delegate.
    pub fn delegated(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.placement == Placement::Delegate)
            .count()
    }

    /// How many operators stay on the CPU.
    pub fn on_cpu(&self) -> usize {
        self.decisions.len() - self.delegated()
    }

    /// The operators left to the CPU.
    pub fn refusals(&self) -> impl Iterator<Item = &Decision> {
        self.decisions
            .iter()
            .filter(|d| d.placement != Placement::Delegate)
    }

    /// Whether every operator runs on the delegate.
    pub fn is_fully_delegated(&self) -> bool {
        self.on_cpu() == 0
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: BTreeSet<String> = self
            .refusals()
            .map(|d| format!("{}: {}", d.op_name, d.reason().unwrap_or_default()))
            .collect();
        if !lines.is_empty() {
            writeln!(
                f,
                "Following operations are not supported by {} delegate:",
                self.delegate
            )?;
            for line in &lines {
                writeln!(f, "{line}")?;
            }
        }
        write!(
            f,
            "{} operations will run on the {}, and the remaining {} operations will run on the CPU.",
            self.delegated(),
            self.delegate,
            self.on_cpu()
        )
    }
}
