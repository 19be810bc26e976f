//! Hostile and random bytes: typed errors, never a panic; and the wire-level readers agree
//! with a full prost decode on everything prost accepts.

use crate::common::{data_bytes, field, graph, key, node, varint, versions};
use graphdef_versions::schema::{
    FunctionDef, FunctionDefLibrary, GraphDef, MetaGraphDef, SavedModel, VersionDef,
};
use graphdef_versions::{
    Artifact, Consumer, DecodeError, Error, GraphSummary, Kind, Refusal, Registry, Version,
    WireType, check_file, decode_graphs, distinct_ops, rewrite_graph_def_versions,
    rewrite_versions, scan_ops, sniff,
};
use proptest::prelude::*;
use prost::Message;

/// Runs every reader on `bytes`; none may panic. Returns the sniff result.
fn all_readers(bytes: &[u8]) -> Result<GraphSummary, Error> {
    let _ = distinct_ops(bytes);
    let _ = rewrite_graph_def_versions(bytes, &versions(1, 2, &[3]));
    let _ = Kind::detect(bytes);
    let _ = decode_graphs(bytes);
    let _ = rewrite_versions(bytes, &versions(1, 2, &[3]));
    let _ = check_file(
        bytes,
        &Consumer::tensorflow_graph_def(),
        &Registry::tensorflow(),
    );
    if let Ok(opened) = Artifact::open(bytes) {
        for graph in opened.graphs() {
            let _ = graph.sniff();
            let _ = graph.ops();
            let _ = graph.decode();
        }
    }
    sniff(bytes)
}

#[test]
fn every_truncation_of_a_real_file_is_an_error_or_a_field_boundary() {
    for name in ["small.pb", "with_library.pb", "medium.pb"] {
        let bytes = data_bytes(&format!("graphdef/{name}"));
        let mut errors = 0;
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            match sniff(prefix) {
                // A cut between two top-level fields leaves a shorter, valid graph.
                Ok(_) => assert!(GraphDef::decode(prefix).is_ok(), "{name} cut at {cut}"),
                Err(Error::Decode(DecodeError::Truncated {
                    offset,
                    available,
                    needed,
                    ..
                })) => {
                    assert!(
                        offset < cut && (available as u64) < needed,
                        "{name} cut at {cut}"
                    );
                    errors += 1;
                }
                Err(Error::Decode(DecodeError::Malformed { .. })) => errors += 1,
                Err(other) => panic!("{name} cut at {cut}: {other}"),
            }
            // The op scan reads deeper, and must fail at least as often.
            if sniff(prefix).is_err() {
                assert!(distinct_ops(prefix).is_err(), "{name} cut at {cut}");
            }
        }
        assert!(errors > bytes.len() / 2, "{name}: {errors}");
    }
}

#[test]
fn huge_lengths_are_refused_before_anything_is_allocated() {
    // node = 1, length 2^62.
    let mut bytes = key(1, WireType::LengthDelimited);
    bytes.extend(varint(1 << 62));
    bytes.extend_from_slice(b"tiny");
    let error = sniff(&bytes).unwrap_err();
    assert_eq!(
        error,
        Error::Decode(DecodeError::Truncated {
            what: "a length-delimited field",
            offset: 0,
            needed: 1 << 62,
            available: 4,
            expected: "GraphDef",
        })
    );
    assert!(
        error
            .to_string()
            .contains("needs 4611686018427387904 bytes but only 4 remain")
    );
    // The same inside a VersionDef, inside a node, inside a library function.
    let inner = |outer: u32, payload: Vec<u8>| {
        let mut bytes = key(outer, WireType::LengthDelimited);
        bytes.extend(varint(payload.len() as u64));
        bytes.extend(payload);
        bytes
    };
    let mut lying = key(3, WireType::LengthDelimited);
    lying.extend(varint(u64::MAX));
    assert!(matches!(
        sniff(&inner(4, lying.clone())),
        Err(Error::Decode(DecodeError::Truncated {
            expected: "VersionDef",
            ..
        }))
    ));
    let mut lying_op = key(2, WireType::LengthDelimited);
    lying_op.extend(varint(1 << 40));
    assert!(matches!(
        distinct_ops(&inner(1, lying_op.clone())),
        Err(Error::Decode(DecodeError::Truncated {
            expected: "NodeDef",
            ..
        }))
    ));
    let function = inner(3, lying_op);
    let library = inner(1, function);
    assert!(matches!(
        distinct_ops(&inner(2, library)),
        Err(Error::Decode(DecodeError::Truncated {
            expected: "NodeDef",
            ..
        }))
    ));
    // An 11-byte varint is not a varint.
    let mut overlong = key(4, WireType::LengthDelimited);
    overlong.extend([0xff; 11]);
    assert!(matches!(
        sniff(&overlong),
        Err(Error::Decode(DecodeError::Malformed { offset: 0, .. }))
    ));
}

#[test]
fn known_fields_with_another_wire_type_are_unknown_fields_as_tensorflow_reads_them() {
    // Protobuf's own parsers (upb behind TF 2.21's `GraphDef.FromString`, and C++) skip a known
    // field whose wire type does not match its declaration, as an unknown field. Checked with
    // TF 2.21: a NodeDef whose op is a varint parses as a node with op "", `versions` sent as a
    // varint parses as a graph without versions. prost refuses these; TF does not.
    // versions (4) as a varint: no versions.
    let mut bytes = key(4, WireType::Varint);
    bytes.push(7);
    let summary = sniff(&bytes).unwrap();
    assert!(!summary.has_versions);
    assert_eq!(summary.versions, VersionDef::default());
    assert!(
        GraphDef::decode(bytes.as_slice()).is_err(),
        "prost is stricter than TF"
    );
    // ... and a rewrite adds a real one after it, leaving the unknown field as it was.
    let rewritten = rewrite_graph_def_versions(&bytes, &versions(9, 1, &[])).unwrap();
    assert!(rewritten.starts_with(&bytes));
    assert_eq!(sniff(&rewritten).unwrap().versions, versions(9, 1, &[]));
    // producer (1 in VersionDef) as bytes: skipped, min_consumer still read.
    let mut payload = field(1, &[0]);
    payload.extend([0x10, 3]);
    let summary = sniff(&field(4, &payload)).unwrap();
    assert!(summary.has_versions);
    assert_eq!(summary.versions, versions(0, 3, &[]));
    // bad_consumers (3) as fixed32: skipped; as a varint and packed: both read.
    let mut payload = key(3, WireType::ThirtyTwoBit);
    payload.extend([1, 0, 0, 0]);
    payload.extend([0x18, 5]);
    payload.extend(field(3, &[6, 7]));
    assert_eq!(
        sniff(&field(4, &payload)).unwrap().versions.bad_consumers,
        [5, 6, 7]
    );
    // NodeDef.op as a varint: a node without an op; a later real op still counts.
    let mut node = key(2, WireType::Varint);
    node.push(1);
    assert_eq!(distinct_ops(&field(1, &node)).unwrap(), [""]);
    node.extend(field(2, b"Const"));
    node.extend(key(2, WireType::SixtyFourBit));
    node.extend([0; 8]);
    assert_eq!(distinct_ops(&field(1, &node)).unwrap(), ["Const"]);
    // A node (1) or library (2) as a varint is no node and no library.
    let bytes = [0x08, 0x05, 0x10, 0x01];
    assert_eq!(sniff(&bytes).unwrap().nodes, 0);
    assert_eq!(sniff(&bytes).unwrap().library_functions, 0);
    assert!(distinct_ops(&bytes).unwrap().is_empty());
    // The deprecated GraphDef.version (3) as bytes: no legacy version.
    let mut bytes = key(3, WireType::LengthDelimited);
    bytes.push(0);
    assert_eq!(sniff(&bytes).unwrap().legacy_version, None);
    // A lone end-group tag.
    let bytes = key(9, WireType::EndGroup);
    assert!(matches!(
        sniff(&bytes),
        Err(Error::Decode(DecodeError::Malformed { .. }))
    ));
    // Field number 0.
    assert!(matches!(
        sniff(&[0x02, 0x00]),
        Err(Error::Decode(DecodeError::Malformed { .. }))
    ));
}

#[test]
fn ten_byte_varints_read_as_tensorflow_reads_them() {
    // Checked with TF 2.21's `GraphDef.FromString`: a varint of ten bytes whose last byte is
    // above 1 is read with the bits past the 64th dropped (prost refuses it). So a producer
    // written as ff ff ff ff ff ff ff ff ff 7f is -1, in VersionDef, packed, in an unknown
    // field or inside an unknown group alike.
    let big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    let mut producer = vec![0x08];
    producer.extend(big);
    let bytes = field(4, &producer);
    assert!(
        GraphDef::decode(bytes.as_slice()).is_err(),
        "prost is stricter"
    );
    assert_eq!(sniff(&bytes).unwrap().versions.producer, -1);
    assert_eq!(
        sniff(&field(4, &field(3, &big)))
            .unwrap()
            .versions
            .bad_consumers,
        [-1]
    );
    let mut unknown = key(15, WireType::Varint);
    unknown.extend(big);
    let mut group = key(12, WireType::StartGroup);
    group.extend(&unknown);
    group.extend(key(12, WireType::EndGroup));
    for bytes in [&unknown, &group] {
        assert_eq!(sniff(bytes).unwrap(), GraphSummary::default());
    }
    // Eleven bytes are no varint, for TF too ("Wire format was corrupt").
    let mut eleven = key(15, WireType::Varint);
    eleven.extend([0xff; 10]);
    eleven.push(0x01);
    assert!(matches!(
        sniff(&eleven),
        Err(Error::Decode(DecodeError::Malformed { offset: 0, .. }))
    ));
    // A group that never ends, or ends with another field's tag, is refused.
    let mut open = key(12, WireType::StartGroup);
    open.extend(key(1, WireType::Varint));
    open.push(1);
    assert!(sniff(&open).is_err());
    open.extend(key(13, WireType::EndGroup));
    assert!(sniff(&open).is_err());
}

#[test]
fn unknown_fields_and_groups_are_skipped_like_prost_does() {
    let mut bytes = graph(&["Const"], &[], Some(versions(5, 1, &[2]))).encode_to_vec();
    bytes.extend(key(99, WireType::ThirtyTwoBit));
    bytes.extend([1, 2, 3, 4]);
    bytes.extend(key(100, WireType::StartGroup));
    bytes.extend(key(1, WireType::Varint));
    bytes.push(5);
    bytes.extend(key(100, WireType::EndGroup));
    bytes.extend(key(101, WireType::SixtyFourBit));
    bytes.extend([0; 8]);
    let decoded = GraphDef::decode(bytes.as_slice()).unwrap();
    let summary = sniff(&bytes).unwrap();
    assert_eq!(Some(summary.versions), decoded.versions);
    assert_eq!(distinct_ops(&bytes).unwrap(), ["Const"]);
    // The unknown fields survive a rewrite untouched.
    let rewritten = rewrite_graph_def_versions(&bytes, &versions(9, 9, &[])).unwrap();
    assert!(rewritten.ends_with(&[0; 8]));
    // bad_consumers is packed: versions shrinks from 7 bytes (08 05 10 01 1a 01 02) to 4.
    assert_eq!(rewritten.len(), bytes.len() - 3);
}

/// `fuzz/run.sh` once stopped on this input: prost 0.14.4 decodes it, TensorFlow does not.
#[test]
fn a_map_field_with_a_group_tag_is_refused_as_tensorflow_refuses_it() {
    let bytes = data_bytes("findings/graphdef_sniff-prost-accepts-tf-refuses.bin");
    // `graphdef/medium.pb` with a few bytes changed. Byte 17185 is the tag of a NodeDef.attr
    // entry, field 5, written as "start group" (2b) instead of "length-delimited" (2a): prost
    // up to 0.14.5 read map fields without looking at the wire type.
    assert_eq!(bytes[17185], 0x2b);
    // TF 2.21's `GraphDef.FromString` (upb) reads field 5 with that tag as an unknown group,
    // finds no end-group tag for it and refuses the bytes ("Wire format was corrupt"). The op
    // scan reads every NodeDef and refuses them there too.
    let error = distinct_ops(&bytes).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Decode(DecodeError::Malformed {
                offset: 17185,
                expected: "NodeDef",
                ..
            })
        ),
        "{error:?}"
    );
    assert!(
        check_file(
            &bytes,
            &Consumer::tensorflow_graph_def(),
            &Registry::tensorflow()
        )
        .is_err()
    );
    // The sniffer steps over whole nodes, so the versions still read, as in the file it came
    // from; they are not the problem.
    let summary = sniff(&bytes).unwrap();
    let original = sniff(&data_bytes("graphdef/medium.pb")).unwrap();
    assert_eq!(summary.nodes, 304);
    assert_eq!(summary.versions, original.versions);
}

/// The op scan goes in wire order: a library before some nodes is scanned before them.
#[test]
fn ops_are_scanned_in_wire_order_even_with_a_library_between_nodes() {
    // Protobuf merges a message written in pieces: nodes, then the library, then more nodes.
    let library = graph(&[], &["X", "Y"], None);
    let mut bytes = graph(&["A"], &[], None).encode_to_vec();
    bytes.extend(library.encode_to_vec());
    bytes.extend(graph(&["B"], &[], None).encode_to_vec());
    let mut sites = Vec::new();
    scan_ops(&bytes, |site| sites.push((site.op, site.in_library))).unwrap();
    assert_eq!(
        sites,
        [("A", false), ("X", true), ("Y", true), ("B", false)]
    );
    // The fuzzer's input that showed it: its graph's nodes are each scanned once.
    let bytes = data_bytes("findings/graphdef_sniff-library-before-nodes.bin");
    let mut sites = Vec::new();
    scan_ops(&bytes, |site| sites.push(site)).unwrap();
    let first_library = sites.iter().position(|site| site.in_library).unwrap();
    assert!(
        sites[first_library..].iter().any(|site| !site.in_library),
        "some graph nodes come after the library"
    );
    let graph_sites = sites.iter().filter(|s| !s.in_library).count();
    assert_eq!(graph_sites, sniff(&bytes).unwrap().nodes);
}

/// A graph whose tensors hold NaN doubles reads and rewrites like any other.
#[test]
fn nan_values_do_not_disturb_the_readers() {
    let bytes = data_bytes("findings/graphdef_sniff-nan-in-packed-double.bin");
    let decoded = GraphDef::decode(bytes.as_slice()).unwrap();
    let summary = sniff(&bytes).unwrap();
    assert_eq!(summary.nodes, decoded.node.len());
    let ops = distinct_ops(&bytes).unwrap();
    assert!(ops.contains(&"MatMul"), "{ops:?}");
    let rewritten = rewrite_graph_def_versions(&bytes, &versions(9, 1, &[])).unwrap();
    let read_back = GraphDef::decode(rewritten.as_slice()).unwrap();
    assert_eq!(read_back.versions, Some(versions(9, 1, &[])));
    assert_eq!(read_back.node.len(), decoded.node.len());
}

#[test]
fn op_names_must_be_utf8() {
    let bytes = field(1, &field(2, &[0xc3, 0x28]));
    assert_eq!(
        distinct_ops(&bytes).unwrap_err(),
        Error::Decode(DecodeError::NotUtf8 {
            what: "NodeDef.op",
            offset: 4
        })
    );
    assert!(GraphDef::decode(bytes.as_slice()).is_err(), "prost agrees");
    // The sniffer does not look inside nodes, so the version check still works.
    assert_eq!(sniff(&bytes).unwrap().nodes, 1);
}

#[test]
fn pieces_of_a_graph_merge_like_protobuf() {
    // Protobuf lets a message be written in pieces; concatenation merges them.
    let first = graph(&["Const"], &[], Some(versions(10, 3, &[1]))).encode_to_vec();
    let second = graph(
        &["TopK"],
        &["Old"],
        Some(VersionDef {
            producer: 0,
            min_consumer: 7,
            bad_consumers: vec![2],
        }),
    )
    .encode_to_vec();
    let whole: Vec<u8> = first.iter().chain(&second).copied().collect();
    let decoded = GraphDef::decode(whole.as_slice()).unwrap();
    let summary = sniff(&whole).unwrap();
    // producer 0 is not written, so the first piece's 10 stays.
    assert_eq!(summary.versions, versions(10, 7, &[1, 2]));
    assert_eq!(Some(summary.versions), decoded.versions);
    assert_eq!(summary.nodes, 2);
    assert_eq!(distinct_ops(&whole).unwrap(), ["Const", "TopK", "Old"]);
    // Rewriting leaves one versions field, so the merged graph has exactly the new one.
    let new = versions(2474, 0, &[]);
    let rewritten = rewrite_graph_def_versions(&whole, &new).unwrap();
    assert_eq!(
        GraphDef::decode(rewritten.as_slice()).unwrap().versions,
        Some(new)
    );
}

#[test]
fn saved_model_detection_edge_cases() {
    // Empty input is an empty GraphDef (producer 0: from before versioning).
    assert_eq!(Kind::detect(&[]).unwrap(), Kind::GraphDef);
    assert_eq!(sniff(&[]).unwrap().versions, VersionDef::default());
    // A GraphDef with only a library.
    let library_only = GraphDef {
        library: Some(FunctionDefLibrary {
            function: vec![FunctionDef {
                node_def: vec![node("a", "Const")],
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec();
    assert_eq!(Kind::detect(&library_only).unwrap(), Kind::GraphDef);
    // A SavedModel whose schema version is 0 (not written): only field 2 on the wire.
    let saved = SavedModel {
        saved_model_schema_version: 0,
        meta_graphs: vec![MetaGraphDef {
            meta_info_def: None,
            graph_def: Some(graph(&["Const"], &[], Some(versions(2474, 0, &[])))),
            ..Default::default()
        }],
    }
    .encode_to_vec();
    assert_eq!(Kind::detect(&saved).unwrap(), Kind::SavedModel);
    assert_eq!(
        Artifact::open_as(Kind::GraphDef, &saved).unwrap().kind(),
        Kind::GraphDef
    );
    // A SavedModel without meta graphs has nothing to check.
    let empty = SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![],
    }
    .encode_to_vec();
    assert!(matches!(
        Artifact::open(&empty),
        Err(Error::Decode(DecodeError::UnknownArtifact { .. }))
    ));
    // Mixed evidence.
    let mut mixed = SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![],
    }
    .encode_to_vec();
    mixed.extend(graph(&["Const"], &[], Some(versions(1, 0, &[]))).encode_to_vec());
    assert!(matches!(
        Kind::detect(&mixed),
        Err(Error::Decode(DecodeError::UnknownArtifact { .. }))
    ));
    // A known field number with a wire type neither message allows.
    let mut odd = key(3, WireType::SixtyFourBit);
    odd.extend([0; 8]);
    let error = Kind::detect(&odd).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("not a GraphDef or SavedModel"),
        "{error}"
    );
}

#[test]
fn judge_reports_every_removed_op_and_tensorflows_first() {
    let bytes = graph(
        &["TopK", "Const", "TopK"],
        &["BatchFFT", "MatrixExponential"],
        Some(versions(20, 0, &[])),
    )
    .encode_to_vec();
    let verdict = check_file(
        &bytes,
        &Consumer::tensorflow_graph_def(),
        &Registry::tensorflow(),
    )
    .unwrap();
    let judged = &verdict.graphs[0];
    let removed: Vec<&str> = judged.ops.removed.iter().map(|r| r.op.as_str()).collect();
    assert_eq!(removed, ["TopK", "BatchFFT"]);
    assert_eq!(judged.ops.warnings.len(), 1);
    assert_eq!(
        judged.ops.warnings[0].to_string(),
        "Op MatrixExponential is deprecated. It will cease to work in GraphDef version 27. Use Python implementation tf.linalg.matrix_exponential instead.."
    );
    assert_eq!(
        judged.ops.removed[1].to_string(),
        "Op BatchFFT is not available in GraphDef version 20. It has been removed in version 15. Use FFT."
    );
    assert!(!verdict.accepted());
    // A version problem is reported before any op problem.
    let old = graph(&["TopK"], &[], Some(versions(20, 3000, &[]))).encode_to_vec();
    let verdict = check_file(
        &old,
        &Consumer::tensorflow_graph_def(),
        &Registry::tensorflow(),
    )
    .unwrap();
    assert!(matches!(
        verdict.first_error(),
        Some(Error::Refused(Refusal::ConsumerTooOld { .. }))
    ));
}

#[test]
fn registries_refuse_duplicates_and_hold_your_own_ops() {
    let mut registry = Registry::empty();
    assert!(registry.is_empty());
    registry
        .register(graphdef_versions::DeprecatedOp::new(
            "MyOp",
            40.into(),
            "Use MyOpV2",
        ))
        .unwrap();
    let error = registry
        .register(graphdef_versions::DeprecatedOp::new(
            "MyOp",
            41.into(),
            "again",
        ))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "op MyOp is already registered as deprecated; register each op once"
    );
    assert_eq!(registry.len(), 1);
    assert_eq!(registry.latest_version(), Some(40.into()));
    let judged = registry.assess(["MyOp"], 40.into());
    assert_eq!(
        judged.first_error().unwrap().to_string(),
        "Op MyOp is not available in GraphDef version 40. It has been removed in version 40. Use MyOpV2."
    );
    assert!(registry.assess(["MyOp"], 39.into()).first_error().is_none());
    assert!(Registry::tensorflow().get("Conv2D").is_none());
}

/// Lookups are a hash probe: every registered name is found, and nothing else, whatever the
/// names look like (short, long, sharing their first and last bytes, empty).
#[test]
fn registry_lookups_find_exactly_the_registered_ops() {
    let tf = Registry::tensorflow();
    for op in graphdef_versions::TF_DEPRECATED_OPS {
        assert_eq!(tf.get(&op.name), Some(op), "{}", op.name);
        // Near misses: a byte more, a byte less, one byte changed in the middle.
        let name = op.name.as_ref();
        for near in [
            format!("{name}X"),
            name[..name.len() - 1].to_string(),
            format!(
                "{}#{}",
                &name[..name.len() / 2],
                &name[name.len() / 2 + 1..]
            ),
        ] {
            assert!(tf.get(&near).is_none(), "{near}");
        }
    }
    for absent in [
        "",
        "T",
        "To",
        "Top",
        "TopKV2",
        "Const",
        "TensorArrayV3",
        "Placeholder",
    ] {
        assert!(tf.get(absent).is_none(), "{absent}");
    }
    // Names that agree on their length and first and last eight bytes differ only in the
    // middle: the comparison after the hash tells them apart.
    let mut registry = Registry::empty();
    let names: Vec<String> = (0..300)
        .map(|i| format!("SameStart_{i:03}_SameEnds"))
        .chain((0..4).map(|i| "x".repeat(i)))
        .collect();
    for (i, name) in names.iter().enumerate() {
        registry
            .register(graphdef_versions::DeprecatedOp::new(
                name.clone(),
                Version::new(i as i32),
                "gone",
            ))
            .unwrap();
    }
    assert_eq!(registry.len(), names.len());
    for (i, name) in names.iter().enumerate() {
        assert_eq!(registry.get(name).unwrap().version, Version::new(i as i32));
    }
    assert!(registry.get("SameStart_300_SameEnds").is_none());
    assert!(registry.get("xxxx").is_none());
}

proptest! {
    /// Whatever the registry holds, a lookup answers as a search through its ops would.
    #[test]
    fn registry_lookups_agree_with_a_linear_search(
        names in prop::collection::btree_set("[A-Za-z0-9_]{0,24}", 0..80),
        probes in prop::collection::vec("[A-Za-z0-9_]{0,24}", 0..40),
    ) {
        let mut registry = Registry::empty();
        for name in &names {
            registry.register(graphdef_versions::DeprecatedOp::new(name.clone(), Version::new(1), "")).unwrap();
        }
        for probe in names.iter().chain(&probes) {
            let expected = registry.iter().find(|op| op.name == probe.as_str());
            prop_assert_eq!(registry.get(probe), expected);
        }
    }
}

#[test]
fn op_names_are_checked_even_when_a_like_name_came_before() {
    // "Const" and these five bytes share length, first and last byte: the scan remembers
    // "Const" as valid text, but must still refuse the other.
    let mut bytes = field(1, &field(2, b"Const"));
    bytes.extend(field(1, &field(2, &[b'C', 0xff, 0xfe, 0xfd, b't'])));
    assert!(matches!(
        distinct_ops(&bytes),
        Err(Error::Decode(DecodeError::NotUtf8 {
            what: "NodeDef.op",
            ..
        }))
    ));
    // Repeated names read the same, in graph and library alike.
    let mut ops = Vec::new();
    let repeated = graph(&["Const", "Relu", "Const"], &["Relu", "Const"], None).encode_to_vec();
    scan_ops(&repeated, |site| ops.push((site.op, site.in_library))).unwrap();
    assert_eq!(
        ops,
        [
            ("Const", false),
            ("Relu", false),
            ("Const", false),
            ("Relu", true),
            ("Const", true)
        ]
    );
}

fn arbitrary_graph() -> impl Strategy<Value = GraphDef> {
    let op = prop::sample::select(vec![
        "Const",
        "TopK",
        "Identity",
        "Old",
        "PlaceholderV2",
        "MatMul",
        "ünïcode",
    ]);
    (
        prop::collection::vec(op.clone(), 0..12),
        prop::collection::vec(op, 0..6),
        prop::option::of((
            any::<i32>(),
            any::<i32>(),
            prop::collection::vec(any::<i32>(), 0..5),
        )),
        prop::option::of(any::<i32>()),
    )
        .prop_map(|(ops, library, v, legacy)| {
            let mut g = graph(&ops, &library, v.map(|(p, c, b)| versions(p, c, &b)));
            if let Some(legacy) = legacy {
                #[allow(deprecated)]
                {
                    g.version = legacy;
                }
            }
            g
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random bytes: every reader returns, none panics; whatever prost decodes, the sniffer
    /// reads the same way.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let sniffed = all_readers(&bytes);
        if let Ok(decoded) = GraphDef::decode(bytes.as_slice()) {
            let summary = sniffed.expect("prost accepted it, so must the sniffer");
            prop_assert_eq!(summary.versions, decoded.versions.clone().unwrap_or_default());
            prop_assert_eq!(summary.nodes, decoded.node.len());
        }
    }

    /// Random mutations of a real graph: same.
    #[test]
    fn mutated_real_graphs_never_panic(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let mut bytes = data_bytes("graphdef/with_library.pb");
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let sniffed = all_readers(&bytes);
        if let Ok(decoded) = GraphDef::decode(bytes.as_slice()) {
            let summary = sniffed.expect("prost accepted it, so must the sniffer");
            prop_assert_eq!(summary.versions, decoded.versions.unwrap_or_default());
        }
    }

    /// On any valid graph, sniff and scan see what a full decode sees.
    #[test]
    fn sniff_and_scan_agree_with_prost(g in arbitrary_graph()) {
        let bytes = g.encode_to_vec();
        let summary = sniff(&bytes).unwrap();
        prop_assert_eq!(&summary.versions, &g.versions.clone().unwrap_or_default());
        prop_assert_eq!(summary.has_versions, g.versions.is_some());
        prop_assert_eq!(summary.nodes, g.node.len());
        #[allow(deprecated)]
        let legacy = (g.version != 0).then_some(g.version);
        prop_assert_eq!(summary.legacy_version, legacy);
        let mut scanned = Vec::new();
        scan_ops(&bytes, |site| scanned.push((site.op.to_string(), site.in_library))).unwrap();
        let expected: Vec<(String, bool)> = g.node.iter().map(|n| (n.op.clone(), false))
            .chain(g.library.iter().flat_map(|l| &l.function).flat_map(|f| &f.node_def).map(|n| (n.op.clone(), true)))
            .collect();
        prop_assert_eq!(scanned, expected);
        prop_assert_eq!(Kind::detect(&bytes).unwrap(), Kind::GraphDef);
    }

    /// Rewriting gives exactly the graph with the new versions, and is undone by rewriting back.
    #[test]
    fn rewrite_replaces_only_versions(g in arbitrary_graph(), p in any::<i32>(), c in any::<i32>(), b in prop::collection::vec(any::<i32>(), 0..4)) {
        let bytes = g.encode_to_vec();
        let new = versions(p, c, &b);
        let rewritten = rewrite_graph_def_versions(&bytes, &new).unwrap();
        let mut expected = g.clone();
        expected.versions = Some(new);
        prop_assert_eq!(GraphDef::decode(rewritten.as_slice()).unwrap(), expected);
        if let Some(original) = &g.versions {
            prop_assert_eq!(rewrite_graph_def_versions(&rewritten, original).unwrap(), bytes);
        }
    }
}

/// `fuzz/run.sh` stopped on this input (`graphdef_releases`): the in-place reading of nodes
/// took a field key of more than 32 bits, which prost refuses ("invalid key value").
#[test]
fn an_attr_key_of_more_than_32_bits_is_refused_as_prost_refuses_it() {
    let bytes = data_bytes("findings/graphdef_releases-attr-key-over-32-bits.bin");
    // The first node's first attr entry starts with the 5-byte key f8 fa 9b 8b 79.
    assert_eq!(bytes[0x22..0x27], [0xf8, 0xfa, 0x9b, 0x8b, 0x79]);
    let whole = GraphDef::decode(bytes.as_slice()).unwrap_err();
    assert!(whole.to_string().contains("invalid key value"), "{whole}");
    let judged = graphdef_versions::ReleaseJudge::with_host("test").judge(&bytes);
    assert!(
        matches!(judged, Err(Error::Decode(_))),
        "read as prost reads it: {judged:?}"
    );
}

/// `fuzz/run.sh` stopped on this input (`graphdef_releases`): a NodeDef's attr field (5)
/// written as a varint. prost reads a map entry's length without looking at the wire type
/// and refuses the bytes; the in-place reading had skipped the field as unknown.
#[test]
fn an_attr_field_written_as_a_varint_is_refused_as_prost_refuses_it() {
    let bytes = data_bytes("findings/graphdef_releases-attr-as-varint.bin");
    // After the name "c" and the op "Const", field 7 varints, then 0x28: field 5, varint.
    assert_eq!(bytes[5..12], *b"\x12\x05Const");
    assert_eq!(bytes[0x18], 0x28);
    assert!(GraphDef::decode(bytes.as_slice()).is_err());
    let judged = graphdef_versions::ReleaseJudge::with_host("test").judge(&bytes);
    assert!(
        matches!(judged, Err(Error::Decode(_))),
        "read as prost reads it: {judged:?}"
    );
}
