//! Judging arbitrary bytes in every TensorFlow release: the replayed importer and loader
//! return verdicts or a typed error, never panic, whatever the graph's nodes, edges, attrs and
//! functions say. A GraphDef is read in place; the reference is the same judgement of the
//! graph decoded whole by prost: both verdicts are equal, or both readings refuse the bytes.
#![no_main]

use graphdef_versions::{Kind, ReleaseJudge, decode_graphs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let judge = ReleaseJudge::with_host("fuzz");
    let report = judge.judge(data);
    let decoded = decode_graphs(data);
    if Kind::detect(data) == Ok(Kind::GraphDef) {
        match &decoded {
            Ok((_, graphs)) => assert_eq!(
                report.as_ref().ok(),
                Some(&judge.judge_graph_def(&graphs[0]))
            ),
            Err(_) => assert!(report.is_err(), "read in place, refused whole"),
        }
    }
    if let Ok((_, graphs)) = decoded {
        for graph in &graphs {
            let _ = judge.judge_saved_model_graph(graph);
        }
    }
});
