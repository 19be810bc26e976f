//! Judging arbitrary bytes in every TensorFlow release: the replayed importer and loader
//! return verdicts or a typed error, never panic, whatever the graph's nodes, edges, attrs and
//! functions say.
#![no_main]

use graphdef_versions::{ReleaseJudge, decode_graphs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let judge = ReleaseJudge::with_host("fuzz");
    let _ = judge.judge(data);
    if let Ok((_, graphs)) = decode_graphs(data) {
        for graph in &graphs {
            let _ = judge.judge_saved_model_graph(graph);
        }
    }
});
