//! SavedModels with several meta graphs, graphs written in pieces, and the full decoder.

use crate::common::{field, graph, versions};
use graphdef_versions::schema::{GraphDef, MetaGraphDef, SavedModel, meta_graph_def::MetaInfoDef};
use graphdef_versions::{
    Artifact, Consumer, DecodeError, Error, Kind, Refusal, Registry, check_file, decode_graphs,
    distinct_ops, rewrite_versions, sniff,
};
use prost::Message;

fn meta_graph(tag: &str, g: GraphDef) -> MetaGraphDef {
    MetaGraphDef {
        meta_info_def: Some(MetaInfoDef {
            tags: vec![tag.into()],
            tensorflow_version: "2.20.0".into(),
            ..Default::default()
        }),
        graph_def: Some(g),
        ..Default::default()
    }
}

fn two_graph_model() -> Vec<u8> {
    SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![
            meta_graph(
                "serve",
                graph(&["Const"], &[], Some(versions(2400, 0, &[]))),
            ),
            meta_graph(
                "train",
                graph(&["TopK"], &["Old"], Some(versions(2400, 0, &[2474]))),
            ),
        ],
    }
    .encode_to_vec()
}

#[test]
fn every_meta_graph_is_judged() {
    let bytes = two_graph_model();
    let verdict = check_file(
        &bytes,
        &Consumer::tensorflow_graph_def(),
        &Registry::tensorflow(),
    )
    .unwrap();
    assert_eq!(verdict.kind, Kind::SavedModel);
    assert_eq!(verdict.graphs.len(), 2);
    assert_eq!(verdict.graphs[0].meta_graph, Some(0));
    assert!(verdict.graphs[0].error.is_none());
    assert_eq!(
        verdict.graphs[1].error.as_ref().unwrap().to_string(),
        "GraphDef disallows consumer version 2474.  Please upgrade TensorFlow: this version is likely buggy."
    );
    let removed: Vec<&str> = verdict.graphs[1]
        .ops
        .removed
        .iter()
        .map(|r| r.op.as_str())
        .collect();
    assert_eq!(removed, ["TopK", "Old"]);
    assert!(!verdict.accepted());
    // An older consumer that is not banned is refused only for the removed ops.
    let older = Consumer::new(
        graphdef_versions::Scheme::GraphDef,
        2473.into(),
        0.into(),
        "2.20.0",
    );
    let verdict = check_file(&bytes, &older, &Registry::tensorflow()).unwrap();
    assert!(matches!(
        verdict.first_error(),
        Some(Error::Refused(Refusal::OpRemoved { .. }))
    ));

    let opened = Artifact::open(&bytes).unwrap();
    let tags: Vec<&[&str]> = opened
        .graphs()
        .iter()
        .map(|g| g.meta_graph.as_ref().unwrap().tags.as_slice())
        .collect();
    assert_eq!(tags, [&["serve"][..], &["train"][..]]);
    assert_eq!(opened.graphs()[1].ops().unwrap(), ["TopK", "Old"]);
}

#[test]
fn rewriting_a_saved_model_rewrites_every_graph() {
    let bytes = two_graph_model();
    let new = versions(2474, 10, &[]);
    let rewritten = rewrite_versions(&bytes, &new).unwrap();
    let decoded = SavedModel::decode(rewritten.as_slice()).unwrap();
    let mut expected = SavedModel::decode(bytes.as_slice()).unwrap();
    for meta_graph in &mut expected.meta_graphs {
        meta_graph.graph_def.as_mut().unwrap().versions = Some(new.clone());
    }
    assert_eq!(decoded, expected);
}

#[test]
fn a_graph_def_written_in_two_pieces_inside_a_meta_graph() {
    // MetaGraphDef.graph_def twice: protobuf merges the two GraphDefs.
    let first = graph(&["Const"], &[], Some(versions(2474, 0, &[])));
    let second = graph(&["Identity"], &[], Some(versions(0, 5, &[9])));
    let mut meta = Vec::new();
    for piece in [&first, &second] {
        meta.extend(field(2, &piece.encode_to_vec()));
    }
    let mut bytes = SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![],
    }
    .encode_to_vec();
    bytes.extend(field(2, &meta));

    let full = SavedModel::decode(bytes.as_slice()).unwrap();
    let merged = full.meta_graphs[0].graph_def.clone().unwrap();
    let opened = Artifact::open(&bytes).unwrap();
    let summary = opened.graphs()[0].sniff().unwrap();
    assert_eq!(Some(summary.versions.clone()), merged.versions);
    assert_eq!(summary.versions, versions(2474, 5, &[9]));
    assert_eq!(summary.nodes, 2);
    assert_eq!(opened.graphs()[0].decode().unwrap(), merged);

    let new = versions(100, 1, &[]);
    let rewritten = rewrite_versions(&bytes, &new).unwrap();
    let after = SavedModel::decode(rewritten.as_slice()).unwrap();
    assert_eq!(
        after.meta_graphs[0].graph_def.as_ref().unwrap().versions,
        Some(new)
    );
    assert_eq!(
        after.meta_graphs[0].graph_def.as_ref().unwrap().node.len(),
        2
    );
}

#[test]
fn the_full_decoder_reports_what_the_sniffer_does_not_read() {
    // A node whose name is not UTF-8: the version sniff does not look, the full decode refuses.
    let bytes = field(1, &field(1, &[0xff]));
    assert_eq!(sniff(&bytes).unwrap().nodes, 1);
    let error = decode_graphs(&bytes).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Decode(DecodeError::Message {
                what: "GraphDef",
                ..
            })
        ),
        "{error}"
    );
    assert!(
        error.to_string().starts_with("cannot decode GraphDef: "),
        "{error}"
    );
    // prost's reason is the source, not repeated in the message.
    let reason = std::error::Error::source(&error)
        .expect("prost's error is kept")
        .to_string();
    assert!(reason.contains("invalid string value"), "{reason}");
    assert!(!error.to_string().contains(&reason), "{error}");
    let opened = Artifact::open(&bytes).unwrap();
    assert!(matches!(
        opened.graphs()[0].decode(),
        Err(Error::Decode(DecodeError::Message { .. }))
    ));
}

#[test]
fn wire_errors_say_where_and_what_to_do() {
    let truncated = sniff(&[0x22, 0x05, 0x08]).unwrap_err();
    assert_eq!(
        truncated.to_string(),
        "truncated input: a length-delimited field at byte 0 needs 5 bytes but only 1 remain; the file is cut short or is not a GraphDef"
    );
    // A field with another wire type than declared is no error: TF's parser skips it.
    assert!(!sniff(&[0x20, 0x01]).unwrap().has_versions);
    let not_utf8 = distinct_ops(&[0x0a, 0x04, 0x12, 0x02, 0xc3, 0x28]).unwrap_err();
    assert_eq!(
        not_utf8.to_string(),
        "NodeDef.op at byte 4 is not valid UTF-8; protobuf strings must be UTF-8"
    );
    let malformed = sniff(&[0x0f]).unwrap_err();
    assert!(
        malformed
            .to_string()
            .starts_with("malformed protobuf at byte 0 while reading GraphDef: "),
        "{malformed}"
    );
    assert!(
        malformed
            .to_string()
            .ends_with("the file is damaged or is not a GraphDef"),
        "{malformed}"
    );
    assert!(
        std::error::Error::source(&malformed).is_some(),
        "prost's error is kept as the source"
    );
}

#[test]
fn other_model_formats_are_told_by_their_magic() {
    use graphdef_versions::ReleaseJudge;
    let tflite = [0x1c, 0, 0, 0, b'T', b'F', b'L', b'3', 0x14, 0, 0x20, 0];
    let elf = [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0];
    for (bytes, what, tool) in [
        (&tflite, "a TensorFlow Lite model", "tflite-opver"),
        (&elf, "a shared library", "se-abi plugin-check"),
    ] {
        let other = Error::Decode(DecodeError::OtherFormat { what, tool });
        assert_eq!(Artifact::open(bytes).err(), Some(other.clone()));
        let consumer = Consumer::tensorflow_graph_def();
        assert_eq!(
            check_file(bytes, &consumer, &Registry::tensorflow()).err(),
            Some(other.clone())
        );
        assert_eq!(
            ReleaseJudge::with_host("vm").judge(bytes).err(),
            Some(other)
        );
    }
    // `TFL3` anywhere else is no TensorFlow Lite model.
    let graph = [0x1a, 4, b'T', b'F', b'L', b'3'];
    assert!(
        !matches!(
            Artifact::open(&graph),
            Err(Error::Decode(DecodeError::OtherFormat { .. }))
        ),
        "{:?}",
        Artifact::open(&graph)
    );
}
