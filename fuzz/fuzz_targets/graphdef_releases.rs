//! Judging arbitrary bytes in every TensorFlow release: the replayed importer and loader
//! return verdicts or a typed error, never panic, whatever the graph's nodes, edges, attrs and
//! functions say.
//!
//! The reference is the same judgement of the file decoded whole by prost. A GraphDef is read
//! in place, and its verdicts must be those of the graph decoded whole (or both readings
//! refuse the bytes). A SavedModel's `tf.saved_model.load` is made of steps the reference
//! judges apart, on its first meta graph decoded whole: the library's functions
//! ([`ReleaseJudge::judge_saved_model_graph`]) and, for a TensorFlow 1 one, the graph's
//! import ([`ReleaseJudge::judge_graph_def`]). In each release:
//!
//! - TensorFlow 2 (an object graph): a refusal of the functions is the load's too, unless the
//!   load refuses earlier, decoding a function's recorded signature (`NotEncodableError`); a
//!   load that refuses functions that load refuses at decoding or reviving the objects
//!   (`NotEncodableError`, `AttributeError`);
//! - TensorFlow 1: the functions' refusal, or else the import's, is the load's; past both, the
//!   load may still refuse a signature it prunes;
//! - several meta graphs: every release asks for `tags=`.
//!
//! The judge reads a file that starts with a node before `Kind::detect` looks at it: it must
//! take only files that `Kind::detect` takes for a GraphDef.
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
            let report = report.as_ref().unwrap();
            let object_graph = Artifact::open(data)
                .ok()
                .and_then(|artifact| artifact.graphs().first()?.meta_graph.clone())
                .is_some_and(|info| info.has_object_graph);
            let functions = judge.judge_saved_model_graph(&graphs[0]);
            let imported = judge.judge_graph_def(&graphs[0]);
            let steps = functions.verdicts().iter().zip(imported.verdicts());
            for (loaded, (functions, imported)) in report.verdicts().iter().zip(steps) {
                let release = loaded.release().name();
                let load = loaded.errors().first();
                let class = load.map(|error| error.python_class());
                if graphs.len() > 1 {
                    assert!(
                        load.is_some_and(|e| e.message().contains("requires a `tags=`")),
                        "{release}: several meta graphs, {load:?}"
                    );
                } else if object_graph {
                    match functions.errors().first() {
                        Some(refusal) => assert!(
                            load == Some(refusal) || class == Some("NotEncodableError"),
                            "{release}: functions refused with {refusal:?}, the load {load:?}"
                        ),
                        None => assert!(
                            matches!(class, None | Some("NotEncodableError" | "AttributeError")),
                            "{release}: functions loaded, the load {load:?}"
                        ),
                    }
                } else if let Some(refusal) = functions
                    .errors()
                    .first()
                    .or_else(|| imported.errors().first())
                {
                    assert_eq!(load, Some(refusal), "{release}: TensorFlow 1");
                }
            }
        }
        _ => {}
    }
    if let Ok((_, graphs)) = decoded {
        for graph in &graphs {
            let _ = judge.judge_saved_model_graph(graph);
        }
    }
});
