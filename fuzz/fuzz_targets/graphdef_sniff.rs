//! The wire-level GraphDef readers (version sniff, op scan, VersionDef rewrite) on arbitrary
//! bytes: a value or a typed error, never a panic; and on anything prost decodes as a GraphDef,
//! the sniffer and the op scan must read what prost reads.
#![no_main]

use graphdef_versions::schema::{GraphDef, VersionDef};
use graphdef_versions::{rewrite_graph_def_versions, scan_ops, sniff};
use libfuzzer_sys::fuzz_target;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let summary = sniff(data);
    let mut ops = Vec::new();
    let scanned = scan_ops(data, |site| ops.push(site.op));
    let new = VersionDef {
        producer: 2474,
        min_consumer: 3,
        bad_consumers: vec![7],
    };
    let rewritten = rewrite_graph_def_versions(data, &new);

    if let Ok(graph) = GraphDef::decode(data) {
        let summary = summary.expect("prost decoded it, so the sniffer must read it");
        assert_eq!(summary.versions, graph.versions.clone().unwrap_or_default());
        assert_eq!(summary.nodes, graph.node.len());
        scanned.expect("prost decoded it, so the op scan must read it");
        let expected: Vec<&str> = graph
            .node
            .iter()
            .map(|n| n.op.as_str())
            .chain(
                graph
                    .library
                    .iter()
                    .flat_map(|l| &l.function)
                    .flat_map(|f| &f.node_def)
                    .map(|n| n.op.as_str()),
            )
            .collect();
        assert_eq!(ops, expected);
        let rewritten = rewritten.expect("a decodable graph can be rewritten");
        let mut graph = graph;
        graph.versions = Some(new);
        assert_eq!(
            GraphDef::decode(rewritten.as_slice()).expect("rewrite stays decodable"),
            graph
        );
    }
});
