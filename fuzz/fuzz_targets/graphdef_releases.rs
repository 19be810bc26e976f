//! Judging arbitrary bytes in every TensorFlow release: the replayed importer and loader
//! return verdicts or a typed error, never panic, whatever the graph's nodes, edges, attrs and
//! functions say.
//!
//! The reference is the same judgement of the file decoded whole by prost: a GraphDef is read
//! in place, and its verdicts must be those of the graph decoded whole (or both readings
//! refuse the bytes); a SavedModel's must be those of its first meta graph decoded whole. The
//! judge reads a file that starts with a node before `Kind::detect` looks at it: it must take
//! only files that `Kind::detect` takes for a GraphDef.
#![no_main]

use graphdef_versions::{Artifact, Kind, ReleaseJudge, decode_graphs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let judge = ReleaseJudge::with_host("fuzz");
    let report = judge.judge(data);
    let kind = Kind::detect(data);
    if report.is_ok() {
        assert!(
            kind.is_ok(),
            "judged bytes whose kind is not told: {kind:?}"
        );
    }
    let decoded = decode_graphs(data);
    match (kind, &decoded) {
        (Ok(Kind::GraphDef), Ok((_, graphs))) => assert_eq!(
            report.as_ref().ok(),
            Some(&judge.judge_graph_def(&graphs[0]))
        ),
        (Ok(Kind::GraphDef), Err(_)) => assert!(report.is_err(), "read in place, refused whole"),
        (Ok(Kind::SavedModel), Ok((_, graphs))) if report.is_ok() => {
            let object_graph = Artifact::open(data)
                .ok()
                .and_then(|artifact| artifact.graphs().first()?.meta_graph.clone())
                .is_some_and(|info| info.has_object_graph);
            let whole = if object_graph {
                judge.judge_saved_model_graph(&graphs[0])
            } else {
                judge.judge_graph_def(&graphs[0])
            };
            assert_eq!(report.as_ref().ok(), Some(&whole));
        }
        _ => {}
    }
    if let Ok((_, graphs)) = decoded {
        for graph in &graphs {
            let _ = judge.judge_saved_model_graph(graph);
        }
    }
});
