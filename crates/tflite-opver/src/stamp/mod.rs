//! Re-stamping a model: operator code versions and the `min_runtime_version` metadata.

pub(crate) mod front;
pub(crate) mod warnings;

use crate::error::{DecodeError, Error, StampError};
use crate::model::Model;
use crate::model::wire::{
    BUFFER_DATA, METADATA_NAME, MODEL_BUFFERS, MODEL_FIELDS, MODEL_METADATA, MODEL_OPERATOR_CODES,
    MODEL_VERSION, OPERATOR_CODE_BUILTIN, OPERATOR_CODE_CUSTOM, OPERATOR_CODE_DEPRECATED,
    OPERATOR_CODE_FIELDS, OPERATOR_CODE_VERSION, RawTable, Span, VectorField, deref, u32_at,
};
use crate::operator::code::OpVersion;
use crate::rules::user::{Judge, TfRules, VersionRules};
use crate::runtimes::min_runtime::RuntimeVersion;
use crate::stamp::front::{Front, Target, Value, retarget};

/// How [`stamp`] chooses each builtin operator code's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum StampMode {
    /// TF's `UpdateOpVersion`: raise to what the operators need, never lower.
    #[default]
    Raise,
    /// Set exactly what the operators need, lowering versions stamped too high.
    Minimize,
}

/// One operator code whose version [`stamp`] changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionChange {
    /// Index in the model's `operator_codes`.
    pub code: usize,
    /// The stored version before.
    pub from: OpVersion,
    /// The version written.
    pub to: OpVersion,
}

/// What [`stamp`] produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamped {
    /// The re-stamped model.
    pub bytes: Vec<u8>,
    /// Operator codes whose version changed, in the model's order.
    pub changes: Vec<VersionChange>,
    /// The stored minimum runtime before (`None` without the metadata).
    pub min_runtime_before: Option<String>,
    /// The minimum runtime written (`""` when no operator has a table entry, as in TF).
    pub min_runtime_after: String,
    /// Whether fields had to be added (new tables in front of the original bytes), rather than
    /// only patched in place.
    pub extended: bool,
}

/// The versions `mode` gives each operator code of `model`.
pub fn stamped_versions(model: &Model<'_>, mode: StampMode) -> Vec<OpVersion> {
    stamped_versions_by(model, mode, &TfRules)
}

/// [`stamped_versions`] with user-defined rules: custom codes with a rule are stamped like
/// builtin ones.
pub fn stamped_versions_with(
    model: &Model<'_>,
    mode: StampMode,
    rules: &VersionRules,
) -> Vec<OpVersion> {
    stamped_versions_by(model, mode, rules)
}

fn stamped_versions_by<J: Judge>(model: &Model<'_>, mode: StampMode, judge: &J) -> Vec<OpVersion> {
    let required = model.required_versions_by(judge);
    model
        .operator_codes()
        .iter()
        .zip(required)
        .map(|(code, required)| match mode {
            _ if code.is_custom() && !judge.judges_custom(code.custom_code) => code.version,
            StampMode::Raise => code.version.max(required),
            StampMode::Minimize => required,
        })
        .collect()
}

/// Re-stamps a model: operator code versions and the `min_runtime_version` metadata.
///
/// [`StampMode::Raise`] is TF's `UpdateOpVersion` (`tensorflow/compiler/mlir/lite/tools/
/// versioning/op_version.cc`): each builtin operator code is raised to the version its
/// operators need, never lowered. [`StampMode::Minimize`] sets each builtin code to exactly what
/// its operators need, so that a model stamped too high can run on an older runtime. Either
/// way one code serves many operators, so its version is the maximum over them; custom codes
/// are left alone. Then, like TF's `UpdateMinimumRuntimeVersionForModel`
/// (`runtime_version.cc`), the model's minimum runtime (the largest over its operators, each
/// at its code's new version) is written into the 16-byte, NUL-padded buffer of the
/// `min_runtime_version` metadata.
///
/// Unchanged bytes stay unchanged. A version field present in the buffer is patched in place,
/// as is a metadata buffer large enough for the new text; a model that needs nothing new comes
/// back byte for byte. Only when a field must be *added* (a code whose `version` field was
/// omitted because it held the default 1, or a model without the metadata) is the model
/// extended: new tables are written in front of the original bytes, which follow unchanged
/// (FlatBuffers offsets are relative, so the old data stays valid wherever it sits), and a
/// new root table points at both.
///
/// Here [`StampMode::Raise`] goes further than TF's `UpdateOpVersion`, which only patches in
/// place: on a code whose `version` field is absent its `mutate_version` fails, TF logs
/// "Can't set operator RESIZE_BILINEAR to version 3" and the code stays at 1
/// (`tensorflow/lite/tools/versioning/op_version.cc`). Real models ship like this: the two
/// selfie segmentation models of the `mediapipe` 0.10.14 wheel store their half-pixel
/// RESIZE_BILINEAR (version 3 by TF's rules) without the field.
pub fn stamp(bytes: &[u8], mode: StampMode) -> Result<Stamped, Error> {
    stamp_by(bytes, mode, &TfRules)
}

/// [`stamp`] with user-defined rules ([`VersionRules`]): a custom code with a rule is raised
/// (or minimized) to what its operators need, like a builtin code; a builtin with a rule
/// follows that rule instead of TF's.
pub fn stamp_with(bytes: &[u8], mode: StampMode, rules: &VersionRules) -> Result<Stamped, Error> {
    stamp_by(bytes, mode, rules)
}

fn stamp_by<J: Judge>(bytes: &[u8], mode: StampMode, judge: &J) -> Result<Stamped, Error> {
    let model = Model::from_bytes(bytes)?;
    let versions = stamped_versions_by(&model, mode, judge);
    let changes: Vec<VersionChange> = model
        .operator_codes()
        .iter()
        .zip(&versions)
        .enumerate()
        .filter(|(_, (code, new))| code.version != **new)
        .map(|(i, (code, new))| VersionChange {
            code: i,
            from: code.version,
            to: *new,
        })
        .collect();
    let runtime = model.min_runtime_version_with(&versions);
    let runtime_text = runtime.map(|v| v.to_string()).unwrap_or_default();
    let runtime_bytes = match runtime {
        Some(v) => v.to_metadata_bytes()?,
        None => [0; RuntimeVersion::METADATA_BUFFER_LEN],
    };
    let min_runtime_before = model.stored_min_runtime_version().map(str::to_owned);

    let mut out = bytes.to_vec();
    let layout = Layout::read(bytes)?;
    let mut plan = Extension::default();

    for change in &changes {
        let table = layout.operator_code(bytes, change.code)?;
        match table.field(OPERATOR_CODE_VERSION) {
            Some(at) => write_i32(&mut out, at, change.to.get())?,
            // Absent means 1; nothing to write when 1 is what we want.
            None if change.to == OpVersion::ONE => {}
            None => plan.codes.push((change.code, change.to)),
        }
    }

    // The metadata: patch the existing buffer when the text (and a NUL) fits.
    let needed = runtime_text.len() + 1;
    let metadata = model.runtime_metadata();
    let in_place = match metadata {
        Some(m) => layout
            .buffer_data(bytes, m.buffer)?
            .filter(|&(_, len)| len >= needed),
        None => None,
    };
    match (metadata, in_place) {
        (Some(_), Some((start, len))) => {
            // Like TF, write the 16 bytes of the version field: the text, NUL-padded.
            let len = len.min(RuntimeVersion::METADATA_BUFFER_LEN);
            let data = out
                .get_mut(start..start + len)
                .ok_or_else(|| missing("the min_runtime_version buffer"))?;
            data.fill(0);
            data[..runtime_text.len()].copy_from_slice(runtime_text.as_bytes());
        }
        // No metadata and nothing to say: like TF, write nothing.
        (None, _) if runtime.is_none() => {}
        _ => plan.runtime = Some(runtime_bytes),
    }

    let extended = !plan.is_empty();
    if extended {
        out = plan.apply(&out, &layout, bytes, &model)?;
    }
    verify(&model, &out, &versions, &runtime_text)?;
    Ok(Stamped {
        bytes: out,
        changes,
        min_runtime_before,
        min_runtime_after: runtime_text,
        extended,
    })
}

/// The stamped model must read exactly as the original except the stamped fields. A valid
/// model always does; a hostile one whose tables overlap could be damaged by a patch, and is
/// refused rather than returned broken.
fn verify(
    before: &Model<'_>,
    after: &[u8],
    versions: &[OpVersion],
    runtime_text: &str,
) -> Result<(), Error> {
    let damaged = || Error::from(StampError::TablesOverlap);
    let after = Model::from_bytes(after).map_err(|_| damaged())?;
    let same_codes = before.operator_codes().len() == after.operator_codes().len()
        && before
            .operator_codes()
            .iter()
            .zip(after.operator_codes())
            .zip(versions)
            .all(|((b, a), v)| {
                a.version == *v
                    && (
                        b.builtin,
                        b.builtin_code,
                        b.deprecated_builtin_code,
                        b.custom_code,
                    ) == (
                        a.builtin,
                        a.builtin_code,
                        a.deprecated_builtin_code,
                        a.custom_code,
                    )
            });
    let runtime_ok = match after.stored_min_runtime_version() {
        Some(text) => text == runtime_text,
        None => before.stored_min_runtime_version().is_none() && runtime_text.is_empty(),
    };
    let same_operators = before.same_graph(&after);
    if same_codes && runtime_ok && same_operators {
        Ok(())
    } else {
        Err(damaged())
    }
}

/// Tables and vectors to add in front of the original bytes.
#[derive(Default)]
struct Extension {
    /// Operator codes whose `version` field must be added, with the version.
    codes: Vec<(usize, OpVersion)>,
    /// A new `min_runtime_version` buffer (and metadata entry) to add.
    runtime: Option<[u8; RuntimeVersion::METADATA_BUFFER_LEN]>,
}

impl Extension {
    fn is_empty(&self) -> bool {
        self.codes.is_empty() && self.runtime.is_none()
    }

    /// The model with the new tables in front of `patched` (the original bytes with their
    /// in-place patches; same layout as `original`).
    fn apply(
        &self,
        patched: &[u8],
        layout: &Layout,
        original: &[u8],
        model: &Model<'_>,
    ) -> Result<Vec<u8>, Error> {
        let b = original;
        if model.has_external_data() {
            return Err(StampError::ExternalData.into());
        }
        if layout.root.has_fields_from(MODEL_FIELDS) {
            return Err(StampError::NewerModelFields.into());
        }
        let mut f = Front::default();
        f.buf.extend_from_slice(&[0; 4]);
        f.buf.extend_from_slice(&crate::model::FILE_IDENTIFIER);
        f.fixups.push((0, Target::New(0))); // the root; fixed below

        // The new metadata entry, when the min runtime needs a (new) buffer.
        let metadata_slot = match (self.runtime, model.runtime_metadata()) {
            (None, _) => None,
            // Replace the entry whose buffer is too small...
            (Some(_), Some(_)) => {
                let Span { len, first } = layout.metadata.ok_or_else(|| missing("metadata"))?;
                let mut found = None;
                for i in 0..len {
                    let table = RawTable::at_offset(b, first + 4 * i)
                        .ok_or_else(|| missing("a metadata entry"))?;
                    if let Some(at) = table.field(METADATA_NAME) {
                        let s = deref(b, at).ok_or_else(|| missing("a metadata name"))?;
                        let n = u32_at(b, s).ok_or_else(|| missing("a metadata name"))? as usize;
                        if b.get(s + 4..s + 4 + n) == Some(RuntimeVersion::METADATA_NAME.as_bytes())
                        {
                            found = Some(i);
                            break;
                        }
                    }
                }
                Some(found.ok_or_else(|| missing("the min_runtime_version metadata"))?)
            }
            // ... or append one.
            (Some(_), None) => Some(layout.metadata.map_or(0, |span| span.len)),
        };

        // Model table: every field of the original, some pointing at new vectors.
        let model_fields: Vec<(usize, Option<usize>)> = (0..MODEL_FIELDS)
            .map(|id| (id, layout.root.field(id)))
            .collect();
        let new_codes = !self.codes.is_empty();
        let new_runtime = self.runtime.is_some();
        // New vectors are written after the Model table (offsets point forward), so the
        // fields that point at them are retargeted once their positions are known.
        let mut fields = Vec::new();
        for (id, at) in model_fields {
            let replaced = (id == MODEL_OPERATOR_CODES && new_codes)
                || ((id == MODEL_BUFFERS || id == MODEL_METADATA) && new_runtime);
            if replaced {
                fields.push((id, Value::Offset(Target::New(0))));
            } else if let Some(at) = at {
                let value = if id == MODEL_VERSION {
                    Value::U32(u32_at(b, at).ok_or_else(|| missing("the schema version"))?)
                } else {
                    Value::Offset(Target::Old(
                        deref(b, at).ok_or_else(|| missing("a Model field"))?,
                    ))
                };
                fields.push((id, value));
            }
        }
        let fixups_before = f.fixups.len();
        let model_table = f.table(MODEL_FIELDS, &fields);
        f.fixups[0] = (0, Target::New(model_table));
        // The Model table's offset fixups, in field order.
        let model_fixups: Vec<usize> = (fixups_before..f.fixups.len()).collect();
        let field_fixup = |id: usize| -> Option<usize> {
            let offset_ids: Vec<usize> = fields
                .iter()
                .filter(|(_, v)| matches!(v, Value::Offset(_)))
                .map(|(i, _)| *i)
                .collect();
            offset_ids
                .iter()
                .position(|&i| i == id)
                .map(|k| model_fixups[k])
        };

        // operator_codes: old tables, except the codes that get a new table.
        let mut code_tables = Vec::new();
        if new_codes {
            let Span { len, first } = layout
                .operator_codes
                .ok_or_else(|| missing("operator codes"))?;
            let mut slots = Vec::with_capacity(len);
            for i in 0..len {
                let table = deref(b, first + 4 * i).ok_or_else(|| missing("an operator code"))?;
                slots.push(Target::Old(table));
            }
            let vec_at = f.offsets(&slots);
            if let Some(k) = field_fixup(MODEL_OPERATOR_CODES) {
                f.fixups[k].1 = Target::New(vec_at);
            }
            code_tables.push(vec_at);
        }
        let mut buffer_index = 0u32;
        let mut new_buffer_slot = None;
        let mut new_metadata_slot = None;
        if new_runtime {
            let mut slots = Vec::new();
            match layout.buffers {
                Some(Span { len, first }) => {
                    for i in 0..len {
                        let table = deref(b, first + 4 * i).ok_or_else(|| missing("a buffer"))?;
                        slots.push(Target::Old(table));
                    }
                }
                // No buffers at all: add the empty sentinel buffer 0 first.
                None => slots.push(Target::New(0)),
            }
            buffer_index = slots.len() as u32;
            slots.push(Target::New(0));
            let vec_at = f.offsets(&slots);
            if let Some(k) = field_fixup(MODEL_BUFFERS) {
                f.fixups[k].1 = Target::New(vec_at);
            }
            new_buffer_slot = Some((vec_at, slots.len()));

            let mut entries = Vec::new();
            if let Some(Span { len, first }) = layout.metadata {
                for i in 0..len {
                    let table =
                        deref(b, first + 4 * i).ok_or_else(|| missing("a metadata entry"))?;
                    entries.push(Target::Old(table));
                }
            }
            let slot = metadata_slot.unwrap_or(entries.len());
            if slot == entries.len() {
                entries.push(Target::New(0));
            }
            let vec_at = f.offsets(&entries);
            if let Some(k) = field_fixup(MODEL_METADATA) {
                f.fixups[k].1 = Target::New(vec_at);
            }
            new_metadata_slot = Some(vec_at + 4 + 4 * slot);
        }

        // New operator code tables, pointed at from their vector slots.
        if let Some(&vec_at) = code_tables.first() {
            for &(i, version) in &self.codes {
                let table = layout.operator_code(b, i)?;
                if table.has_fields_from(OPERATOR_CODE_FIELDS) {
                    return Err(StampError::NewerOperatorCodeFields { code: i }.into());
                }
                let code = model.operator_codes()[i];
                let mut fields = vec![
                    (
                        OPERATOR_CODE_DEPRECATED,
                        Value::I8(code.deprecated_builtin_code),
                    ),
                    (OPERATOR_CODE_VERSION, Value::I32(version.get())),
                    (OPERATOR_CODE_BUILTIN, Value::I32(code.builtin_code)),
                ];
                if let Some(at) = table.field(OPERATOR_CODE_CUSTOM) {
                    let name = deref(b, at).ok_or_else(|| missing("a custom code"))?;
                    fields.push((OPERATOR_CODE_CUSTOM, Value::Offset(Target::Old(name))));
                }
                let new_table = f.table(OPERATOR_CODE_FIELDS, &fields);
                let slot = vec_at + 4 + 4 * i;
                retarget(&mut f, slot, new_table);
            }
        }

        // The new buffer (and the sentinel when there were none) and metadata entry.
        if let (Some(data), Some((vec_at, len))) = (self.runtime, new_buffer_slot) {
            if layout.buffers.is_none() {
                let sentinel = f.table(0, &[]);
                retarget(&mut f, vec_at + 4, sentinel);
            }
            let pending_data = f.fixups.len();
            let buffer = f.table(2, &[(BUFFER_DATA, Value::Offset(Target::New(0)))]);
            retarget(&mut f, vec_at + 4 + 4 * (len - 1), buffer);
            let pending_name = f.fixups.len();
            let metadata = f.table(
                2,
                &[
                    (0, Value::Offset(Target::New(0))),
                    (1, Value::U32(buffer_index)),
                ],
            );
            if let Some(slot) = new_metadata_slot {
                retarget(&mut f, slot, metadata);
            }
            let name = f.string(RuntimeVersion::METADATA_NAME);
            f.fixups[pending_name].1 = Target::New(name);
            let bytes = f.bytes(&data);
            f.fixups[pending_data].1 = Target::New(bytes);
        }
        f.finish(patched)
    }
}

/// A field re-stamping reads or patches that is not where the validated model said.
fn missing(what: &'static str) -> Error {
    DecodeError::OutOfBounds { what }.into()
}

/// Writes an `int32` in place.
fn write_i32(b: &mut [u8], at: usize, value: i32) -> Result<(), Error> {
    b.get_mut(at..at + 4)
        .ok_or_else(|| missing("a version field"))?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// Where a validated model's root table and the vectors re-stamping changes are.
struct Layout<'b> {
    root: RawTable<'b>,
    operator_codes: Option<Span>,
    buffers: Option<Span>,
    metadata: Option<Span>,
}

impl<'b> Layout<'b> {
    fn read(b: &'b [u8]) -> Result<Self, Error> {
        let root = RawTable::root(b).ok_or_else(|| missing("the Model table"))?;
        let list = |id| match root.vector(b, id, 4) {
            Some(VectorField::At(span)) => Ok(Some(span)),
            Some(VectorField::Absent) => Ok(None),
            None => Err(missing("a vector of the Model table")),
        };
        Ok(Self {
            root,
            operator_codes: list(MODEL_OPERATOR_CODES)?,
            buffers: list(MODEL_BUFFERS)?,
            metadata: list(MODEL_METADATA)?,
        })
    }

    /// The table of operator code `i`.
    fn operator_code(&self, b: &'b [u8], i: usize) -> Result<RawTable<'b>, Error> {
        self.operator_codes
            .and_then(|span| span.element(i, 4))
            .and_then(|element| RawTable::at_offset(b, element))
            .ok_or_else(|| missing("an operator code"))
    }

    /// Where buffer `index`'s data is, `(start, length)`, when it has any.
    fn buffer_data(&self, b: &[u8], index: u32) -> Result<Option<(usize, usize)>, Error> {
        let Some(element) = self
            .buffers
            .and_then(|span| span.element(index as usize, 4))
        else {
            return Ok(None);
        };
        let table = RawTable::at_offset(b, element).ok_or_else(|| missing("a buffer"))?;
        match table.vector(b, BUFFER_DATA, 1) {
            Some(VectorField::At(span)) => Ok(Some((span.first, span.len))),
            Some(VectorField::Absent) => Ok(None),
            None => Err(missing("a buffer's data")),
        }
    }
}
