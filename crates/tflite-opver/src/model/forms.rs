//! Operator forms: the few distinct ways a subgraph's operators read to TF's version rules.
//!
//! TF's rules see an operator's code, its params, whether its options table is there, and the
//! facts of its input and output tensors; nothing else (not even which tensors they are). A
//! model of a million operators, written by a converter, has a few dozen such readings, repeated
//! layer after layer. Each subgraph keeps each distinct one once, as a [`Form`], and every
//! operator points at its form: a form is judged once, and each of its operators gets that
//! version.
//!
//! Operators read alike when they have the same code, the same options entry (an options table
//! with the same bytes, read once), the same number of inputs, and tensors of the same classes
//! ([`classes`](crate::model::classes)), one by one. Operators whose tensors are of different classes
//! may still read alike (a class is kept twice when the reader could not tell), which only costs
//! a form judged twice.

use std::hash::{BuildHasher, Hasher};

use foldhash::fast::RandomState;
use hashbrown::HashTable;

use crate::error::Error;
use crate::model::pool::pool_mark;
use crate::params::Params;

/// One distinct reading of a subgraph's operators.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Form {
    /// Index into the model's operator codes (validated).
    pub(crate) opcode_index: u32,
    /// How many inputs and outputs its operators have.
    pub(crate) inputs: u32,
    pub(crate) outputs: u32,
    pub(crate) params: Params,
    pub(crate) options_present: bool,
    /// The first operator of the form, in the subgraph's order: TF's rules judge it, and give
    /// its version to every operator of the form.
    pub(crate) first: u32,
}

/// The forms of a subgraph as it is read, found by their keys.
pub(crate) struct FormTable {
    pub(crate) forms: Vec<Form>,
    /// Each form's key ([`FormKey`]), one after the other.
    keys: Vec<u32>,
    /// Where each form's key sits in `keys`.
    key_ends: Vec<u32>,
    /// The forms, found by the hash of their keys.
    index: HashTable<u32>,
    hasher: RandomState,
    /// Per operator code, the form its last operator had: a converter writes runs of alike
    /// operators, and one comparison of keys finds most forms without hashing the key.
    last: Vec<u32>,
}

/// What an operator's form is made of, as words: its operator code, its options entry, its
/// input count, then the class of each input and output (`u32::MAX` for an absent input).
pub(crate) struct FormKey {
    words: Vec<u32>,
}

impl FormKey {
    pub(crate) fn new() -> Self {
        Self { words: Vec::new() }
    }

    /// Starts the key of an operator of code `opcode_index`, whose params are options entry
    /// `options`, with `inputs` inputs.
    #[inline(always)]
    pub(crate) fn start(&mut self, opcode_index: u32, options: u32, inputs: u32) {
        self.words.clear();
        self.words.extend([opcode_index, options, inputs]);
    }

    /// Adds the classes of the tensors `indices` (validated: -1 or a tensor of `classes`).
    #[inline(always)]
    pub(crate) fn tensors(&mut self, classes: &[u32], indices: &[i32]) {
        self.words.extend(indices.iter().map(|&index| {
            usize::try_from(index)
                .ok()
                .and_then(|i| classes.get(i))
                .map_or(u32::MAX, |&class| class)
        }));
    }
}

impl FormTable {
    /// An empty table for the operators of a model with `codes` operator codes.
    pub(crate) fn new(codes: usize) -> Self {
        Self {
            forms: Vec::new(),
            keys: Vec::new(),
            key_ends: Vec::new(),
            index: HashTable::new(),
            hasher: RandomState::default(),
            last: vec![u32::MAX; codes],
        }
    }

    /// The form whose key is `key`, added if new, with the params `params` gives and
    /// operator `operator` as its first.
    #[inline(always)]
    pub(crate) fn form_of(
        &mut self,
        key: &FormKey,
        operator: usize,
        params: impl FnOnce() -> (Params, bool),
    ) -> Result<u32, Error> {
        let words = key.words.as_slice();
        let (keys, ends) = (&self.keys, &self.key_ends);
        // The key's first word is its operator code.
        let code = words.first().map_or(0, |&code| code as usize);
        if let Some(&last) = self.last.get(code)
            && same_words(key_of(keys, ends, last), words)
        {
            return Ok(last);
        }
        let hash = hash_words(&self.hasher, words);
        let found = self
            .index
            .find(hash, |&form| same_words(key_of(keys, ends, form), words))
            .copied();
        let form = match found {
            Some(form) => form,
            None => self.add(words, hash, operator, params)?,
        };
        if let Some(last) = self.last.get_mut(code) {
            *last = form;
        }
        Ok(form)
    }

    /// Adds the form whose key is `words` (hashed: `hash`), with the params `params` gives
    /// and operator `operator` as its first.
    fn add(
        &mut self,
        words: &[u32],
        hash: u64,
        operator: usize,
        params: impl FnOnce() -> (Params, bool),
    ) -> Result<u32, Error> {
        let form = pool_mark(self.forms.len())?;
        let (params, options_present) = params();
        let (opcode_index, inputs) = (words[0], words[2]);
        self.forms.push(Form {
            opcode_index,
            inputs,
            // The classes of its inputs, then of its outputs, follow the three words above.
            outputs: pool_mark(words.len() - 3 - inputs as usize)?,
            params,
            options_present,
            first: pool_mark(operator)?,
        });
        self.keys.extend_from_slice(words);
        self.key_ends.push(pool_mark(self.keys.len())?);
        let (keys, ends, hasher) = (&self.keys, &self.key_ends, &self.hasher);
        self.index.insert_unique(hash, form, |&form| {
            hash_words(hasher, key_of(keys, ends, form))
        });
        Ok(form)
    }
}

/// The hash of a key, word by word.
#[inline(always)]
fn hash_words(hasher: &RandomState, words: &[u32]) -> u64 {
    let mut state = hasher.build_hasher();
    for &word in words {
        state.write_u32(word);
    }
    state.finish()
}

/// Whether two keys are equal, word by word inline (`==` on the slices called `memcmp`, for a
/// few words, once per operator).
#[inline(always)]
fn same_words(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The key of form `form`.
fn key_of<'k>(keys: &'k [u32], ends: &[u32], form: u32) -> &'k [u32] {
    let form = form as usize;
    let start = form
        .checked_sub(1)
        .and_then(|before| ends.get(before))
        .map_or(0, |&end| end as usize);
    let end = ends.get(form).map_or(start, |&end| end as usize);
    keys.get(start..end).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The form of each key, in order, through one table.
    fn forms_of(keys: &[[u32; 5]]) -> Vec<u32> {
        let mut table = FormTable::new(3);
        let mut key = FormKey::new();
        keys.iter()
            .enumerate()
            .map(|(operator, words)| {
                key.start(words[0], words[1], words[2]);
                key.words.extend_from_slice(&words[3..]);
                table
                    .form_of(&key, operator, || (Params::None, true))
                    .expect("few forms")
            })
            .collect()
    }

    /// Keys found by the last form of their code and keys found by the hash table name the
    /// same forms: equal keys one form, different keys (by any word) different forms.
    #[test]
    fn equal_keys_share_a_form_whichever_way_it_is_found() {
        let a = [0, 0, 1, 7, 8];
        let b = [0, 0, 1, 7, 9];
        let other_code = [1, 0, 1, 7, 8];
        let other_options = [0, 1, 1, 7, 8];
        let other_split = [0, 0, 2, 7, 8];
        assert_eq!(
            forms_of(&[a, a, b, a, other_code, a, other_options, other_split, b, b]),
            [0, 0, 1, 0, 2, 0, 3, 4, 1, 1]
        );
    }
}
