//! Opening arbitrary bytes as a GraphDef or saved_model.pb: kind detection, graph location,
//! full decode and the whole judgement return a value or a typed error, never panic.
#![no_main]

use graphdef_versions::{
    Artifact, Consumer, Kind, Registry, check_file, decode_graphs, rewrite_versions,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = Kind::detect(data);
    let _ = decode_graphs(data);
    let _ = rewrite_versions(data, &Default::default());
    let _ = check_file(
        data,
        &Consumer::tensorflow_graph_def(),
        &Registry::tensorflow(),
    );
    if let Ok(opened) = Artifact::open(data) {
        for graph in opened.graphs() {
            let _ = graph.sniff();
            let _ = graph.ops();
            let _ = graph.decode();
        }
    }
});
