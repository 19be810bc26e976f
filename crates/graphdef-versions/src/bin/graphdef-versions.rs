//! `graphdef-versions`: judge a GraphDef or SavedModel file the way TensorFlow would load it.
//!
//! ```text
//! graphdef-versions check FILE [--consumer N] [--min-producer N] [--tf-version V] [--json]
//! graphdef-versions history [--on YYYY-MM-DD]
//! ```
//!
//! Exit status: 0 accepted, 1 rejected, 2 unreadable input or bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use graphdef_versions::{
    CivilDate, Consumer, GRAPH_DEF, GraphVerdict, MAX_MESSAGE_LEN, Registry, Scheme, TF_VERSION,
    Verdict, Version, history, judge,
};
use serde_json::json;

#[derive(Parser)]
#[command(
    name = "graphdef-versions",
    version,
    about = "TensorFlow's GraphDef versioning: would this TensorFlow load this graph?"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Judge a binary GraphDef or saved_model.pb (auto-detected) as a consumer would.
    Check {
        /// The file to judge.
        file: PathBuf,
        /// The consumer's GraphDef version (default: TensorFlow 2.21's, 2474).
        #[arg(long, allow_hyphen_values = true, default_value_t = GRAPH_DEF.current.get())]
        consumer: i32,
        /// The oldest producer version the consumer reads (default: TensorFlow 2.21's, 0).
        #[arg(long, allow_hyphen_values = true, default_value_t = GRAPH_DEF.min_producer.get())]
        min_producer: i32,
        /// The consumer's release, as named in messages.
        #[arg(long, default_value = TF_VERSION)]
        tf_version: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show the GraphDef version history, or the version TensorFlow had on a date.
    History {
        /// A date, YYYY-MM-DD: print the GraphDef version of that day.
        #[arg(long)]
        on: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            file,
            consumer,
            min_producer,
            tf_version,
            json,
        } => {
            let consumer = Consumer::new(
                Scheme::GraphDef,
                Version::new(consumer),
                Version::new(min_producer),
                tf_version,
            );
            check(&file, &consumer, json)
        }
        Command::History { on } => show_history(on.as_deref()),
    }
}

fn check(file: &PathBuf, consumer: &Consumer, as_json: bool) -> ExitCode {
    let shown = file.display();
    let bytes = match read_bounded(file) {
        Ok(bytes) => bytes,
        Err(message) => return unreadable(&format!("cannot read {shown}: {message}"), as_json),
    };
    let verdict = match judge(&bytes, consumer, &Registry::tensorflow()) {
        Ok(verdict) => verdict,
        Err(error) => return unreadable(&format!("{shown}: {error}"), as_json),
    };
    if as_json {
        println!("{}", to_json(&shown.to_string(), consumer, &verdict));
    } else {
        print_text(&shown.to_string(), consumer, &verdict);
    }
    if verdict.accepted() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Reads a file, refusing anything larger than a protobuf message can be before reading it.
fn read_bounded(file: &PathBuf) -> Result<Vec<u8>, String> {
    let len = std::fs::metadata(file).map_err(|e| e.to_string())?.len();
    if len > MAX_MESSAGE_LEN as u64 {
        return Err(format!(
            "the file is {len} bytes; a GraphDef or SavedModel is at most 2 GiB"
        ));
    }
    std::fs::read(file).map_err(|e| e.to_string())
}

fn unreadable(message: &str, as_json: bool) -> ExitCode {
    if as_json {
        println!(
            "{}",
            json!({ "accepted": false, "error": message, "unreadable": true })
        );
    }
    eprintln!("graphdef-versions: {message}");
    ExitCode::from(2)
}

fn print_text(file: &str, consumer: &Consumer, verdict: &Verdict) {
    println!("{file}: {}", verdict.kind.as_str());
    println!(
        "consumer: TensorFlow {} (GraphDef version {}, min producer {})",
        consumer.tf_version(),
        consumer.version(),
        consumer.min_producer()
    );
    for graph in &verdict.graphs {
        let versions = &graph.summary.versions;
        let label = match graph.meta_graph {
            Some(index) => format!("meta graph {index}"),
            None => "graph".to_string(),
        };
        println!(
            "{label}: {} nodes, {} library functions",
            graph.summary.nodes, graph.summary.library_functions
        );
        println!(
            "  versions: producer {}, min_consumer {}, bad_consumers {:?}{}",
            versions.producer,
            versions.min_consumer,
            versions.bad_consumers,
            if graph.summary.has_versions {
                ""
            } else {
                " (no versions field)"
            }
        );
        for removed in &graph.ops.removed {
            println!(
                "  removed op: {} (removed in version {}: {})",
                removed.op, removed.removed_in, removed.explanation
            );
        }
        for warning in &graph.ops.warnings {
            println!("  warning: {warning}");
        }
        match &graph.error {
            None => println!("  verdict: accepted"),
            Some(error) => println!("  verdict: rejected: {error}"),
        }
    }
}

fn to_json(file: &str, consumer: &Consumer, verdict: &Verdict) -> serde_json::Value {
    let first = verdict.graphs.first();
    let versions = first
        .map(|graph| graph.summary.versions.clone())
        .unwrap_or_default();
    let deprecated_ops: Vec<_> = verdict
        .graphs
        .iter()
        .flat_map(|graph| &graph.ops.removed)
        .map(|removed| {
            json!({
                "name": removed.op,
                "version": removed.removed_in.get(),
                "explanation": removed.explanation,
            })
        })
        .collect();
    let warnings: Vec<String> = verdict
        .graphs
        .iter()
        .flat_map(|graph| &graph.ops.warnings)
        .map(ToString::to_string)
        .collect();
    json!({
        "file": file,
        "kind": verdict.kind.as_str(),
        "producer": versions.producer,
        "min_consumer": versions.min_consumer,
        "bad_consumers": versions.bad_consumers,
        "accepted": verdict.accepted(),
        "error": verdict.first_error().map(ToString::to_string),
        "deprecated_ops": deprecated_ops,
        "warnings": warnings,
        "consumer": {
            "version": consumer.version().get(),
            "min_producer": consumer.min_producer().get(),
            "tf_version": consumer.tf_version(),
        },
        "graphs": verdict.graphs.iter().map(graph_json).collect::<Vec<_>>(),
    })
}

fn graph_json(graph: &GraphVerdict) -> serde_json::Value {
    let versions = &graph.summary.versions;
    json!({
        "meta_graph": graph.meta_graph,
        "producer": versions.producer,
        "min_consumer": versions.min_consumer,
        "bad_consumers": versions.bad_consumers,
        "has_versions": graph.summary.has_versions,
        "nodes": graph.summary.nodes,
        "library_functions": graph.summary.library_functions,
        "accepted": graph.error.is_none(),
        "error": graph.error.as_ref().map(ToString::to_string),
    })
}

fn show_history(on: Option<&str>) -> ExitCode {
    if let Some(text) = on {
        let date: CivilDate = match text.parse() {
            Ok(date) => date,
            Err(error) => {
                eprintln!("graphdef-versions: {error}");
                return ExitCode::from(2);
            }
        };
        println!("{}", history::graph_def_version_on(date));
        return ExitCode::SUCCESS;
    }
    for entry in history::GRAPH_DEF_HISTORY {
        let date = entry
            .date
            .map_or_else(|| "undated".to_string(), |d| d.to_string());
        let number = if entry.bumped {
            entry.version.to_string()
        } else {
            format!("({})", entry.version)
        };
        println!("{number:>5}  {date:<10}  {}", entry.change);
    }
    println!(
        "  ...  one version a day since {}: {} is TensorFlow {}'s",
        history::FIRST_DATE_BASED_DAY,
        GRAPH_DEF.current,
        TF_VERSION
    );
    ExitCode::SUCCESS
}
