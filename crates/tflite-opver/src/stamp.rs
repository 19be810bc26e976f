//! Re-stamping a model: operator code versions and the `min_runtime_version` metadata.
//!
//! [`StampMode::Raise`] is TF's `UpdateOpVersion` (`tensorflow/compiler/mlir/lite/tools/
//! versioning/op_version.cc`): each builtin operator code is raised to the version its
//! operators need, never lowered. [`StampMode::Minimize`] sets each builtin code to exactly what
//! its operators need, so that a model stamped too high can run on an older runtime. Either
//! way one code serves many operators, so its version is the maximum over them; custom codes
//! are left alone. Then, like TF's `UpdateMinimumRuntimeVersionForModel`
//! (`runtime_version.cc`), the model's minimum runtime (the largest over its operators, each
//! at its code's new version) is written into the 16-byte, NUL-padded buffer of the
//! `min_runtime_version` metadata.
//!
//! Unchanged bytes stay unchanged. A version field present in the buffer is patched in place,
//! as is a metadata buffer large enough for the new text; a model that needs nothing new comes
//! back byte for byte. Only when a field must be *added* (a code whose `version` field was
//! omitted because it held the default 1, or a model without the metadata) is the model
//! extended: new tables are written in front of the original bytes, which follow unchanged
//! (FlatBuffers offsets are relative, so the old data stays valid wherever it sits), and a
//! new root table points at both.

use crate::error::{DecodeError, Error, StampError};
use crate::model::Model;
use crate::operator::OpVersion;
use crate::runtime::RuntimeVersion;

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
    let required = model.required_versions();
    model
        .operator_codes()
        .iter()
        .zip(required)
        .map(|(code, required)| match mode {
            _ if code.is_custom() => code.version,
            StampMode::Raise => code.version.max(required),
            StampMode::Minimize => required,
        })
        .collect()
}

/// Re-stamps a model (see the module documentation).
pub fn stamp(bytes: &[u8], mode: StampMode) -> Result<Stamped, Error> {
    let model = Model::from_bytes(bytes)?;
    let versions = stamped_versions(&model, mode);
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
        match field(bytes, table, OPERATOR_CODE_VERSION)? {
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
                .ok_or_else(|| layout_error("the min_runtime_version buffer"))?;
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

// ---------------------------------------------------------------------------------------------
// A minimal FlatBuffers layout reader: where fields sit, for in-place patches. The model has
// already been validated by planus; every access is still bounds-checked.

/// Field ids (declaration order) in TF's schema.
const MODEL_VERSION: usize = 0;
const MODEL_OPERATOR_CODES: usize = 1;
const MODEL_BUFFERS: usize = 4;
const MODEL_METADATA: usize = 6;
const MODEL_FIELDS: usize = 8;
const OPERATOR_CODE_DEPRECATED: usize = 0;
const OPERATOR_CODE_CUSTOM: usize = 1;
const OPERATOR_CODE_VERSION: usize = 2;
const OPERATOR_CODE_BUILTIN: usize = 3;
const OPERATOR_CODE_FIELDS: usize = 4;
const BUFFER_DATA: usize = 0;

fn layout_error(what: &'static str) -> Error {
    DecodeError::OutOfBounds { what }.into()
}

fn read_u32(b: &[u8], at: usize) -> Result<u32, Error> {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| layout_error("a 32-bit value"))
}

fn read_u16(b: &[u8], at: usize) -> Result<u16, Error> {
    b.get(at..at + 2)
        .and_then(|s| s.try_into().ok())
        .map(u16::from_le_bytes)
        .ok_or_else(|| layout_error("a vtable entry"))
}

fn write_i32(b: &mut [u8], at: usize, value: i32) -> Result<(), Error> {
    b.get_mut(at..at + 4)
        .ok_or_else(|| layout_error("a version field"))?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// The position an offset field at `at` points to.
fn deref(b: &[u8], at: usize) -> Result<usize, Error> {
    let offset = read_u32(b, at)? as usize;
    at.checked_add(offset)
        .filter(|&t| t < b.len())
        .ok_or_else(|| layout_error("an offset target"))
}

/// A table's vtable: (position, number of field slots).
fn vtable(b: &[u8], table: usize) -> Result<(usize, usize), Error> {
    let soffset = read_u32(b, table)? as i32;
    let vt = (table as i64) - i64::from(soffset);
    let vt = usize::try_from(vt).map_err(|_| layout_error("a vtable"))?;
    let size = usize::from(read_u16(b, vt)?);
    Ok((vt, size.saturating_sub(4) / 2))
}

/// Where field `id` of `table` sits, or `None` when the field is absent (default value).
fn field(b: &[u8], table: usize, id: usize) -> Result<Option<usize>, Error> {
    let (vt, slots) = vtable(b, table)?;
    if id >= slots {
        return Ok(None);
    }
    let offset = usize::from(read_u16(b, vt + 4 + 2 * id)?);
    Ok((offset != 0).then_some(table + offset))
}

/// Fields present beyond the first `known` ones (fields this crate cannot copy).
fn has_unknown_fields(b: &[u8], table: usize, known: usize) -> Result<bool, Error> {
    let (_, slots) = vtable(b, table)?;
    for id in known..slots {
        if field(b, table, id)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// (length, position of element 0) of the vector an offset field at `at` points to.
fn vector(b: &[u8], at: usize) -> Result<(usize, usize), Error> {
    let v = deref(b, at)?;
    Ok((read_u32(b, v)? as usize, v + 4))
}

struct Layout {
    root: usize,
    operator_codes: Option<(usize, usize)>,
    buffers: Option<(usize, usize)>,
    metadata: Option<(usize, usize)>,
}

impl Layout {
    fn read(b: &[u8]) -> Result<Self, Error> {
        let root = deref(b, 0)?;
        let list = |id| -> Result<Option<(usize, usize)>, Error> {
            field(b, root, id)?.map(|at| vector(b, at)).transpose()
        };
        Ok(Self {
            root,
            operator_codes: list(MODEL_OPERATOR_CODES)?,
            buffers: list(MODEL_BUFFERS)?,
            metadata: list(MODEL_METADATA)?,
        })
    }

    /// The table that element `i` of a vector of tables points to.
    fn element(b: &[u8], list: Option<(usize, usize)>, i: usize) -> Result<usize, Error> {
        match list {
            Some((len, first)) if i < len => deref(b, first + 4 * i),
            _ => Err(layout_error("a vector element")),
        }
    }

    fn operator_code(&self, b: &[u8], i: usize) -> Result<usize, Error> {
        Self::element(b, self.operator_codes, i)
    }

    /// The (start, length) of buffer `index`'s data, when it has any.
    fn buffer_data(&self, b: &[u8], index: u32) -> Result<Option<(usize, usize)>, Error> {
        let index = index as usize;
        if self.buffers.is_none_or(|(len, _)| index >= len) {
            return Ok(None);
        }
        let table = Self::element(b, self.buffers, index)?;
        match field(b, table, BUFFER_DATA)? {
            None => Ok(None),
            Some(at) => {
                let (len, start) = vector(b, at)?;
                if start.checked_add(len).is_none_or(|end| end > b.len()) {
                    return Err(layout_error("a buffer's data"));
                }
                Ok(Some((start, len)))
            }
        }
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

/// Where a new offset field points: into the original bytes, or into the new front part.
#[derive(Clone, Copy)]
enum Target {
    Old(usize),
    New(usize),
}

#[derive(Clone, Copy)]
enum Value {
    U32(u32),
    I32(i32),
    I8(i8),
    Offset(Target),
}

/// Writes the front part: tables and vectors whose offsets point forward, into the front
/// part itself or into the original bytes that follow it.
#[derive(Default)]
struct Front {
    buf: Vec<u8>,
    fixups: Vec<(usize, Target)>,
}

impl Front {
    fn align(&mut self, n: usize) {
        while !self.buf.len().is_multiple_of(n) {
            self.buf.push(0);
        }
    }

    fn offset(&mut self, target: Target) {
        self.fixups.push((self.buf.len(), target));
        self.buf.extend_from_slice(&[0; 4]);
    }

    /// A table with `slots` field ids, of which `fields` are present; returns its position.
    fn table(&mut self, slots: usize, fields: &[(usize, Value)]) -> usize {
        let mut offsets = vec![0u16; slots];
        let mut next = 4u16;
        let wide = fields.iter().filter(|(_, v)| !matches!(v, Value::I8(_)));
        let narrow = fields.iter().filter(|(_, v)| matches!(v, Value::I8(_)));
        let order: Vec<_> = wide.chain(narrow).copied().collect();
        for (id, value) in &order {
            offsets[*id] = next;
            next += if matches!(value, Value::I8(_)) { 1 } else { 4 };
        }
        let size = next.div_ceil(4) * 4;
        self.align(2);
        // Pad so that the table after the vtable starts 4-aligned.
        if !(self.buf.len() + 4 + 2 * slots).is_multiple_of(4) {
            self.buf.extend_from_slice(&[0; 2]);
        }
        let vt = self.buf.len();
        self.buf
            .extend_from_slice(&(4 + 2 * slots as u16).to_le_bytes());
        self.buf.extend_from_slice(&size.to_le_bytes());
        for o in offsets {
            self.buf.extend_from_slice(&o.to_le_bytes());
        }
        let table = self.buf.len();
        debug_assert_eq!(table % 4, 0);
        self.buf
            .extend_from_slice(&((table - vt) as i32).to_le_bytes());
        for (_, value) in &order {
            match *value {
                Value::U32(v) => self.buf.extend_from_slice(&v.to_le_bytes()),
                Value::I32(v) => self.buf.extend_from_slice(&v.to_le_bytes()),
                Value::I8(v) => self.buf.push(v as u8),
                Value::Offset(t) => self.offset(t),
            }
        }
        self.align(4);
        table
    }

    /// A vector of offsets; returns its position.
    fn offsets(&mut self, targets: &[Target]) -> usize {
        self.align(4);
        let at = self.buf.len();
        self.buf
            .extend_from_slice(&(targets.len() as u32).to_le_bytes());
        for t in targets {
            self.offset(*t);
        }
        at
    }

    /// A string; returns its position.
    fn string(&mut self, text: &str) -> usize {
        self.align(4);
        let at = self.buf.len();
        self.buf
            .extend_from_slice(&(text.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(text.as_bytes());
        self.buf.push(0);
        at
    }

    /// A byte vector whose data is 16-byte aligned (TF's `force_align: 16` on buffer data).
    fn bytes(&mut self, data: &[u8]) -> usize {
        while !(self.buf.len() + 4).is_multiple_of(16) {
            self.buf.push(0);
        }
        let at = self.buf.len();
        self.buf
            .extend_from_slice(&(data.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(data);
        at
    }

    /// Writes every offset now that the front part's length is known, and appends `tail`.
    fn finish(mut self, tail: &[u8]) -> Result<Vec<u8>, Error> {
        self.align(16);
        let front = self.buf.len();
        for (at, target) in std::mem::take(&mut self.fixups) {
            let t = match target {
                Target::Old(x) => front + x,
                Target::New(x) => x,
            };
            let offset = t
                .checked_sub(at)
                .filter(|&o| o > 0)
                .and_then(|o| u32::try_from(o).ok())
                .ok_or(StampError::OffsetOverflow)?;
            self.buf[at..at + 4].copy_from_slice(&offset.to_le_bytes());
        }
        self.buf.extend_from_slice(tail);
        Ok(self.buf)
    }
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
        if has_unknown_fields(b, layout.root, MODEL_FIELDS)? {
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
                let (len, first) = layout.metadata.ok_or_else(|| layout_error("metadata"))?;
                let mut found = None;
                for i in 0..len {
                    let table = deref(b, first + 4 * i)?;
                    if let Some(at) = field(b, table, 0)? {
                        let s = deref(b, at)?;
                        let n = read_u32(b, s)? as usize;
                        if b.get(s + 4..s + 4 + n) == Some(RuntimeVersion::METADATA_NAME.as_bytes())
                        {
                            found = Some(i);
                            break;
                        }
                    }
                }
                Some(found.ok_or_else(|| layout_error("the min_runtime_version metadata"))?)
            }
            // ... or append one.
            (Some(_), None) => Some(layout.metadata.map_or(0, |(len, _)| len)),
        };

        // Model table: every field of the original, some pointing at new vectors.
        let model_fields: Vec<(usize, Option<usize>)> = (0..MODEL_FIELDS)
            .map(|id| field(b, layout.root, id).map(|at| (id, at)))
            .collect::<Result<_, _>>()?;
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
                    Value::U32(read_u32(b, at)?)
                } else {
                    Value::Offset(Target::Old(deref(b, at)?))
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
            let (len, first) = layout.operator_codes.ok_or_else(|| layout_error("codes"))?;
            let mut slots = Vec::with_capacity(len);
            for i in 0..len {
                slots.push(Target::Old(deref(b, first + 4 * i)?));
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
                Some((len, first)) => {
                    for i in 0..len {
                        slots.push(Target::Old(deref(b, first + 4 * i)?));
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
            if let Some((len, first)) = layout.metadata {
                for i in 0..len {
                    entries.push(Target::Old(deref(b, first + 4 * i)?));
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
                if has_unknown_fields(b, table, OPERATOR_CODE_FIELDS)? {
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
                if let Some(at) = field(b, table, OPERATOR_CODE_CUSTOM)? {
                    fields.push((
                        OPERATOR_CODE_CUSTOM,
                        Value::Offset(Target::Old(deref(b, at)?)),
                    ));
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

/// Points the offset slot at `slot` (already registered as a fixup) at a new position.
fn retarget(f: &mut Front, slot: usize, target: usize) {
    if let Some(entry) = f.fixups.iter_mut().find(|(at, _)| *at == slot) {
        entry.1 = Target::New(target);
    }
}
