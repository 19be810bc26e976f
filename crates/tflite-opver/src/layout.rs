//! The FlatBuffers byte layer of re-stamping, written by hand: where a field sits in a
//! validated model's bytes (to patch it in place), and new tables written in front of the
//! original bytes (to add a field the model lacks).
//!
//! planus reads and writes whole models; re-stamping must instead leave every byte it does not
//! change where it is, so it works on the wire format itself: a table starts with a signed
//! offset to its vtable, a vtable lists each field's offset in the table (0: absent, the
//! default), vectors and strings are a `u32` length and their elements, and every reference is
//! an unsigned offset relative to where it is stored. The model has already been validated by
//! planus; every access here is still bounds-checked, and a miss is a typed error.

use crate::error::{DecodeError, Error, StampError};

/// Field ids (declaration order) in TF's schema.
pub(crate) const MODEL_VERSION: usize = 0;
pub(crate) const MODEL_OPERATOR_CODES: usize = 1;
pub(crate) const MODEL_SUBGRAPHS: usize = 2;
pub(crate) const MODEL_BUFFERS: usize = 4;
pub(crate) const MODEL_METADATA: usize = 6;
pub(crate) const MODEL_FIELDS: usize = 8;
pub(crate) const OPERATOR_CODE_DEPRECATED: usize = 0;
pub(crate) const OPERATOR_CODE_CUSTOM: usize = 1;
pub(crate) const OPERATOR_CODE_VERSION: usize = 2;
pub(crate) const OPERATOR_CODE_BUILTIN: usize = 3;
pub(crate) const OPERATOR_CODE_FIELDS: usize = 4;
pub(crate) const BUFFER_DATA: usize = 0;
pub(crate) const SUBGRAPH_TENSORS: usize = 0;
pub(crate) const SUBGRAPH_OPERATORS: usize = 3;
pub(crate) const OPERATOR_OPCODE_INDEX: usize = 0;
pub(crate) const OPERATOR_INPUTS: usize = 1;
pub(crate) const OPERATOR_OUTPUTS: usize = 2;
/// The union's tag; its value is the next slot.
pub(crate) const OPERATOR_BUILTIN_OPTIONS_TYPE: usize = 3;
pub(crate) const OPERATOR_LARGE_CUSTOM_OPTIONS: usize = 9;
pub(crate) const OPERATOR_BUILTIN_OPTIONS_2_TYPE: usize = 11;

pub(crate) fn layout_error(what: &'static str) -> Error {
    DecodeError::OutOfBounds { what }.into()
}

pub(crate) fn read_u32(b: &[u8], at: usize) -> Result<u32, Error> {
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

pub(crate) fn write_i32(b: &mut [u8], at: usize, value: i32) -> Result<(), Error> {
    b.get_mut(at..at + 4)
        .ok_or_else(|| layout_error("a version field"))?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// The position an offset field at `at` points to.
pub(crate) fn deref(b: &[u8], at: usize) -> Result<usize, Error> {
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
pub(crate) fn field(b: &[u8], table: usize, id: usize) -> Result<Option<usize>, Error> {
    let (vt, slots) = vtable(b, table)?;
    if id >= slots {
        return Ok(None);
    }
    let offset = usize::from(read_u16(b, vt + 4 + 2 * id)?);
    Ok((offset != 0).then_some(table + offset))
}

/// Fields present beyond the first `known` ones (fields this crate cannot copy).
pub(crate) fn has_unknown_fields(b: &[u8], table: usize, known: usize) -> Result<bool, Error> {
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

pub(crate) struct Layout {
    pub(crate) root: usize,
    pub(crate) operator_codes: Option<(usize, usize)>,
    pub(crate) buffers: Option<(usize, usize)>,
    pub(crate) metadata: Option<(usize, usize)>,
}

impl Layout {
    pub(crate) fn read(b: &[u8]) -> Result<Self, Error> {
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

    pub(crate) fn operator_code(&self, b: &[u8], i: usize) -> Result<usize, Error> {
        Self::element(b, self.operator_codes, i)
    }

    /// The (start, length) of buffer `index`'s data, when it has any.
    pub(crate) fn buffer_data(
        &self,
        b: &[u8],
        index: u32,
    ) -> Result<Option<(usize, usize)>, Error> {
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

/// Where a new offset field points: into the original bytes, or into the new front part.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    Old(usize),
    New(usize),
}

#[derive(Clone, Copy)]
pub(crate) enum Value {
    U32(u32),
    I32(i32),
    I8(i8),
    Offset(Target),
}

/// Writes the front part: tables and vectors whose offsets point forward, into the front
/// part itself or into the original bytes that follow it.
#[derive(Default)]
pub(crate) struct Front {
    pub(crate) buf: Vec<u8>,
    pub(crate) fixups: Vec<(usize, Target)>,
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
    pub(crate) fn table(&mut self, slots: usize, fields: &[(usize, Value)]) -> usize {
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
    pub(crate) fn offsets(&mut self, targets: &[Target]) -> usize {
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
    pub(crate) fn string(&mut self, text: &str) -> usize {
        self.align(4);
        let at = self.buf.len();
        self.buf
            .extend_from_slice(&(text.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(text.as_bytes());
        self.buf.push(0);
        at
    }

    /// A byte vector whose data is 16-byte aligned (TF's `force_align: 16` on buffer data).
    pub(crate) fn bytes(&mut self, data: &[u8]) -> usize {
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
    pub(crate) fn finish(mut self, tail: &[u8]) -> Result<Vec<u8>, Error> {
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

/// Points the offset slot at `slot` (already registered as a fixup) at a new position.
pub(crate) fn retarget(f: &mut Front, slot: usize, target: usize) {
    if let Some(entry) = f.fixups.iter_mut().find(|(at, _)| *at == slot) {
        entry.1 = Target::New(target);
    }
}
