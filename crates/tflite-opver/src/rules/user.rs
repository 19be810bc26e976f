//! User-defined version rules: a custom op's (or a fork's builtin's) version from its
//! signature, beside TensorFlow's rules.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::operator::code::{BuiltinOperator, OpVersion, OperatorKind};
use crate::operator::signature::OpSignature;
use crate::rules::tensorflow::{VersionReason, op_version, version_reason};
use crate::runtimes::resolver::Resolver;

/// A version rule, as [`VersionRules`] keeps it: the lowest version of an op that runs the given
/// signature, and why.
pub type VersionRule = dyn Fn(&OpSignature) -> VersionReason + Send + Sync;

/// What a version rule returns: a bare [`OpVersion`] (its reason is then "user-defined rule"),
/// or a [`VersionReason`] that says in the rule's own words what set the version.
pub trait IntoVersionReason {
    /// The version and its reason.
    fn into_version_reason(self) -> VersionReason;
}

impl IntoVersionReason for OpVersion {
    fn into_version_reason(self) -> VersionReason {
        VersionReason::new(self, USER_RULE)
    }
}

impl IntoVersionReason for VersionReason {
    fn into_version_reason(self) -> VersionReason {
        self
    }
}

/// Keeps a user's rule in the stored form.
fn stored<R: IntoVersionReason>(
    rule: impl Fn(&OpSignature) -> R + Send + Sync + 'static,
) -> Arc<VersionRule> {
    Arc::new(move |sig: &OpSignature| rule(sig).into_version_reason())
}

/// One registration: the rule and the versions the op has.
#[derive(Clone)]
struct Registered {
    rule: Arc<VersionRule>,
    min: OpVersion,
    max: OpVersion,
}

/// Version rules for ops TensorFlow's rules do not judge: custom ops, and builtins a fork
/// versions differently.
///
/// TensorFlow computes versions only for builtin ops (`op_version.cc`); a custom op's version is
/// whatever its author stamped. With a `VersionRules`, a custom op gets a rule too, a function
/// from its [`OpSignature`] to a version, as a builtin has, and a fork can replace TF's rule
/// for a builtin. Each registration also says which versions the op has, like TFLite's
/// `AddCustom(name, registration, min_version = 1, max_version = 1)`: a registration without
/// a range has the seed's default, versions `[1, 1]`.
///
/// The rules are used by [`Model::required_versions_with`](crate::Model::required_versions_with)
/// and [`Model::required_version_reasons_with`](crate::Model::required_version_reasons_with)
/// (inspect), [`stamp_with`](crate::stamp_with) (stamp: a custom code with a rule is re-stamped
/// like a builtin one) and [`VersionRules::register`] (check: the versions each registration
/// has go into a [`Resolver`]). Ops without a registered rule keep TF's behaviour: builtins
/// follow [`op_version`], custom codes keep their stored version. The `tflite-opver` tool
/// cannot load Rust functions, so it uses TF's rules only; build your own tool on these calls.
///
/// A rule is trusted to stay within its range; a version outside it is what the registration
/// does not have, so [`Resolver::check`] on the result refuses it.
///
/// A rule returns an [`OpVersion`], or a [`VersionReason`] when it can say why: the reasons
/// `inspect` would show ([`Model::required_version_reasons_with`](crate::Model::required_version_reasons_with))
/// are then the rule's own, as TF's rules give theirs. A bare version's reason is
/// "user-defined rule".
///
/// ```
/// use tflite_opver::{
///     ElementType, Model, ModelBuilder, OpSignature, OpVersion, StampMode,
///     TensorSpec, VersionReason, VersionRules, stamp_with,
/// };
///
/// // MyOp v2 added int8, v3 added int16.
/// let mut rules = VersionRules::new();
/// rules.custom_versions("MyOp", OpVersion::new(1), OpVersion::new(3), |sig: &OpSignature| {
///     match sig.input_type(0) {
///         ElementType::Int16 => VersionReason::new(OpVersion::new(3), "int16 input"),
///         ElementType::Int8 => VersionReason::new(OpVersion::new(2), "int8 input"),
///         _ => VersionReason::new(OpVersion::ONE, "float input"),
///     }
/// })?;
///
/// let t = TensorSpec::new(ElementType::Int8, &[4]);
/// let mut builder = ModelBuilder::new();
/// let code = builder.custom_code("MyOp", OpVersion::ONE);
/// let (a, b) = (builder.tensor(&t), builder.tensor(&t));
/// builder.operator(code, &[a], &[b], None);
/// let bytes = builder.finish();
///
/// let model = Model::from_bytes(&bytes)?;
/// assert_eq!(model.required_versions(), [OpVersion::ONE]); // TF: a custom op keeps its stamp
/// assert_eq!(model.required_versions_with(&rules), [OpVersion::new(2)]);
/// assert_eq!(model.required_version_reasons_with(&rules)[0].to_string(), "v2: int8 input");
/// let stamped = stamp_with(&bytes, StampMode::Raise, &rules)?;
/// assert_eq!(Model::from_bytes(&stamped.bytes)?.operator_codes()[0].version, OpVersion::new(2));
/// # Ok::<(), tflite_opver::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct VersionRules {
    builtins: HashMap<BuiltinOperator, Registered>,
    customs: HashMap<String, Registered>,
}

impl fmt::Debug for VersionRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = |r: &Registered| format!("[{}, {}]", r.min, r.max);
        let mut builtins: Vec<_> = self
            .builtins
            .iter()
            .map(|(op, r)| (op.to_string(), range(r)))
            .collect();
        let mut customs: Vec<_> = self
            .customs
            .iter()
            .map(|(name, r)| (name.clone(), range(r)))
            .collect();
        builtins.sort();
        customs.sort();
        f.debug_struct("VersionRules")
            .field("builtins", &builtins)
            .field("customs", &customs)
            .finish()
    }
}

/// The reason given for a bare version a user-defined rule returned.
const USER_RULE: &str = "user-defined rule";

impl VersionRules {
    /// No user-defined rules: TensorFlow's rules only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives the custom op `name` a version rule; it has versions `[1, 1]` (the default of
    /// TFLite's `AddCustom`). A later registration of the same op replaces this one.
    pub fn custom<R: IntoVersionReason>(
        &mut self,
        name: &str,
        rule: impl Fn(&OpSignature) -> R + Send + Sync + 'static,
    ) -> &mut Self {
        self.customs.insert(
            name.to_owned(),
            Registered {
                rule: stored(rule),
                min: OpVersion::ONE,
                max: OpVersion::ONE,
            },
        );
        self
    }

    /// Gives the custom op `name` a version rule and the versions `min..=max`.
    ///
    /// Fails with [`Error::InvalidVersionRange`] when `min > max`.
    pub fn custom_versions<R: IntoVersionReason>(
        &mut self,
        name: &str,
        min: OpVersion,
        max: OpVersion,
        rule: impl Fn(&OpSignature) -> R + Send + Sync + 'static,
    ) -> Result<&mut Self, Error> {
        check_range(name, min, max)?;
        self.customs.insert(
            name.to_owned(),
            Registered {
                rule: stored(rule),
                min,
                max,
            },
        );
        Ok(self)
    }

    /// Replaces TF's rule for the builtin `op` (a fork's own versions); it has versions
    /// `[1, 1]`.
    pub fn builtin<R: IntoVersionReason>(
        &mut self,
        op: BuiltinOperator,
        rule: impl Fn(&OpSignature) -> R + Send + Sync + 'static,
    ) -> &mut Self {
        self.builtins.insert(
            op,
            Registered {
                rule: stored(rule),
                min: OpVersion::ONE,
                max: OpVersion::ONE,
            },
        );
        self
    }

    /// Replaces TF's rule for the builtin `op`, with the versions `min..=max`.
    ///
    /// Fails with [`Error::InvalidVersionRange`] when `min > max`.
    pub fn builtin_versions<R: IntoVersionReason>(
        &mut self,
        op: BuiltinOperator,
        min: OpVersion,
        max: OpVersion,
        rule: impl Fn(&OpSignature) -> R + Send + Sync + 'static,
    ) -> Result<&mut Self, Error> {
        check_range(&op.to_string(), min, max)?;
        self.builtins.insert(
            op,
            Registered {
                rule: stored(rule),
                min,
                max,
            },
        );
        Ok(self)
    }

    fn registered(&self, kind: OperatorKind<'_>) -> Option<&Registered> {
        match kind {
            OperatorKind::Builtin(op) => self.builtins.get(&op),
            OperatorKind::Custom(name) => self.customs.get(name),
        }
    }

    /// The versions registered for `kind`, `(min, max)`; `None` without a registration.
    pub fn versions(&self, kind: OperatorKind<'_>) -> Option<(OpVersion, OpVersion)> {
        self.registered(kind).map(|r| (r.min, r.max))
    }

    /// Whether a rule judges `kind`: a registered custom op or builtin, or any builtin (TF's
    /// rules). An unregistered custom op keeps its stored version.
    pub fn judges(&self, kind: OperatorKind<'_>) -> bool {
        matches!(kind, OperatorKind::Builtin(_)) || self.registered(kind).is_some()
    }

    /// The version `sig` needs: its registered rule, else TF's ([`op_version`]). An
    /// unregistered custom op is version 1 here (as in [`op_version`]); models keep its
    /// stored version instead.
    pub fn version(&self, sig: &OpSignature) -> OpVersion {
        match self.registered(kind_of(sig)) {
            Some(r) => (r.rule)(sig).version(),
            None => op_version(sig),
        }
    }

    /// [`VersionRules::version`] and the rule that set it.
    pub fn reason(&self, sig: &OpSignature) -> VersionReason {
        match self.registered(kind_of(sig)) {
            Some(r) => (r.rule)(sig),
            None => version_reason(sig),
        }
    }

    /// Registers each op's versions in `resolver`, with `kernel` (check: a runtime that has
    /// these ops). Builtins a fork re-versions get the registered range beside TF's.
    pub fn register<K: Clone>(&self, resolver: &mut Resolver<K>, kernel: K) {
        for (op, r) in &self.builtins {
            // The range was checked when it was registered.
            let _ = resolver.add_builtin(*op, r.min, r.max, kernel.clone());
        }
        for (name, r) in &self.customs {
            let _ = resolver.add_custom(name, r.min, r.max, kernel.clone());
        }
    }
}

/// What `sig` names: its builtin, or its custom op when it is `CUSTOM` with a name.
fn kind_of(sig: &OpSignature) -> OperatorKind<'_> {
    match (&sig.custom_name, sig.op) {
        (Some(name), BuiltinOperator::CUSTOM) => OperatorKind::Custom(name),
        (_, op) => OperatorKind::Builtin(op),
    }
}

fn check_range(op: &str, min: OpVersion, max: OpVersion) -> Result<(), Error> {
    if min > max {
        return Err(Error::InvalidVersionRange {
            op: op.to_owned(),
            min,
            max,
        });
    }
    Ok(())
}

/// How a model's versions are judged: TF's rules alone (the fast path, with no lookups), or
/// with user-defined rules.
pub(crate) trait Judge {
    /// Whether the rules see only what a signature's tensors read like, not which tensors
    /// they are (`TensorSpec::tensor_index`): then operators that read the same are judged
    /// once.
    const SEES_ONLY_TENSOR_FACTS: bool;
    /// Whether custom op `name` has a rule (else its stored version stays).
    fn judges_custom(&self, name: Option<&str>) -> bool;
    /// The version `sig` needs.
    fn version(&self, sig: &OpSignature) -> OpVersion;
    /// That version and why.
    fn reason(&self, sig: &OpSignature) -> VersionReason;
}

/// TensorFlow's rules alone.
pub(crate) struct TfRules;

impl Judge for TfRules {
    // TF's rules (rules/tensorflow.rs) never read `tensor_index`.
    const SEES_ONLY_TENSOR_FACTS: bool = true;
    #[inline]
    fn judges_custom(&self, _name: Option<&str>) -> bool {
        false
    }
    #[inline]
    fn version(&self, sig: &OpSignature) -> OpVersion {
        op_version(sig)
    }
    fn reason(&self, sig: &OpSignature) -> VersionReason {
        version_reason(sig)
    }
}

impl Judge for VersionRules {
    // A user's rule may read anything in the signature.
    const SEES_ONLY_TENSOR_FACTS: bool = false;
    fn judges_custom(&self, name: Option<&str>) -> bool {
        name.is_some_and(|name| self.customs.contains_key(name))
    }
    fn version(&self, sig: &OpSignature) -> OpVersion {
        VersionRules::version(self, sig)
    }
    fn reason(&self, sig: &OpSignature) -> VersionReason {
        VersionRules::reason(self, sig)
    }
}
