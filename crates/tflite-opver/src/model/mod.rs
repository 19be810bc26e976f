//! The public model: a `.tflite` file validated once (by [`read`]), then
//! judged without further errors.

pub(crate) mod builder;
pub(crate) mod classes;
pub(crate) mod forms;
pub(crate) mod load_facts;
pub(crate) mod pool;
pub(crate) mod read;
pub(crate) mod subgraph;
pub(crate) mod wire;

use crate::error::Error;
use crate::model::load_facts::LoadFacts;
use crate::model::subgraph::{OperatorFacts, Subgraph};
use crate::operator::code::{BuiltinOperator, OpVersion, OperatorKind};
use crate::operator::signature::{OpSignature, SignatureFacts};
use crate::operator::tensor::{ElementType, TensorSpec};
use crate::params::Params;
use crate::rules::tensorflow::{VersionReason, version_reason};
use crate::rules::user::{Judge, TfRules, VersionRules};
use crate::runtimes::min_runtime::{self, RuntimeVersion};

/// The FlatBuffers file identifier of every TFLite model (`file_identifier "TFL3"`).
pub const FILE_IDENTIFIER: [u8; 4] = *b"TFL3";

/// The largest FlatBuffer there is: 2^31 - 1 bytes (`FLATBUFFERS_MAX_BUFFER_SIZE` in
/// FlatBuffers' `base.h`; offsets are 32-bit and a buffer must stay below 2 GiB). The
/// `tflite-opver` tool refuses a longer file before reading it.
pub const MAX_MODEL_LEN: usize = 0x7fff_ffff;

/// One entry of the model's `operator_codes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorCode<'a> {
    /// The builtin operator: max(`builtin_code`, `deprecated_builtin_code`).
    pub builtin: BuiltinOperator,
    /// The raw `deprecated_builtin_code` byte.
    pub deprecated_builtin_code: i8,
    /// The raw `builtin_code` field.
    pub builtin_code: i32,
    /// The custom op's name, for custom operators.
    pub custom_code: Option<&'a str>,
    /// The stored `version` (1 when the field is absent).
    pub version: OpVersion,
}

impl<'a> OperatorCode<'a> {
    /// What the code names: a builtin, or a custom op by name.
    pub fn kind(&self) -> OperatorKind<'a> {
        match (self.builtin, self.custom_code) {
            (BuiltinOperator::CUSTOM, Some(name)) => OperatorKind::Custom(name),
            (op, _) => OperatorKind::Builtin(op),
        }
    }

    /// Whether this is a custom operator (builtin code `CUSTOM`).
    pub fn is_custom(&self) -> bool {
        self.builtin == BuiltinOperator::CUSTOM
    }
}

/// Which operator code forced a model's minimum runtime
/// ([`Model::required_min_runtime_cause`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MinRuntimeCause {
    /// The model's minimum runtime.
    pub min_runtime: RuntimeVersion,
    /// The index of the operator code that needs it (the first one, if several do).
    pub code: usize,
    /// That code's operator.
    pub op: BuiltinOperator,
    /// That code's version, whose kernel first shipped in `min_runtime`.
    pub version: OpVersion,
}

/// Where an operator sits in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OperatorLocation {
    /// Subgraph index.
    pub subgraph: usize,
    /// Operator index within the subgraph.
    pub operator: usize,
}

/// The `min_runtime_version` metadata entry, when the model has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuntimeMetadata<'a> {
    /// Index of the metadata's buffer in `Model.buffers`.
    pub buffer: u32,
    /// The buffer's bytes (`None` when the index is out of range or the buffer has no data).
    pub data: Option<&'a [u8]>,
}

impl<'a> RuntimeMetadata<'a> {
    /// The stored text, up to the first NUL (TF's reading); `None` when absent or not UTF-8.
    pub fn text(&self) -> Option<&'a str> {
        self.data.and_then(min_runtime::metadata_text)
    }
}

/// A validated TFLite model, borrowing its bytes.
///
/// [`Model::from_bytes`] checks the file identifier (`TFL3`), reads the FlatBuffer with planus
/// (which bounds-checks every offset and vector length against the buffer, so hostile bytes
/// give errors, not panics), and validates what the version rules rely on: every operator's
/// `opcode_index` names an operator code, every tensor index names a tensor of its subgraph
/// (or is -1, an absent optional input). It digests each tensor and operator into plain
/// values on the way, so building an [`OpSignature`] afterwards cannot fail.
///
/// ```no_run
/// # fn main() -> Result<(), tflite_opver::Error> {
/// let bytes = std::fs::read("model.tflite").expect("readable");
/// let model = tflite_opver::Model::from_bytes(&bytes)?;
/// for (code, required) in model.operator_codes().iter().zip(model.required_versions()) {
///     println!("{}: stored v{}, needs v{required}", code.kind(), code.version);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Model<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) codes: Vec<OperatorCode<'a>>,
    pub(crate) subgraphs: Vec<Subgraph>,
    pub(crate) runtime_metadata: Option<RuntimeMetadata<'a>>,
    pub(crate) has_metadata: bool,
    pub(crate) schema_version: u32,
    /// What TFLite's interpreter builder checks besides the operator codes.
    pub(crate) load: LoadFacts,
    /// The FlatBuffer tables TFLite's verifier counts, counted while reading.
    pub(crate) tables: usize,
}

impl<'a> Model<'a> {
    /// Reads and validates a model. Every structural problem is an [`Error`]; no input panics.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::read(bytes, true)
    }

    /// The FlatBuffer tables TFLite's verifier would count ([`loader_limits`](crate::loader_limits)).
    pub(crate) fn flatbuffer_tables(&self) -> usize {
        self.tables
    }

    /// The model's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The schema version the model declares (`Model.version`, 3 for current models).
    pub fn schema_version(&self) -> u32 {
        self.schema_version
    }

    /// Whether the model keeps buffers or custom options outside the FlatBuffer, at absolute
    /// file offsets (models over 2 GB).
    pub fn has_external_data(&self) -> bool {
        self.load.external_from.is_some()
    }

    /// The length of the FlatBuffer itself: the bytes before the first data kept outside it,
    /// or the whole model when there is none.
    pub fn flatbuffer_len(&self) -> usize {
        self.load.external_from.map_or(self.bytes.len(), |from| {
            usize::try_from(from)
                .unwrap_or(usize::MAX)
                .min(self.bytes.len())
        })
    }

    /// What TFLite's interpreter builder checks besides the operator codes.
    pub(crate) fn load_facts(&self) -> &LoadFacts {
        &self.load
    }

    /// The operator codes, in the model's order.
    pub fn operator_codes(&self) -> &[OperatorCode<'a>] {
        &self.codes
    }

    /// Number of subgraphs.
    pub fn subgraph_count(&self) -> usize {
        self.subgraphs.len()
    }

    /// Number of operators in all subgraphs.
    pub fn operator_count(&self) -> usize {
        self.subgraphs.iter().map(|s| s.operators.len()).sum()
    }

    /// Every operator's location, subgraph by subgraph, in execution order.
    pub fn operators(&self) -> impl Iterator<Item = OperatorLocation> + '_ {
        self.subgraphs.iter().enumerate().flat_map(|(subgraph, s)| {
            (0..s.operators.len()).map(move |operator| OperatorLocation { subgraph, operator })
        })
    }

    /// The operator code index of the operator at `at`.
    pub fn opcode_index(&self, at: OperatorLocation) -> Result<usize, Error> {
        let operator = self.operator(at)?;
        Ok(self.subgraphs[at.subgraph].opcode_index(operator))
    }

    /// The `min_runtime_version` metadata entry, if the model has one.
    pub fn runtime_metadata(&self) -> Option<RuntimeMetadata<'a>> {
        self.runtime_metadata
    }

    /// Whether the model has a `metadata` vector at all (perhaps empty, perhaps without a
    /// `min_runtime_version` entry). TF's `UpdateMinimumRuntimeVersionForModel` crashes on a
    /// model without one; see [`StampWarning::NoMetadata`](crate::StampWarning::NoMetadata).
    pub fn has_metadata(&self) -> bool {
        self.has_metadata
    }

    /// The stored minimum runtime version text (up to the first NUL), if any.
    pub fn stored_min_runtime_version(&self) -> Option<&'a str> {
        self.runtime_metadata.and_then(|m| m.text())
    }

    fn operator(&self, at: OperatorLocation) -> Result<&OperatorFacts, Error> {
        self.subgraphs
            .get(at.subgraph)
            .and_then(|s| s.operators.get(at.operator))
            .ok_or(Error::NoSuchOperator {
                subgraph: at.subgraph,
                operator: at.operator,
            })
    }

    /// The signature of the operator at `at` (TF's `GetOpSignature`).
    pub fn signature(&self, at: OperatorLocation) -> Result<OpSignature, Error> {
        let operator = self.operator(at)?;
        let mut sig = OpSignature::new(
            BuiltinOperator::CUSTOM,
            Vec::new(),
            Vec::new(),
            Params::None,
        );
        self.fill_signature(
            &self.subgraphs[at.subgraph],
            operator,
            &mut sig,
            &mut Vec::new(),
        );
        Ok(sig)
    }

    /// One signature per operator form of each subgraph (the operators that read alike to TF's
    /// rules: same code, tensors and options), with its first operator and how many operators
    /// share it.
    pub(crate) fn form_signatures(&self) -> Vec<(OperatorLocation, usize, OpSignature)> {
        let mut out = Vec::new();
        for (s, subgraph) in self.subgraphs.iter().enumerate() {
            let mut nodes = vec![0usize; subgraph.forms.len()];
            for operator in &subgraph.operators {
                if let Some(n) = nodes.get_mut(operator.form as usize) {
                    *n += 1;
                }
            }
            for (form, count) in subgraph.forms.iter().zip(nodes) {
                let Some(operator) = subgraph.operators.get(form.first as usize) else {
                    continue;
                };
                let mut sig = OpSignature::new(
                    BuiltinOperator::CUSTOM,
                    Vec::new(),
                    Vec::new(),
                    Params::None,
                );
                self.fill_signature(subgraph, operator, &mut sig, &mut Vec::new());
                let at = OperatorLocation {
                    subgraph: s,
                    operator: form.first as usize,
                };
                out.push((at, count, sig));
            }
        }
        out
    }

    /// Rewrites `sig` as the signature of `operator`, reusing its allocations (and those in
    /// `spare`).
    fn fill_signature(
        &self,
        subgraph: &Subgraph,
        operator: &OperatorFacts,
        sig: &mut OpSignature,
        spare: &mut Vec<TensorSpec>,
    ) {
        // The opcode index was validated when the model was read.
        let code = self.codes[subgraph.opcode_index(operator)];
        sig.op = code.builtin;
        if code.is_custom() {
            sig.custom_name = code.custom_code.map(str::to_owned);
        } else if sig.custom_name.is_some() {
            sig.custom_name = None;
        }
        fill_specs(&mut sig.inputs, spare, subgraph.inputs(operator), subgraph);
        fill_specs(
            &mut sig.outputs,
            spare,
            subgraph.outputs(operator),
            subgraph,
        );
        sig.params = subgraph.params(operator);
        sig.options_present = subgraph.options_present(operator);
        sig.facts = SignatureFacts::derive(sig.op, &sig.inputs, &sig.outputs);
    }

    /// Whether every subgraph's tensors and operators read the same in `other` (operator
    /// codes and metadata aside). Floats compare by value, and NaN equals NaN here.
    pub(crate) fn same_graph(&self, other: &Model<'_>) -> bool {
        self.subgraphs.len() == other.subgraphs.len()
            && self
                .subgraphs
                .iter()
                .zip(&other.subgraphs)
                .all(|(a, b)| a.reads_the_same(b))
    }

    /// Every operator's own required version (custom operators: their code's stored version),
    /// in [`Model::operators`] order.
    pub fn operator_versions(&self) -> Vec<(OperatorLocation, OpVersion)> {
        let mut out = Vec::with_capacity(self.operator_count());
        self.for_each_version(&TfRules, true, |at, _, version| out.push((at, version)));
        out
    }

    /// Each operator's version by `judge`, with its location and opcode index. Monomorphized:
    /// TF's rules alone ([`TfRules`]) cost no lookups. TF's rules see only what an operator's
    /// form holds ([`forms`]), so they judge one operator of each form and give
    /// its version to the others; without `every` operator, only that one is visited. User
    /// rules might see more (the tensor indices), so they judge every operator.
    fn for_each_version<J: Judge>(
        &self,
        judge: &J,
        every: bool,
        mut f: impl FnMut(OperatorLocation, usize, OpVersion),
    ) {
        let mut sig = OpSignature::new(
            BuiltinOperator::CUSTOM,
            Vec::new(),
            Vec::new(),
            Params::None,
        );
        let mut spare = Vec::new();
        for (s, subgraph) in self.subgraphs.iter().enumerate() {
            let at = |operator| OperatorLocation {
                subgraph: s,
                operator,
            };
            if !J::SEES_ONLY_TENSOR_FACTS {
                for (o, operator) in subgraph.operators.iter().enumerate() {
                    let version = self.version_by(judge, subgraph, operator, &mut sig, &mut spare);
                    f(at(o), subgraph.opcode_index(operator), version);
                }
                continue;
            }
            // Each form's first operator, and its version.
            let judged: Vec<(usize, &OperatorFacts, OpVersion)> = subgraph
                .forms
                .iter()
                .filter_map(|form| {
                    let o = form.first as usize;
                    let operator = subgraph.operators.get(o)?;
                    let version = self.version_by(judge, subgraph, operator, &mut sig, &mut spare);
                    Some((o, operator, version))
                })
                .collect();
            if every {
                for (o, operator) in subgraph.operators.iter().enumerate() {
                    if let Some(&(_, _, version)) = judged.get(operator.form as usize) {
                        f(at(o), subgraph.opcode_index(operator), version);
                    }
                }
            } else {
                for (o, operator, version) in judged {
                    f(at(o), subgraph.opcode_index(operator), version);
                }
            }
        }
    }

    /// The version of `operator` (of `subgraph`) by `judge`: a custom operator no rule judges
    /// keeps its code's stored version.
    fn version_by<J: Judge>(
        &self,
        judge: &J,
        subgraph: &Subgraph,
        operator: &OperatorFacts,
        sig: &mut OpSignature,
        spare: &mut Vec<TensorSpec>,
    ) -> OpVersion {
        // The opcode index was validated when the model was read.
        let code = &self.codes[subgraph.opcode_index(operator)];
        if code.is_custom() && !judge.judges_custom(code.custom_code) {
            code.version
        } else {
            self.fill_signature(subgraph, operator, sig, spare);
            judge.version(sig)
        }
    }

    /// Per operator code, whether some operator uses it.
    fn used_codes(&self) -> Vec<bool> {
        let mut used = vec![false; self.codes.len()];
        for subgraph in &self.subgraphs {
            for form in &subgraph.forms {
                used[form.opcode_index as usize] = true;
            }
        }
        used
    }

    /// The version each operator code needs: the maximum over the operators that use it
    /// (one code serves many operators), at least 1. Custom codes keep their stored version:
    /// no rule judges them. A builtin code no operator uses needs version 1.
    pub fn required_versions(&self) -> Vec<OpVersion> {
        self.required_versions_by(&TfRules)
    }

    /// [`Model::required_versions`] with user-defined rules: a custom code with a rule is
    /// judged like a builtin one (at least 1), a builtin with a rule by that rule instead of
    /// TF's.
    pub fn required_versions_with(&self, rules: &VersionRules) -> Vec<OpVersion> {
        self.required_versions_by(rules)
    }

    pub(crate) fn required_versions_by<J: Judge>(&self, judge: &J) -> Vec<OpVersion> {
        let mut required: Vec<OpVersion> = self
            .codes
            .iter()
            .map(|c| {
                if c.is_custom() && !judge.judges_custom(c.custom_code) {
                    c.version
                } else {
                    OpVersion::ONE
                }
            })
            .collect();
        // The operators of one form have one version: with TF's rules, one operator of each
        // form is visited.
        self.for_each_version(judge, false, |_, code, version| {
            if let Some(slot) = required.get_mut(code)
                && version > *slot
            {
                *slot = version;
            }
        });
        required
    }

    /// The minimum runtime for the model if its operator codes had `versions` (one per code):
    /// TF's `UpdateMinimumRuntimeVersionForModel`, the largest minimum runtime over the
    /// operators, each at its code's version. `None` when no operator has a table entry (TF
    /// then writes an empty string).
    pub fn min_runtime_version_with(&self, versions: &[OpVersion]) -> Option<RuntimeVersion> {
        let used = self.used_codes();
        min_runtime::min_runtime_version_for_model(
            self.codes
                .iter()
                .zip(versions)
                .zip(&used)
                .filter(|(_, used)| **used)
                .map(|((code, version), _)| (code.builtin, *version)),
        )
    }

    /// The minimum runtime the model needs at its required versions
    /// ([`Model::required_versions`]).
    pub fn required_min_runtime_version(&self) -> Option<RuntimeVersion> {
        self.min_runtime_version_with(&self.required_versions())
    }

    /// [`Model::min_runtime_version_with`] and the operator code that forced it: the first
    /// used code, in `operator_codes` order, whose `(op, version)` has the largest minimum
    /// runtime.
    pub fn min_runtime_cause_with(&self, versions: &[OpVersion]) -> Option<MinRuntimeCause> {
        let used = self.used_codes();
        let mut cause: Option<MinRuntimeCause> = None;
        for (code, ((c, &version), _)) in self
            .codes
            .iter()
            .zip(versions)
            .zip(&used)
            .enumerate()
            .filter(|(_, (_, used))| **used)
        {
            let Some(min_runtime) = min_runtime::min_runtime_version_for_op(c.builtin, version)
            else {
                continue;
            };
            if cause
                .as_ref()
                .is_none_or(|found| min_runtime > found.min_runtime)
            {
                cause = Some(MinRuntimeCause {
                    min_runtime,
                    code,
                    op: c.builtin,
                    version,
                });
            }
        }
        cause
    }

    /// [`Model::required_min_runtime_version`] and the operator code that forced it.
    pub fn required_min_runtime_cause(&self) -> Option<MinRuntimeCause> {
        self.min_runtime_cause_with(&self.required_versions())
    }

    /// The version the operator at `at` needs, and the rule of TF's op_version.cc that set it
    /// ([`version_reason`]). A custom operator keeps its code's stored
    /// version: no rule judges it.
    pub fn version_reason(&self, at: OperatorLocation) -> Result<VersionReason, Error> {
        let index = self.opcode_index(at)?;
        let code = &self.codes[index];
        if code.is_custom() {
            return Ok(VersionReason::new(code.version, CUSTOM_REASON));
        }
        Ok(version_reason(&self.signature(at)?))
    }

    /// Why each operator code needs its [`Model::required_versions`] entry: the reason of the
    /// first operator that needs the code's version (reasons are computed for that operator
    /// only, after one pass as fast as [`Model::required_versions`]).
    ///
    /// Custom codes keep their stored version; a builtin code no operator uses needs
    /// version 1.
    pub fn required_version_reasons(&self) -> Vec<VersionReason> {
        self.required_version_reasons_by(&TfRules)
    }

    /// [`Model::required_version_reasons`] with user-defined rules
    /// ([`Model::required_versions_with`]).
    pub fn required_version_reasons_with(&self, rules: &VersionRules) -> Vec<VersionReason> {
        self.required_version_reasons_by(rules)
    }

    fn required_version_reasons_by<J: Judge>(&self, judge: &J) -> Vec<VersionReason> {
        let mut needed: Vec<(OpVersion, Option<OperatorLocation>)> =
            self.codes.iter().map(|_| (OpVersion::ONE, None)).collect();
        self.for_each_version(judge, true, |at, code, version| {
            if let Some(slot) = needed.get_mut(code)
                && (slot.1.is_none() || version > slot.0)
            {
                *slot = (version, Some(at));
            }
        });
        self.codes
            .iter()
            .zip(needed)
            .map(|(code, (_, at))| {
                if code.is_custom() && !judge.judges_custom(code.custom_code) {
                    return VersionReason::new(code.version, CUSTOM_REASON);
                }
                match at.and_then(|at| self.signature(at).ok()) {
                    Some(sig) => {
                        let reason = judge.reason(&sig);
                        // An operator at version 0 or below still needs version 1 of its code.
                        if reason.version() < OpVersion::ONE {
                            VersionReason::new(OpVersion::ONE, "every code is at least version 1")
                        } else {
                            reason
                        }
                    }
                    None => VersionReason::new(OpVersion::ONE, "no operator uses this code"),
                }
            })
            .collect()
    }
}
/// The reason given for a custom operator's version.
const CUSTOM_REASON: &str = "custom op: its stored version is kept (no TF rule judges it)";

/// Refills `specs` from tensor indices, reusing each spec's `dims` allocation. Specs beyond
/// the new length go to `spare`, and come back from it, so a loop over many operators
/// allocates nothing once warm.
fn fill_specs(
    specs: &mut Vec<TensorSpec>,
    spare: &mut Vec<TensorSpec>,
    indices: &[i32],
    subgraph: &Subgraph,
) {
    while specs.len() > indices.len() {
        spare.extend(specs.pop());
    }
    while specs.len() < indices.len() {
        specs.push(spare.pop().unwrap_or_default());
    }
    for (spec, &index) in specs.iter_mut().zip(indices) {
        // Indices were validated: -1 or in range.
        match subgraph.tensor(index) {
            Some(t) => {
                spec.element_type = t.element_type;
                spec.dims.clear();
                spec.dims.extend_from_slice(t.dims.as_slice());
                spec.is_const = t.is_const;
                spec.is_shape_dynamic = t.is_shape_dynamic;
                spec.is_variable = t.is_variable;
                spec.quantization = t.quantization;
                spec.is_sparse = t.is_sparse;
                spec.tensor_index = u32::try_from(index).ok();
            }
            None => {
                spec.element_type = ElementType::NoType;
                spec.dims.clear();
                spec.is_const = false;
                spec.is_shape_dynamic = false;
                spec.is_variable = false;
                spec.quantization = None;
                spec.is_sparse = false;
                spec.tensor_index = None;
            }
        }
    }
}
