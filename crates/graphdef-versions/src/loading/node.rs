//! A NodeDef read in place: its name, op and inputs, and the key of its form, borrowed from
//! the file's bytes.

use super::forms::FormKey;
use crate::wire::{Fields, Value};

/// `NodeDef` fields (`tensorflow/core/framework/node_def.proto`).
const NODE_NAME: u32 = 1;
const NODE_OP: u32 = 2;
const NODE_INPUT: u32 = 3;
const NODE_DEVICE: u32 = 4;

/// Reads nodes one after the other, reusing its buffers.
#[derive(Default)]
pub(super) struct NodeReader<'a> {
    /// The last node's inputs, as written.
    pub(super) inputs: Vec<&'a [u8]>,
    /// The last node's form key.
    form_key: FormKey<'a>,
}

impl<'a> NodeReader<'a> {
    /// Reads a NodeDef's fields: its name, and its op as written (checked with its form), and
    /// its inputs and form fields into the reader; `None` for anything prost would read
    /// differently or refuse.
    ///
    /// The text fields (name, op, inputs, device) must be UTF-8. In a node TensorFlow wrote
    /// they come first, side by side, each with a one-byte key and a one-byte length: bytes
    /// below 128, which UTF-8 reads as characters of their own. So those first fields' bytes,
    /// from the node's start to the end of the last one, are UTF-8 if and only if each field
    /// is, and are checked in one go; a text field after another kind of field is checked on
    /// its own.
    pub(super) fn read(&mut self, bytes: &'a [u8]) -> Option<(&'a str, &'a [u8])> {
        self.inputs.clear();
        self.form_key.clear();
        let (mut name, mut op) = (None, None);
        // The end of the first text fields, side by side from the node's start.
        let mut first_texts_end = 0;
        let mut fields = Fields::new(bytes, 0, "NodeDef");
        while let Some(field) = fields.next_well_formed() {
            let Value::Bytes(text, _) = field.value else {
                if (NODE_NAME..=NODE_DEVICE).contains(&field.number) {
                    return None;
                }
                self.form_key.push_field(&bytes[field.start..field.end]);
                continue;
            };
            let whole = &bytes[field.start..field.end];
            if (NODE_NAME..=NODE_DEVICE).contains(&field.number) {
                let short = whole.len() == text.len() + 2 && whole[0] < 0x80 && whole[1] < 0x80;
                if short && field.start == first_texts_end {
                    first_texts_end = field.end;
                } else {
                    std::str::from_utf8(text).ok()?;
                }
            }
            match field.number {
                NODE_NAME if name.is_none() => name = Some(field.end - text.len()..field.end),
                NODE_OP if op.is_none() => {
                    op = Some(text);
                    self.form_key.push_field(whole);
                }
                NODE_INPUT => self.inputs.push(text),
                NODE_DEVICE => {}
                NODE_NAME | NODE_OP => return None,
                _ => self.form_key.push_field(whole),
            }
        }
        if fields.malformed() {
            return None;
        }
        let first_texts = std::str::from_utf8(&bytes[..first_texts_end]).ok()?;
        let name = match name {
            // Within the first text fields, or checked on its own.
            Some(at) => first_texts
                .get(at.clone())
                .or_else(|| std::str::from_utf8(&bytes[at]).ok())?,
            None => "",
        };
        Some((name, op.unwrap_or_default()))
    }

    /// The last node's form key, ended with its number of data inputs (they come before its
    /// control inputs).
    pub(super) fn form_key(&mut self) -> &FormKey<'a> {
        let data = self
            .inputs
            .iter()
            .take_while(|i| !i.starts_with(b"^"))
            .count();
        // Fewer than the node's bytes, which are below 2 GiB.
        self.form_key.end(data as u32)
    }

    /// Whether no data input follows a control input.
    pub(super) fn controls_last(&self) -> bool {
        let first_control = self.inputs.iter().position(|i| i.starts_with(b"^"));
        first_control.is_none_or(|at| self.inputs[at..].iter().all(|i| i.starts_with(b"^")))
    }
}

/// The name of a node read once already, and its inputs, handed to `each` in order.
pub(super) fn name_and_inputs<'a>(node: &'a [u8], mut each: impl FnMut(&'a [u8])) -> &'a str {
    let mut name = None;
    let mut fields = Fields::new(node, 0, "NodeDef");
    while let Some(field) = fields.next_well_formed() {
        match (field.number, field.value) {
            (NODE_NAME, Value::Bytes(text, _)) if name.is_none() => name = Some(text),
            (NODE_INPUT, Value::Bytes(input, _)) => each(input),
            _ => {}
        }
    }
    // Checked as UTF-8 when the node was read.
    name.and_then(|name| std::str::from_utf8(name).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NodeDef's fields, each with a one-byte key and a one-byte length.
    fn node_bytes(fields: &[(u8, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(number, payload) in fields {
            out.push(number << 3 | 2);
            out.push(payload.len() as u8);
            out.extend_from_slice(payload);
        }
        out
    }

    #[test]
    fn text_fields_are_checked_for_utf8_together_or_apart() {
        let attr = node_bytes(&[(1, b"T"), (2, &[0x30, 0x01])]);
        let read = |raw: &[u8]| {
            let mut reader = NodeReader::default();
            let raw = raw.to_vec().leak();
            reader
                .read(raw)
                .map(|(name, op)| (name.to_string(), op.to_vec(), reader.inputs.len()))
        };
        // Together, first: a multi-byte name stays whole.
        let raw = node_bytes(&[(1, "n\u{e9}".as_bytes()), (2, b"Op"), (3, b"x"), (5, &attr)]);
        assert_eq!(read(&raw), Some(("n\u{e9}".into(), b"Op".to_vec(), 1)));
        // An attr first: each text field on its own.
        let raw = node_bytes(&[(5, &attr), (1, b"n"), (2, b"Op"), (3, b"x:1")]);
        assert_eq!(read(&raw), Some(("n".into(), b"Op".to_vec(), 1)));
        // A long name (a two-byte length) is checked on its own, and the fields after it too.
        let long = "n".repeat(200);
        let mut raw = vec![0x0a, 0xc8, 0x01];
        raw.extend_from_slice(long.as_bytes());
        raw.extend(node_bytes(&[(3, &[0xc3])]));
        assert_eq!(read(&raw), None);
        // Bytes that are not UTF-8 in an input or a device, together or apart: left to prost.
        for raw in [
            node_bytes(&[(1, b"n"), (3, &[0xff])]),
            node_bytes(&[(5, &attr), (1, b"n"), (3, &[0xc3])]),
            node_bytes(&[(1, b"n"), (5, &attr), (4, &[0x80])]),
            node_bytes(&[(1, &[0xc3]), (2, &[0xa9])]),
        ] {
            assert_eq!(read(&raw), None, "{raw:02x?}");
        }
        // A name repeated, or a text field of another wire type: left to prost.
        assert_eq!(read(&node_bytes(&[(1, b"a"), (1, b"b")])), None);
        assert_eq!(read(&[0x08, 0x01]), None);
    }
}
