//! New FlatBuffer tables written in front of a model's bytes: how [`stamp`](crate::stamp()) adds
//! a field a model lacks without rewriting the rest.
//!
//! Offsets in a FlatBuffer are unsigned and point forward, so the front part's tables can point
//! into themselves (further on) and into the original bytes, which follow the front part
//! unchanged. Each offset is written as a fixup and resolved once the front part's length is
//! known ([`Front::finish`]).

use crate::error::{Error, StampError};

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
