//! Op resolvers: which kernels a runtime has, by operator and exact version.

use std::collections::HashMap;

use crate::error::{Error, ResolveError};
use crate::operator::code::{BuiltinOperator, OpVersion, OperatorKind};
use crate::runtimes::min_runtime::{RuntimeVersion, supported_by};

/// One kernel registered for an inclusive version range.
#[derive(Clone, Debug)]
struct Registration<K> {
    min: OpVersion,
    max: OpVersion,
    kernel: K,
}

impl<K> Registration<K> {
    fn covers(&self, version: OpVersion) -> bool {
        self.min <= version && version <= self.max
    }
}

/// A set of kernels, looked up by exact `(operator, version)`.
///
/// `K` is whatever a kernel is to the caller (a function table, a name, or `()` when only the
/// question "is there one?" matters). Registering the same `(operator, version)` twice keeps
/// the later kernel, as TFLite's `MutableOpResolver` does.
///
/// A TFLite runtime registers each kernel for an inclusive range of operator versions (TF's
/// `MutableOpResolver::AddBuiltin(op, registration, min_version, max_version)` and `AddCustom`).
/// Loading a model looks every operator code up by its exact `(operator, version)`; a model whose
/// code asks for a version the runtime never registered is refused with TFLite's own message
/// instead of running an older kernel that would misread the new parameters.
///
/// [`Resolver::for_runtime`] builds the resolver a given TFLite release amounts to, from TF's
/// minimum-runtime table ([`runtime_table`](crate::runtime_table)): "would TFLite 2.3.0 accept this model?" becomes
/// [`Resolver::check`] on the model's operator codes, which reports every unsupported code at
/// once.
///
/// Facts: lookup order and error wording follow `GetRegistrationFromOpCode` in
/// `tensorflow/lite/core/api/op_resolver.cc` and `Subgraph::OpPrepare` in
/// `tensorflow/lite/core/subgraph.cc`; registration semantics follow
/// `tensorflow/lite/mutable_op_resolver.cc` (a later registration of the same pair replaces an
/// earlier one).
///
/// ```
/// use tflite_opver::{BuiltinOperator, OpVersion, OperatorKind, Resolver, RuntimeVersion};
///
/// let tflite_2_3: Resolver = Resolver::for_runtime(&RuntimeVersion::new(2, 3, 0));
/// let model = [
///     (OperatorKind::Builtin(BuiltinOperator::CONV_2D), OpVersion::new(3)),
///     (OperatorKind::Builtin(BuiltinOperator::CONV_2D), OpVersion::new(5)), // needs 2.4.0
///     (OperatorKind::Custom("MyOp"), OpVersion::new(1)),
/// ];
/// let err = tflite_2_3.check(&model).unwrap_err();
/// assert!(err.to_string().contains(
///     "Didn't find op for builtin opcode 'CONV_2D' version '5'. An older version of this \
///      builtin might be supported. Are you using an old TFLite binary with a newer model?"
/// ));
/// assert!(err.to_string().contains("Encountered unresolved custom op: MyOp."));
/// ```
#[derive(Clone, Debug)]
pub struct Resolver<K = ()> {
    builtins: HashMap<BuiltinOperator, Vec<Registration<K>>>,
    customs: HashMap<String, Vec<Registration<K>>>,
    max_builtin_code: BuiltinOperator,
}

impl<K> Default for Resolver<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> Resolver<K> {
    /// An empty resolver that knows every builtin code of the current schema (codes above
    /// [`BuiltinOperator::MAX_KNOWN`] are out of range).
    pub fn new() -> Self {
        Self {
            builtins: HashMap::new(),
            customs: HashMap::new(),
            max_builtin_code: BuiltinOperator::MAX_KNOWN,
        }
    }

    /// The largest builtin code this runtime's schema knows; larger (and negative) codes are
    /// reported as [`ResolveError::BuiltinCodeOutOfRange`], as TFLite compares against its
    /// `BuiltinOperator_MAX`.
    pub fn max_builtin_code(&self) -> BuiltinOperator {
        self.max_builtin_code
    }

    /// Sets the largest builtin code this runtime's schema knows (see
    /// [`Resolver::max_builtin_code`]).
    pub fn set_max_builtin_code(&mut self, code: BuiltinOperator) -> &mut Self {
        self.max_builtin_code = code;
        self
    }

    /// Registers `kernel` for builtin `op`, versions `min..=max`.
    ///
    /// Fails with [`Error::InvalidVersionRange`] when `min > max`.
    pub fn add_builtin(
        &mut self,
        op: BuiltinOperator,
        min: OpVersion,
        max: OpVersion,
        kernel: K,
    ) -> Result<&mut Self, Error> {
        if min > max {
            return Err(Error::InvalidVersionRange {
                op: op.to_string(),
                min,
                max,
            });
        }
        self.builtins
            .entry(op)
            .or_default()
            .push(Registration { min, max, kernel });
        Ok(self)
    }

    /// Registers `kernel` for the custom operator `name`, versions `min..=max`.
    ///
    /// Fails with [`Error::InvalidVersionRange`] when `min > max`.
    pub fn add_custom(
        &mut self,
        name: &str,
        min: OpVersion,
        max: OpVersion,
        kernel: K,
    ) -> Result<&mut Self, Error> {
        if min > max {
            return Err(Error::InvalidVersionRange {
                op: name.to_owned(),
                min,
                max,
            });
        }
        self.customs
            .entry(name.to_owned())
            .or_default()
            .push(Registration { min, max, kernel });
        Ok(self)
    }

    /// The kernel registered for builtin `op` at exactly `version`, if any.
    pub fn find_builtin(&self, op: BuiltinOperator, version: OpVersion) -> Option<&K> {
        find(self.builtins.get(&op)?, version)
    }

    /// The kernel registered for custom operator `name` at exactly `version`, if any.
    pub fn find_custom(&self, name: &str, version: OpVersion) -> Option<&K> {
        find(self.customs.get(name)?, version)
    }

    /// Looks up one operator code the way TFLite does when it loads a model: out-of-range
    /// builtin codes first, then the builtin or custom registration for the exact version.
    ///
    /// [`OperatorKind::Builtin`] with [`BuiltinOperator::CUSTOM`] is an operator code that says
    /// `CUSTOM` but has no `custom_code`: [`ResolveError::MissingCustomCode`].
    pub fn resolve(&self, kind: OperatorKind<'_>, version: OpVersion) -> Result<&K, ResolveError> {
        match kind {
            OperatorKind::Builtin(op) => {
                if op.code() < 0 || op > self.max_builtin_code {
                    Err(ResolveError::BuiltinCodeOutOfRange { code: op.code() })
                } else if op == BuiltinOperator::CUSTOM {
                    Err(ResolveError::MissingCustomCode)
                } else {
                    self.find_builtin(op, version)
                        .ok_or(ResolveError::BuiltinOpNotFound { op, version })
                }
            }
            OperatorKind::Custom(name) => self.find_custom(name, version).ok_or_else(|| {
                // `IsFlexOp`: TFLite words a missing `Flex` op apart.
                if name.starts_with("Flex") {
                    ResolveError::FlexOpNotApplied {
                        name: name.to_owned(),
                        version,
                    }
                } else {
                    ResolveError::UnresolvedCustomOp {
                        name: name.to_owned(),
                        version,
                    }
                }
            }),
        }
    }

    /// Every operator code of `codes` this resolver cannot run, with its position in `codes`
    /// and the error TFLite would report for it.
    pub fn unresolved<'a>(
        &'a self,
        codes: &'a [(OperatorKind<'a>, OpVersion)],
    ) -> impl Iterator<Item = (usize, ResolveError)> + 'a {
        codes
            .iter()
            .enumerate()
            .filter_map(|(i, &(kind, version))| self.resolve(kind, version).err().map(|e| (i, e)))
    }

    /// Checks a whole model's operator codes: `Ok` when every one resolves, otherwise one
    /// [`Error::UnresolvedOperators`] listing every failure in order (not only the first).
    pub fn check(&self, codes: &[(OperatorKind<'_>, OpVersion)]) -> Result<(), Error> {
        let failures: Vec<ResolveError> = codes
            .iter()
            .filter_map(|&(kind, version)| self.resolve(kind, version).err())
            .collect();
        if failures.is_empty() {
            Ok(())
        } else {
            Err(Error::UnresolvedOperators { failures })
        }
    }

    /// The highest version of builtin `op` with a registered kernel, if any.
    pub fn max_builtin_version(&self, op: BuiltinOperator) -> Option<OpVersion> {
        self.builtins.get(&op)?.iter().map(|r| r.max).max()
    }
}

impl Resolver<()> {
    /// The resolver TFLite `runtime` amounts to, derived from TF's minimum-runtime table: every
    /// builtin `(operator, version)` whose minimum runtime is not newer than `runtime`, and no
    /// custom operators (add them with [`Resolver::add_custom`]).
    ///
    /// Its [`Resolver::max_builtin_code`] is the largest builtin code with a kernel in that
    /// release, which stands in for that release's `BuiltinOperator_MAX`: a code added after it
    /// is reported as out of range, as an old runtime does. (A release's schema may already
    /// have defined a few codes that no kernel backed yet, such as the early `STABLEHLO_*` ones;
    /// those report "out of range" here where that release said "Didn't find op".)
    pub fn for_runtime(runtime: &RuntimeVersion) -> Self {
        let mut resolver = Self::new();
        let mut max_code = BuiltinOperator::CUSTOM;
        for (op, version) in supported_by(runtime) {
            max_code = max_code.max(op);
            resolver.builtins.entry(op).or_default().push(Registration {
                min: version,
                max: version,
                kernel: (),
            });
        }
        resolver.max_builtin_code = max_code;
        resolver
    }
}

/// The latest registration covering `version` wins, like a map insert that overwrites.
fn find<K>(registrations: &[Registration<K>], version: OpVersion) -> Option<&K> {
    registrations
        .iter()
        .rev()
        .find(|r| r.covers(version))
        .map(|r| &r.kernel)
}
