//! Ten real TensorFlow releases, 2.12 to 2.21: their version constants and their registered ops.
//!
//! The facts come from the releases themselves: `cargo xtask tf-releases` installs each
//! `tensorflow-cpu` wheel in a scratch venv and dumps the serialized `OpList` of every
//! registered op (`TF_GetAllOpList`) and the version macros of its `version.h`; the dumps are
//! committed (`releases/` in this crate's repository folder), and `cargo xtask codegen` turns
//! them into the tables compiled in here. Nothing is typed by hand.
//!
//! Every distinct `OpDef` is stored once (2080 of them, 463 KB, for about 1900 ops per
//! release), with its name; each release lists which ones it registers. An `OpDef` is decoded
//! the first time it is asked for, and kept. Because each is stored once, an [`OpDefId`] says
//! which definition a release gives an op: two releases that give an op the same id define it
//! alike, field for field.

use std::sync::OnceLock;

use prost::Message;

use crate::consumer::Consumer;
use crate::generated::tf_releases::{OP_DEF_NAMES, OP_DEF_RANGES, OP_DEFS, RELEASES, ReleaseFacts};
use crate::policy::ReleaseNumber;
use crate::schema::OpDef;
use crate::version::{Constants, Scheme, Version};

/// One TensorFlow release: its GraphDef and checkpoint constants and the ops it registers.
///
/// ```
/// use graphdef_versions::TfRelease;
///
/// let release = TfRelease::get("2.14.1").unwrap();
/// assert_eq!(release.graph_def().current.get(), 1575);
/// // `TopKV2`'s `k` input became `Tk`-typed in 2.13: the older release still has `int32`.
/// let top_k = TfRelease::get("2.12.1").unwrap().op("TopKV2").unwrap();
/// assert_eq!(top_k.input_arg[1].type_attr, "");
/// assert_eq!(release.op("TopKV2").unwrap().input_arg[1].type_attr, "Tk");
/// ```
#[derive(Clone, Copy)]
pub struct TfRelease {
    facts: &'static ReleaseFacts,
}

impl std::fmt::Debug for TfRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TfRelease")
            .field("release", &self.facts.release)
            .field("graph_def_version", &self.facts.graph_def[0])
            .field("ops", &self.facts.ops.len())
            .finish()
    }
}

impl PartialEq for TfRelease {
    fn eq(&self, other: &Self) -> bool {
        self.facts.release == other.facts.release
    }
}

impl Eq for TfRelease {}

impl TfRelease {
    /// Every release covered, oldest first: 2.12.1, 2.13.1, 2.14.1, 2.15.1, 2.16.2, 2.17.1,
    /// 2.18.1, 2.19.1, 2.20.0, 2.21.0.
    pub fn all() -> impl ExactSizeIterator<Item = TfRelease> + DoubleEndedIterator {
        RELEASES.iter().map(|facts| TfRelease { facts })
    }

    /// The release named exactly `release` (`"2.14.1"`), if covered.
    pub fn get(release: &str) -> Option<TfRelease> {
        Self::all().find(|r| r.name() == release)
    }

    /// The release, as `tf.__version__` names it.
    pub fn name(&self) -> &'static str {
        self.facts.release
    }

    /// The release as a number, for comparisons: `2.14.1` is after `2.13.1`.
    pub fn number(&self) -> ReleaseNumber {
        // Compiled-in names, each parsed by the `every_release_has_a_number` test.
        self.facts
            .release
            .parse()
            .unwrap_or(ReleaseNumber::new(0, 0, 0))
    }

    /// The wheel's `tf.version.GIT_VERSION`.
    pub fn git_version(&self) -> &'static str {
        self.facts.git_version
    }

    /// Its GraphDef constants: `TF_GRAPH_DEF_VERSION` and its min producer and min consumer.
    pub fn graph_def(&self) -> Constants {
        constants(Scheme::GraphDef, self.facts.graph_def)
    }

    /// Its checkpoint constants: `TF_CHECKPOINT_VERSION` and its min producer and min consumer.
    pub fn checkpoint(&self) -> Constants {
        constants(Scheme::Checkpoint, self.facts.checkpoint)
    }

    /// This release as a consumer of `scheme`, naming itself as its messages do.
    pub fn consumer(&self, scheme: Scheme) -> Consumer {
        let constants = match scheme {
            Scheme::GraphDef => self.graph_def(),
            Scheme::Checkpoint => self.checkpoint(),
        };
        Consumer::from_constants(&constants, self.facts.release)
    }

    /// How many ops it registers (`_`-prefixed internal ops included).
    pub fn op_count(&self) -> usize {
        self.facts.ops.len()
    }

    /// The registered op named `name`, as this release defines it.
    pub fn op(&self, name: &str) -> Option<&'static OpDef> {
        self.op_def_id(name).map(OpDefId::op_def)
    }

    /// Which of the releases' distinct OpDefs this release registers as `name`.
    pub(crate) fn op_def_id(&self, name: &str) -> Option<OpDefId> {
        let ops = self.facts.ops;
        ops.binary_search_by(|&id| OpDefId(id).name().cmp(name))
            .ok()
            .map(|found| OpDefId(ops[found]))
    }

    /// Every op it registers, in name order.
    pub fn ops(&self) -> impl ExactSizeIterator<Item = &'static OpDef> {
        self.facts.ops.iter().map(|&id| OpDefId(id).op_def())
    }
}

/// One of the distinct OpDefs of the releases. The releases' OpDefs are stored once each, so
/// equal ids are equal definitions: releases that give an op the same id define it alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct OpDefId(u16);

impl OpDefId {
    /// The op's name.
    fn name(self) -> &'static str {
        OP_DEF_NAMES
            .get(usize::from(self.0))
            .copied()
            .unwrap_or_default()
    }

    /// The compiled-in bytes of the OpDef.
    fn bytes(self) -> &'static [u8] {
        OP_DEF_RANGES
            .get(usize::from(self.0))
            .and_then(|&(start, len)| OP_DEFS.get(start as usize..(start + len) as usize))
            .unwrap_or_default()
    }

    /// The OpDef, decoded the first time it is asked for, and kept.
    pub(crate) fn op_def(self) -> &'static OpDef {
        static DECODED: OnceLock<Box<[OnceLock<OpDef>]>> = OnceLock::new();
        static NONE: OnceLock<OpDef> = OnceLock::new();
        let all = DECODED.get_or_init(|| OP_DEF_RANGES.iter().map(|_| OnceLock::new()).collect());
        let Some(cell) = all.get(usize::from(self.0)) else {
            return NONE.get_or_init(OpDef::default);
        };
        cell.get_or_init(|| {
            // Compiled-in bytes that `cargo xtask codegen` split from TensorFlow's own
            // serialization; the tests decode every one of them. An OpDef that failed to
            // decode would read as an op with no name, which no lookup finds.
            OpDef::decode(self.bytes()).unwrap_or_default()
        })
    }
}

fn constants(scheme: Scheme, [current, min_producer, min_consumer]: [i32; 3]) -> Constants {
    Constants {
        scheme,
        current: Version::new(current),
        min_producer: Version::new(min_producer),
        min_consumer: Version::new(min_consumer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_def_is_named_as_its_bytes_say() {
        assert_eq!(OP_DEF_NAMES.len(), OP_DEF_RANGES.len());
        for index in 0..OP_DEF_RANGES.len() {
            let id = OpDefId(index as u16);
            let decoded = OpDef::decode(id.bytes()).unwrap();
            assert!(!decoded.name.is_empty());
            assert_eq!(id.name(), decoded.name, "OpDef {index}");
            assert_eq!(id.op_def(), &decoded);
        }
        let past_the_end = OpDefId(OP_DEF_RANGES.len() as u16);
        assert_eq!(
            (past_the_end.name(), past_the_end.op_def().name.as_str()),
            ("", "")
        );
    }

    #[test]
    fn the_op_defs_are_in_name_order() {
        assert!(OP_DEF_NAMES.is_sorted());
        for release in TfRelease::all() {
            assert!(release.facts.ops.is_sorted(), "{}", release.name());
        }
    }

    #[test]
    fn releases_that_define_an_op_alike_give_it_one_id() {
        let [old, new] = ["2.12.1", "2.21.0"].map(|name| TfRelease::get(name).unwrap());
        for name in ["Identity", "TopKV2", "MatMul", "DecodeWebP"] {
            let (a, b) = (old.op_def_id(name), new.op_def_id(name));
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(a == b, a.op_def() == b.op_def(), "{name}");
            }
        }
        // TopKV2's `k` became `Tk`-typed in 2.13.
        assert_ne!(old.op_def_id("TopKV2"), new.op_def_id("TopKV2"));
        assert_eq!(old.op_def_id("Identity"), new.op_def_id("Identity"));
        assert_eq!(old.op_def_id("DecodeWebP"), None);
    }
}
