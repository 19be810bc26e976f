//! A tour of TensorFlow's data-versioning scheme for GraphDefs, end to end.
//!
//! Run it with `cargo run -p graphdef-versions --example graphdef-versions-tour` (or `cargo xtask demo`).

use graphdef_versions::jiff::civil::date;
use graphdef_versions::schema::{GraphDef, MetaGraphDef, NodeDef, SavedModel, VersionDef};
use graphdef_versions::{
    Artifact, CHECKPOINT, Consumer, GRAPH_DEF, Producer, Registry, ReleaseVersioning, Scheme,
    TF_VERSION, Version, check_file, check_release_move, history, merge_on_import,
    rewrite_graph_def_versions, sniff,
};
use prost::Message;

fn node(name: &str, op: &str) -> NodeDef {
    NodeDef {
        name: name.into(),
        op: op.into(),
        ..Default::default()
    }
}

fn main() -> Result<(), graphdef_versions::Error> {
    println!("1. Two schemes, three numbers each (TensorFlow {TF_VERSION}):");
    for c in [GRAPH_DEF, CHECKPOINT] {
        println!(
            "   {:<10} current {:>4}, min_producer {}, min_consumer {}",
            c.scheme.upper_name(),
            c.current,
            c.min_producer,
            c.min_consumer
        );
    }

    println!("\n2. A producer stamps what it writes with (producer, min_consumer):");
    let stamp = Producer::tensorflow_graph_def().stamp();
    let graph = GraphDef {
        node: vec![node("x", "Placeholder"), node("y", "Relu")],
        versions: Some(stamp.clone()),
        ..Default::default()
    };
    let bytes = graph.encode_to_vec();
    let summary = sniff(&bytes)?;
    println!(
        "   sniffed from {} bytes without decoding nodes: {:?}",
        bytes.len(),
        summary.versions
    );

    println!(
        "\n3. A consumer accepts when producer >= its min_producer, its version >= min_consumer,"
    );
    println!("   and its version is not a bad consumer:");
    let tf = Consumer::tensorflow_graph_def();
    println!(
        "   TensorFlow {TF_VERSION} on this graph: {:?}",
        tf.check(&summary.versions)
    );
    let needs_newer = VersionDef {
        producer: 2474,
        min_consumer: 2474,
        bad_consumers: vec![],
    };
    let old_tf = Consumer::new(
        Scheme::GraphDef,
        Version::new(2300),
        Version::new(0),
        "2.18.0",
    );
    println!(
        "   TensorFlow 2.18 on a graph with min_consumer 2474:\n     {}",
        old_tf.check(&needs_newer).unwrap_err()
    );
    let banning = Producer::tensorflow_graph_def().ban_when_ops(Version::new(2300), ["Relu"]);
    let banned = banning.stamp_for_ops(["Placeholder", "Relu"])?;
    println!(
        "   a producer that knows 2300 mishandles Relu stamps {:?}:",
        banned.bad_consumers
    );
    println!("     {}", old_tf.check(&banned).unwrap_err());

    println!(
        "\n4. Importing a graph into another keeps the oldest producer and strictest min_consumer:"
    );
    let imported = VersionDef {
        producer: 26,
        min_consumer: 12,
        bad_consumers: vec![20],
    };
    println!(
        "   {:?} + {:?}\n   = {:?}",
        stamp,
        imported,
        merge_on_import(&stamp, &imported)
    );

    println!("\n5. Ops are retired by version. TopK was removed at 7:");
    let registry = Registry::tensorflow();
    for producer in [6, 7] {
        let topk = GraphDef {
            node: vec![node("k", "TopK")],
            versions: Some(VersionDef {
                producer,
                min_consumer: 0,
                bad_consumers: vec![],
            }),
            ..Default::default()
        };
        let verdict = check_file(&topk.encode_to_vec(), &tf, &registry)?;
        let graph = &verdict.graphs[0];
        match (&graph.error, graph.ops.warnings.first()) {
            (Some(error), _) => println!("   producer {producer}: refused: {error}"),
            (None, Some(warning)) => {
                println!("   producer {producer}: accepted, warning: {warning}")
            }
            (None, None) => println!("   producer {producer}: accepted"),
        }
    }
    println!(
        "   ({} deprecated ops ship as the default registry)",
        registry.len()
    );

    println!(
        "\n6. Since {} the GraphDef version is the date:",
        history::FIRST_DATE_BASED_DAY
    );
    for day in [date(2016, 2, 16), date(2019, 5, 9), date(2022, 7, 5)] {
        println!("   {day}: version {}", history::graph_def_version_on(day));
    }
    if let Some(frozen) = history::graph_def_version_date(GRAPH_DEF.current) {
        println!(
            "   {}'s version {} is the version of {frozen}, when its branch froze",
            TF_VERSION, GRAPH_DEF.current
        );
    }

    println!("\n7. A file's VersionDef can be rewritten, every other byte kept:");
    let lowered = VersionDef {
        producer: 2474,
        min_consumer: 2400,
        bad_consumers: vec![],
    };
    let rewritten = rewrite_graph_def_versions(&bytes, &lowered)?;
    println!(
        "   {} -> {} bytes, now {:?}",
        bytes.len(),
        rewritten.len(),
        sniff(&rewritten)?.versions
    );

    println!("\n8. saved_model.pb is recognised and its graphs judged the same way:");
    let saved = SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![MetaGraphDef {
            meta_info_def: None,
            graph_def: Some(graph),
            ..Default::default()
        }],
    }
    .encode_to_vec();
    let opened = Artifact::open(&saved)?;
    println!(
        "   kind {}, {} meta graph(s), graph versions {:?}",
        opened.kind().as_str(),
        opened.graphs().len(),
        opened.graphs()[0].sniff()?.versions
    );

    println!(
        "\n9. The policy for the next release: min_producer may rise only at a major release:"
    );
    let now = ReleaseVersioning::tensorflow();
    let mut next = ReleaseVersioning {
        number: "2.22.0".parse()?,
        ..now.clone()
    };
    next.graph_def.current = Version::new(2530);
    next.graph_def.min_producer = Version::new(21);
    let report = check_release_move(&now, &next);
    for finding in &report.findings {
        println!(
            "   {}: {}",
            if finding.allowed {
                "allowed"
            } else {
                "NOT allowed"
            },
            finding.reason
        );
    }
    Ok(())
}
