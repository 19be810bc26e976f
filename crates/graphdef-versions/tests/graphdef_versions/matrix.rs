//! The check, producer stamping and import merging, over whole ranges of versions.

use crate::common::{graph, versions};
use graphdef_versions::schema::{BundleHeaderProto, VersionDef};
use graphdef_versions::{
    CHECKPOINT, Consumer, DecodeError, Error, GRAPH_DEF, Producer, Refusal, Registry, Scheme,
    Version, check_bundle_header, merge_on_import,
};
use proptest::prelude::*;
use prost::Message;

const SCHEMES: [Scheme; 2] = [Scheme::GraphDef, Scheme::Checkpoint];

/// Every producer x min_consumer x bad_consumers x consumer x min_producer in a small window:
/// the verdict follows the three rules, and when several rules fail, the first in TensorFlow's
/// order (producer, min_consumer, bad_consumers) is the one reported.
#[test]
fn producer_by_consumer_matrix() {
    let mut accepted = 0;
    let mut rejected = 0;
    for scheme in SCHEMES {
        for consumer in 0..=8 {
            for min_producer in 0..=consumer {
                let reader = Consumer::new(
                    scheme,
                    Version::new(consumer),
                    Version::new(min_producer),
                    "9.9.9",
                );
                for producer in -1..=9 {
                    for min_consumer in -1..=9 {
                        for bad in [
                            vec![],
                            vec![consumer],
                            vec![consumer - 1, consumer + 1],
                            vec![3, consumer],
                        ] {
                            let data = versions(producer, min_consumer, &bad);
                            let verdict = reader.check(&data);
                            let too_old = producer < min_producer;
                            let too_new = min_consumer > consumer;
                            let banned = bad.contains(&consumer);
                            match verdict {
                                Ok(()) => {
                                    assert!(!too_old && !too_new && !banned, "{data:?} {reader:?}");
                                    accepted += 1;
                                }
                                Err(Error::Refused(Refusal::ProducerTooOld {
                                    producer: p,
                                    min_producer: m,
                                    ..
                                })) => {
                                    assert!(too_old);
                                    assert_eq!((p.get(), m.get()), (producer, min_producer));
                                    rejected += 1;
                                }
                                Err(Error::Refused(Refusal::ConsumerTooOld {
                                    min_consumer: c,
                                    consumer: n,
                                    ..
                                })) => {
                                    assert!(!too_old && too_new);
                                    assert_eq!((c.get(), n.get()), (min_consumer, consumer));
                                    rejected += 1;
                                }
                                Err(Error::Refused(Refusal::BadConsumer {
                                    consumer: b, ..
                                })) => {
                                    assert!(!too_old && !too_new && banned);
                                    assert_eq!(b.get(), consumer);
                                    rejected += 1;
                                }
                                Err(other) => panic!("unexpected {other:?}"),
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(accepted > 1000 && rejected > 1000, "{accepted} {rejected}");
}

/// A producer newer than the consumer is fine on its own: only min_consumer can exclude old
/// consumers.
#[test]
fn newer_producer_alone_is_accepted() {
    let tf = Consumer::tensorflow_graph_def();
    assert_eq!(tf.check(&versions(i32::MAX, 0, &[])), Ok(()));
    assert_eq!(tf.check(&versions(3000, 2474, &[])), Ok(()));
}

#[test]
fn graph_def_messages_are_tensorflows() {
    let tf = Consumer::tensorflow_graph_def();
    let message = |v: VersionDef| tf.check(&v).unwrap_err().to_string();
    assert_eq!(
        message(versions(-1, 0, &[])),
        "GraphDef producer version -1 below min producer 0 supported by TensorFlow 2.21.0.  Please regenerate your graph."
    );
    assert_eq!(
        message(versions(0, 2475, &[])),
        "GraphDef min consumer version 2475 above current version 2474 for TensorFlow 2.21.0.  Please upgrade TensorFlow."
    );
    assert_eq!(
        message(versions(0, 0, &[2474])),
        "GraphDef disallows consumer version 2474.  Please upgrade TensorFlow: this version is likely buggy."
    );
    let misordered = Consumer::new(Scheme::GraphDef, Version::new(3), Version::new(5), "x");
    assert_eq!(
        misordered
            .check(&versions(9, 0, &[]))
            .unwrap_err()
            .to_string(),
        "GraphDef version check has consumer 3 < min_producer 5."
    );
    // The misconfiguration is reported before anything about the data.
    assert!(matches!(
        misordered.check(&versions(-9, 99, &[3])),
        Err(Error::Refused(Refusal::ConsumerBelowMinProducer { .. }))
    ));
}

#[test]
fn checkpoint_messages_say_checkpoint() {
    let tf = Consumer::tensorflow_checkpoint();
    assert_eq!(
        (tf.version(), tf.min_producer()),
        (CHECKPOINT.current, CHECKPOINT.min_producer)
    );
    let header = |v: VersionDef| {
        BundleHeaderProto {
            num_shards: 1,
            endianness: 0,
            version: Some(v),
        }
        .encode_to_vec()
    };
    let message = |v: VersionDef| {
        check_bundle_header(&header(v), &tf)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        message(versions(-1, 0, &[])),
        "Checkpoint producer version -1 below min producer 0 supported by TensorFlow 2.21.0.  Please regenerate your checkpoint."
    );
    assert_eq!(
        message(versions(1, 2, &[])),
        "Checkpoint min consumer version 2 above current version 1 for TensorFlow 2.21.0.  Please upgrade TensorFlow."
    );
    assert_eq!(
        message(versions(1, 0, &[1])),
        "Checkpoint disallows consumer version 1.  Please upgrade TensorFlow: this version is likely buggy."
    );
    let ok = check_bundle_header(&header(versions(1, 0, &[])), &tf).unwrap();
    assert_eq!(ok.num_shards, 1);
    // A header without a version reads as producer 0, which TensorFlow 2.21 still reads.
    assert!(check_bundle_header(&[], &tf).is_ok());
    assert!(matches!(
        check_bundle_header(&[0x1a, 0x05, 0x08], &tf),
        Err(Error::Decode(DecodeError::Message {
            what: "BundleHeaderProto",
            ..
        }))
    ));
    // The two schemes are independent: a checkpoint consumer reads checkpoint version 1 while a
    // GraphDef consumer at 2474 would not care about it.
    assert_ne!(CHECKPOINT.current, GRAPH_DEF.current);
}

#[test]
fn producers_stamp_their_versions_and_bans() {
    let plain = Producer::tensorflow_graph_def();
    assert_eq!(plain.stamp(), versions(2474, 0, &[]));
    assert_eq!(plain.scheme(), Scheme::GraphDef);
    let banning = Producer::new(GRAPH_DEF)
        .ban(Version::new(2470))
        .ban_when_ops(Version::new(2460), ["FusedBatchNorm"])
        .ban_when_ops(Version::new(2450), ["Conv2D", "DepthwiseConv2dNative"])
        .ban(Version::new(2470));
    assert_eq!(banning.bans().len(), 4);
    assert_eq!(banning.stamp(), versions(2474, 0, &[2470]));
    assert_eq!(
        banning.stamp_for_ops(["Const", "Identity"]).unwrap(),
        versions(2474, 0, &[2470])
    );
    assert_eq!(
        banning
            .stamp_for_ops(["Const", "DepthwiseConv2dNative"])
            .unwrap(),
        versions(2474, 0, &[2450, 2470])
    );
    assert_eq!(
        banning.stamp_for_ops(["FusedBatchNorm", "Conv2D"]).unwrap(),
        versions(2474, 0, &[2450, 2460, 2470])
    );
    // The banned consumer now refuses exactly the data that uses the op.
    let banned = Consumer::new(
        Scheme::GraphDef,
        Version::new(2460),
        Version::new(0),
        "2.20.0",
    );
    assert!(
        banned
            .check(&banning.stamp_for_ops(["Const"]).unwrap())
            .is_ok()
    );
    assert!(matches!(
        banned.check(&banning.stamp_for_ops(["FusedBatchNorm"]).unwrap()),
        Err(Error::Refused(Refusal::BadConsumer { .. }))
    ));
    let strict = Producer::new(graphdef_versions::Constants {
        min_consumer: Version::new(12),
        ..GRAPH_DEF
    });
    assert_eq!(strict.stamp().min_consumer, 12);
}

#[test]
fn producers_refuse_to_write_ops_removed_at_their_version() {
    let tf = Producer::tensorflow_graph_def();
    assert_eq!(tf.version(), GRAPH_DEF.current);
    // TopK was removed at 7: TensorFlow 2.21 no longer writes it, in its own words.
    let error = tf.stamp_for_ops(["Const", "TopK", "BatchSvd"]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Op TopK is not available in GraphDef version 2474. It has been removed in version 7. Use TopKV2 instead."
    );
    assert!(tf.stamp_for_ops(["Const", "TopKV2"]).is_ok());
    // A producer still below an op's deprecation version writes it (consumers will warn).
    let old = Producer::new(graphdef_versions::Constants {
        current: Version::new(6),
        ..GRAPH_DEF
    })
    .with_deprecations(Registry::tensorflow());
    assert_eq!(old.stamp_for_ops(["TopK"]).unwrap().producer, 6);
    // At exactly the deprecation version, it is gone.
    let at = Producer::new(graphdef_versions::Constants {
        current: Version::new(7),
        ..GRAPH_DEF
    })
    .with_deprecations(Registry::tensorflow());
    assert!(matches!(
        at.stamp_for_ops(["TopK"]),
        Err(Error::Refused(Refusal::OpRemoved { .. }))
    ));
    // A producer without a registry knows no deprecation.
    assert!(Producer::new(GRAPH_DEF).stamp_for_ops(["TopK"]).is_ok());
    // Whole graphs: function bodies count; a refused graph keeps its old versions.
    let mut in_function = graph(&["Const"], &["TopK"], None);
    assert!(tf.stamp_graph(&mut in_function).is_err());
    assert_eq!(in_function.versions, None);
    // A graph with a function library needs a consumer of at least 12, as TensorFlow's
    // graph builder says when it adds a function (real files show 12: `with_library.pb`).
    let mut fine = graph(&["Const"], &["Identity"], Some(versions(1, 1, &[])));
    tf.stamp_graph(&mut fine).unwrap();
    assert_eq!(fine.versions, Some(versions(2474, 12, &[])));
    let mut no_library = graph(&["Const"], &[], None);
    tf.stamp_graph(&mut no_library).unwrap();
    assert_eq!(no_library.versions, Some(versions(2474, 0, &[])));
    // A producer whose own min_consumer is above 12 keeps it.
    let strict = Producer::new(graphdef_versions::Constants {
        min_consumer: Version::new(30),
        ..GRAPH_DEF
    });
    let mut with_library = graph(&["Const"], &["Identity"], None);
    strict.stamp_graph(&mut with_library).unwrap();
    assert_eq!(with_library.versions, Some(versions(2474, 30, &[])));
}

#[test]
fn merge_keeps_the_oldest_producer_and_strictest_consumer() {
    assert_eq!(
        merge_on_import(&versions(2474, 0, &[]), &versions(26, 12, &[30, 5])),
        versions(26, 12, &[5, 30])
    );
    assert_eq!(
        merge_on_import(&versions(10, 20, &[7, 3]), &versions(11, -5, &[3])),
        versions(10, 20, &[3, 7])
    );
    // TensorFlow rebuilds the list only when the imported graph bans someone: otherwise the
    // graph's own list stays as it was, in its order and with its repeats.
    assert_eq!(
        merge_on_import(&versions(10, 20, &[7, 3, 7]), &versions(11, 0, &[])),
        versions(10, 20, &[7, 3, 7])
    );
    assert_eq!(
        merge_on_import(&versions(10, 20, &[7, 3, 7]), &versions(11, 0, &[9])),
        versions(10, 20, &[3, 7, 9])
    );
}

/// A VersionDef as TensorFlow writes one: `bad_consumers` sorted, without repeats.
fn version_def() -> impl Strategy<Value = VersionDef> {
    (
        any::<i32>(),
        any::<i32>(),
        prop::collection::btree_set(-5i32..50, 0..6),
    )
        .prop_map(|(p, c, b)| versions(p, c, &b.into_iter().collect::<Vec<_>>()))
}

proptest! {
    /// Importing graphs as TensorFlow writes them is order independent, and importing twice
    /// changes nothing.
    #[test]
    fn merge_is_a_semilattice(a in version_def(), b in version_def(), c in version_def()) {
        prop_assert_eq!(merge_on_import(&a, &b), merge_on_import(&b, &a));
        prop_assert_eq!(merge_on_import(&merge_on_import(&a, &b), &c), merge_on_import(&a, &merge_on_import(&b, &c)));
        let ab = merge_on_import(&a, &b);
        prop_assert_eq!(merge_on_import(&ab, &ab), ab);
    }

    /// Whatever a consumer refuses in either part, it refuses in the merged graph.
    #[test]
    fn merged_graphs_are_never_more_permissive(a in version_def(), b in version_def(), consumer in -5i32..50, min_producer in -5i32..50) {
        let reader = Consumer::new(Scheme::GraphDef, Version::new(consumer.max(min_producer)), Version::new(min_producer), "x");
        let merged = merge_on_import(&a, &b);
        if reader.check(&a).is_err() || reader.check(&b).is_err() {
            prop_assert!(reader.check(&merged).is_err());
        }
    }
}

#[test]
fn versions_parse_as_tensorflow_stores_them() {
    assert_eq!("2474".parse::<Version>(), Ok(Version::new(2474)));
    assert_eq!("-1".parse::<Version>(), Ok(Version::new(-1)));
    assert_eq!("2147483647".parse::<Version>(), Ok(Version::new(i32::MAX)));
    for bad in ["", "many", "2147483648", "1.5", " 7", "0x10"] {
        let error = bad.parse::<Version>().unwrap_err();
        assert_eq!(
            error,
            Error::InvalidVersion {
                input: bad.to_string()
            }
        );
        assert!(
            error.to_string().contains("write it as a whole number"),
            "{error}"
        );
    }
    // Long input is cut in the error, not copied whole.
    let long = "9".repeat(1000);
    assert!(matches!(
        long.parse::<Version>(),
        Err(Error::InvalidVersion { input }) if input.len() == 32
    ));
    for version in [i32::MIN, -1, 0, 2474, i32::MAX] {
        let version = Version::new(version);
        assert_eq!(version.to_string().parse::<Version>(), Ok(version));
    }
}
