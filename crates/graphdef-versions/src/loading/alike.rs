//! Releases that judge a graph alike ([`Alike`]), so that one judgement serves them all.

use std::collections::{BTreeSet, HashMap};

use super::printing::Dialect;
use crate::releases::{OpDefId, TfRelease};
use crate::schema::FunctionDefLibrary;

/// Releases that judge a graph alike, so that one judgement serves them all.
///
/// An import depends on a release through the definitions of the ops it looks up (the graph's
/// and its library's, and the library's function names, which may not be ops), through
/// whether each op is deprecated at the producer it judges by, and through its [`Dialect`]:
/// which data types it knows, and its wording. Releases that agree on all of that refuse a
/// graph in the same words. Acceptance needs less: a release whose dialect knows every data
/// type an older one knows accepts what the older one accepted with the same definitions
/// (knowing more types is the only way a dialect changes what is valid). The releases are
/// judged oldest first, so an acceptance carries forward.
pub(super) struct Alike<E> {
    accepted: Vec<(Vec<OpUse>, Dialect, u32)>,
    refused: HashMap<(Vec<OpUse>, Dialect, u32), E>,
}

impl<E> Default for Alike<E> {
    fn default() -> Self {
        Alike {
            accepted: Vec::new(),
            refused: HashMap::new(),
        }
    }
}

/// How a release defines an op a graph uses: which definition, and whether it is deprecated
/// at the producer it judges by.
type OpUse = (Option<OpDefId>, bool);

impl<E: Clone> Alike<E> {
    /// `judgement`'s result in `release`, which judges by `producer` a graph that uses `ops`,
    /// or that of a release judged before that judges alike. `extra` is anything else the
    /// judgement depends on in a release, which releases judged alike share.
    pub(super) fn judge(
        &mut self,
        release: TfRelease,
        ops: &BTreeSet<&str>,
        producer: i32,
        extra: u32,
        judgement: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let uses: Vec<OpUse> = ops
            .iter()
            .map(|&op| {
                let id = release.op_def_id(op);
                let deprecated = id
                    .and_then(|id| id.op_def().deprecation.as_ref())
                    .is_some_and(|deprecation| producer >= deprecation.version);
                (id, deprecated)
            })
            .collect();
        let dialect = Dialect::of(release.number());
        let accepted_before = self.accepted.iter().any(|(seen, older, seen_extra)| {
            *seen == uses && *seen_extra == extra && older.known_types_within(&dialect)
        });
        if accepted_before {
            return Ok(());
        }
        let key = (uses, dialect, extra);
        if let Some(failure) = self.refused.get(&key) {
            return Err(failure.clone());
        }
        let result = judgement();
        match &result {
            Ok(()) => self.accepted.push(key),
            Err(failure) => {
                self.refused.insert(key, failure.clone());
            }
        }
        result
    }
}

/// Every op a library's functions use, and the functions' names.
pub(super) fn used_ops(library: Option<&FunctionDefLibrary>) -> BTreeSet<&str> {
    let mut ops = BTreeSet::new();
    for function in library.iter().flat_map(|l| &l.function) {
        if let Some(signature) = &function.signature {
            ops.insert(signature.name.as_str());
        }
        ops.extend(function.node_def.iter().map(|n| n.op.as_str()));
    }
    ops
}
