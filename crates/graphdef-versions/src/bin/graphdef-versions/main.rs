//! `graphdef-versions`: judge a GraphDef, SavedModel or checkpoint the way TensorFlow would load
//! it.
//!
//! ```text
//! graphdef-versions check FILE [--consumer VERSION] [--min-producer VERSION] [--tf-version RELEASE] [--json]
//! graphdef-versions releases PATH [--json] [--host HOST]
//! graphdef-versions history [--on YYYY-MM-DD]
//! ```
//!
//! Exit status: 0 accepted, 1 rejected, 2 the input could not be read or the usage is wrong.
//! Every message on stderr starts with `graphdef-versions: `.

mod input;
mod outcome;

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand};
use graphdef_versions::Date;
use graphdef_versions::schema::BundleHeaderProto;
use graphdef_versions::{
    CHECKPOINT, CheckReport, Constants, Consumer, Error, GRAPH_DEF, GraphCheck, LoadError, Loader,
    MAX_MESSAGE_LEN, Registry, ReleaseJudge, ReleaseNumber, ReleaseReport, Scheme, TF_VERSION,
    TfRelease, Version, check_file, history, looks_like_index, model_file, read_checkpoint_header,
};
use serde_json::{Value, json};

use crate::input::read_input;
use crate::outcome::{Outcome, chain, exit_code, print, print_json};

/// The binary's name, which starts every message it writes to stderr.
const TOOL: &str = "graphdef-versions";

#[derive(Parser)]
#[command(
    name = TOOL,
    version,
    about = "TensorFlow's GraphDef versioning: would this TensorFlow load this graph?",
    after_help = "Exit status: 0 accepted, 1 rejected, 2 unreadable input or bad usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Judge a binary GraphDef, a saved_model.pb or a checkpoint (its .index file or its
    /// prefix), told apart by their bytes, as a consumer would; a graph or SavedModel is then
    /// loaded as the consumer's release loads it (TensorFlow 2.21 by default), as `releases`
    /// replays it.
    Check(CheckArgs),
    /// Which TensorFlow releases (2.12 to 2.21) load a GraphDef or SavedModel, each refusal in
    /// that release's own words, and the oldest release that loads it.
    Releases(ReleasesArgs),
    /// Show the GraphDef version history, or the version TensorFlow had on a date.
    History(HistoryArgs),
}

// Versions are int32 and may be negative: `--consumer -3` is a value, not a flag.
#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct CheckArgs {
    /// The file to judge: a binary GraphDef (.pb), a SavedModel (its directory or its
    /// saved_model.pb), a checkpoint's .index file, or a checkpoint prefix (PREFIX.index is
    /// read).
    file: PathBuf,
    /// The consumer's version in the file's scheme (default: TensorFlow 2.21's, GraphDef 2474,
    /// checkpoint 1).
    #[arg(long, value_parser = Version::from_str)]
    consumer: Option<Version>,
    /// The oldest producer version the consumer reads (default: TensorFlow 2.21's, 0 in both
    /// schemes).
    #[arg(long, value_parser = Version::from_str)]
    min_producer: Option<Version>,
    /// The consumer's release, MAJOR.MINOR.PATCH[-SUFFIX], as TensorFlow names itself in its
    /// messages (kept as written, suffix included).
    #[arg(long, value_name = "RELEASE", value_parser = release_name, default_value = TF_VERSION)]
    tf_version: String,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ReleasesArgs {
    /// A binary GraphDef (as `tf.graph_util.import_graph_def` imports it), or a SavedModel: its
    /// directory or its saved_model.pb (as `tf.saved_model.load` loads it).
    path: PathBuf,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
    /// The host name the messages give in `binary running on HOST` (default: this machine's).
    #[arg(long)]
    host: Option<String>,
}

#[derive(Args)]
struct HistoryArgs {
    /// A date, YYYY-MM-DD: print the GraphDef version of that day.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = day)]
    on: Option<Date>,
}

/// A day written `YYYY-MM-DD`, that the calendar has.
fn day(text: &str) -> Result<Date, String> {
    Date::strptime("%Y-%m-%d", text)
        .map_err(|error| format!("write a day that exists as YYYY-MM-DD ({error})"))
}

/// A release as TensorFlow names itself: checked as a [`ReleaseNumber`], kept as written, so
/// that `2.21.0-rc1` keeps its suffix in the messages as TensorFlow's own does.
fn release_name(text: &str) -> Result<String, Error> {
    ReleaseNumber::from_str(text)?;
    Ok(text.to_string())
}

/// Why a run could not conclude: exit 2.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// The file could not be opened, inspected or mapped.
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The file is larger than any protobuf message: nothing is read.
    #[error(
        "{} is {len} bytes, above protobuf's limit of {max} bytes (2 GiB) for one message: \
         TensorFlow cannot parse it as a GraphDef or SavedModel",
        path.display()
    )]
    TooLarge { path: PathBuf, len: u64, max: u64 },
    /// The path names a directory, a pipe or a device.
    #[error(
        "{} is {what}, not a file: give a binary GraphDef or a SavedModel's saved_model.pb",
        path.display()
    )]
    NotAFile { path: PathBuf, what: &'static str },
    /// The path names nothing the library can read as a model (it says why, and names it).
    #[error(transparent)]
    File(Error),
    /// The bytes are not a GraphDef or SavedModel.
    #[error("cannot read {} as a GraphDef or SavedModel", path.display())]
    Input {
        path: PathBuf,
        #[source]
        source: Error,
    },
    /// The bytes are not a checkpoint `.index` file with a readable header.
    #[error(
        "cannot read {} as a checkpoint: Unable to read file. Perhaps the file is corrupt or was \
         produced by a newer version of TensorFlow with format changes",
        path.display()
    )]
    Checkpoint {
        path: PathBuf,
        #[source]
        source: Error,
    },
    /// Standard output is closed or full.
    #[error("cannot write to standard output")]
    Output(#[source] io::Error),
}

fn main() -> ExitCode {
    exit_code(run(Cli::parse()))
}

fn run(cli: Cli) -> Result<Outcome, CliError> {
    match cli.command {
        Command::Check(args) => check(&args),
        Command::Releases(args) => releases(&args),
        Command::History(args) => show_history(&args),
    }
}

fn check(args: &CheckArgs) -> Result<Outcome, CliError> {
    let named = resolve_prefix(&args.file);
    let path = match model_file(&named) {
        Ok(path) => path,
        Err(error) => return unreadable(args, CliError::File(error.into())),
    };
    // A GraphDef can be hundreds of megabytes, and the library reads only a few bytes of most
    // of it (the versions, each node's op): mapping the file lets the kernel hand over its pages
    // as they are read, with no buffer allocated, cleared and filled first.
    let bytes = match read_input(&path, MAX_MESSAGE_LEN as u64) {
        Ok(bytes) => bytes,
        Err(error) => return unreadable(args, error),
    };
    let empty = empty_file_warning(&path);
    if looks_like_index(&bytes) {
        return check_checkpoint(args, &path, &bytes);
    }
    let consumer = consumer(args, &GRAPH_DEF);
    let report = match check_file(&bytes, &consumer, &Registry::tensorflow()) {
        Ok(report) => report,
        Err(source) => {
            let error = CliError::Input { path, source };
            return unreadable(args, error);
        }
    };
    // A consumer that is one of the ten releases loads the file as that release's loader does:
    // the same steps `releases` replays (the ops, the functions, a SavedModel's objects and
    // variables), once the versions and deprecations let it through.
    let release = TfRelease::all().find(|release| release.consumer(Scheme::GraphDef) == consumer);
    let load = match release.filter(|_| report.accepted()) {
        None => None,
        // The bytes mapped above, not the file read again.
        Some(release) => match ReleaseJudge::new().only(release).judge_file(&bytes, &path) {
            Ok(judged) => Some(judged),
            Err(source) => return unreadable(args, CliError::Input { path, source }),
        },
    };
    let load = load.as_ref().map(|judged| Load {
        release: judged.verdicts()[0].release(),
        loader: judged.loader(),
        error: judged.verdicts()[0].errors().first(),
    });
    let accepted = report.accepted() && load.as_ref().is_none_or(|load| load.error.is_none());
    let file = args.file.display().to_string();
    if args.json {
        let mut json = check_json(&file, &consumer, &report, load.as_ref());
        if let (Some(warning), Some(Value::Array(warnings))) = (&empty, json.get_mut("warnings")) {
            warnings.insert(0, Value::String(warning.clone()));
        }
        print_json(&json)?;
    } else {
        print(&check_text(&file, &consumer, &report, load.as_ref()))?;
    }
    Ok(if accepted {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    })
}

fn releases(args: &ReleasesArgs) -> Result<Outcome, CliError> {
    let judge = match &args.host {
        Some(host) => ReleaseJudge::with_host(host.clone()),
        None => ReleaseJudge::new(),
    };
    // The library reads the path (a SavedModel's directory or a file) and tells its kind.
    let file = model_file(&args.path).unwrap_or_else(|_| args.path.clone());
    let report = judge.judge_path(&args.path).map_err(|source| match source {
        Error::File(_) => CliError::File(source),
        source => CliError::Input {
            path: file.clone(),
            source,
        },
    });
    let empty = match &report {
        Ok(_) => empty_file_warning(&file),
        Err(_) => None,
    };
    let report = match report {
        Ok(report) => report,
        Err(error) if args.json => {
            print_json(&json!({
                "file": args.path.display().to_string(),
                "oldest_release": null,
                "unreadable": true,
                "error": chain(&error),
            }))?;
            return Err(error);
        }
        Err(error) => return Err(error),
    };
    let file = args.path.display().to_string();
    if args.json {
        let mut json = releases_json(&file, &report);
        json["warnings"] = json!(empty.into_iter().collect::<Vec<_>>());
        print_json(&json)?;
    } else {
        print(&releases_text(&file, &report))?;
    }
    Ok(if report.oldest_release().is_some() {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    })
}

/// The `releases --json` object; the README lists its keys.
fn releases_json(file: &str, report: &ReleaseReport) -> Value {
    json!({
        "file": file,
        "loader": report.loader().as_str(),
        "oldest_release": report.oldest_release().map(|r| r.name()),
        "unreadable": false,
        "releases": report.verdicts().iter().map(|verdict| json!({
            "release": verdict.release().name(),
            "accepted": verdict.accepted(),
            "error_class": verdict.errors().first().map(|e| e.python_class()),
            "errors": verdict.errors().iter().map(|e| e.message()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn releases_text(file: &str, report: &ReleaseReport) -> String {
    let mut out = String::new();
    let how = python_call(report.loader());
    let _ = writeln!(out, "{file}: as {how} loads it");
    for verdict in report.verdicts() {
        let name = verdict.release().name();
        match verdict.errors().first() {
            None => {
                let _ = writeln!(out, "  {name:<7} loads");
            }
            Some(error) => {
                let first = error.message().lines().next().unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  {name:<7} refuses: {}: {first}",
                    error.python_class()
                );
            }
        }
    }
    match report.oldest_release() {
        Some(release) => {
            let _ = writeln!(out, "oldest release that loads it: {}", release.name());
        }
        None => {
            let _ = writeln!(out, "no release from 2.12 to 2.21 loads it");
        }
    }
    out
}

/// For a file of 0 bytes, a warning, also written to stderr at once: TensorFlow reads it as an
/// empty GraphDef, which any release loads, so the tool accepts it; but such a file is more
/// often a download or a copy that failed than a graph.
fn empty_file_warning(path: &Path) -> Option<String> {
    if std::fs::metadata(path).map_or(true, |metadata| metadata.len() != 0) {
        return None;
    }
    let warning = format!(
        "{} is 0 bytes: TensorFlow reads it as an empty GraphDef (no node, no versions), which \
         every release loads; a file of 0 bytes is often a download or a copy that failed",
        path.display()
    );
    eprintln!("{TOOL}: warning: {warning}");
    Some(warning)
}

/// A checkpoint is named by its prefix (`ckpt-1` for `ckpt-1.index` and its data shards), as
/// TensorFlow names it: a path that does not exist but whose `.index` file does is a prefix.
fn resolve_prefix(path: &Path) -> PathBuf {
    let mut index = path.as_os_str().to_owned();
    index.push(".index");
    let index = PathBuf::from(index);
    if !path.exists() && index.is_file() {
        index
    } else {
        path.to_owned()
    }
}

/// The consumer of `--consumer`, `--min-producer` and `--tf-version`, with the scheme's
/// TensorFlow 2.21 constants for what is not given.
fn consumer(args: &CheckArgs, constants: &Constants) -> Consumer {
    Consumer::new(
        constants.scheme,
        args.consumer.unwrap_or(constants.current),
        args.min_producer.unwrap_or(constants.min_producer),
        args.tf_version.clone(),
    )
}

/// Reports an input that could not be read (with `--json`, as an object too): exit 2.
fn unreadable(args: &CheckArgs, error: CliError) -> Result<Outcome, CliError> {
    if args.json {
        print_json(&json!({
            "file": args.file.display().to_string(),
            "accepted": false,
            "unreadable": true,
            "error": chain(&error),
        }))?;
    }
    Err(error)
}

/// Judges a checkpoint's `.index` file: its header's VersionDef against the checkpoint scheme.
fn check_checkpoint(args: &CheckArgs, path: &Path, bytes: &[u8]) -> Result<Outcome, CliError> {
    let consumer = consumer(args, &CHECKPOINT);
    let header = match read_checkpoint_header(bytes) {
        Ok(header) => header,
        Err(source) => {
            let error = CliError::Checkpoint {
                path: path.to_owned(),
                source,
            };
            return unreadable(args, error);
        }
    };
    let refusal = consumer
        .check(&header.version.clone().unwrap_or_default())
        .err();
    let file = args.file.display().to_string();
    let error = refusal.as_ref().map(ToString::to_string);
    if args.json {
        print_json(&checkpoint_json(
            &file,
            &consumer,
            &header,
            error.as_deref(),
        ))?;
    } else {
        print(&checkpoint_text(
            &file,
            &consumer,
            &header,
            error.as_deref(),
        ))?;
    }
    Ok(if refusal.is_none() {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    })
}

fn checkpoint_text(
    file: &str,
    consumer: &Consumer,
    header: &BundleHeaderProto,
    error: Option<&str>,
) -> String {
    let versions = header.version.clone().unwrap_or_default();
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(text, "{file}: checkpoint");
    let _ = writeln!(
        text,
        "consumer: TensorFlow {} (checkpoint version {}, min producer {})",
        consumer.tf_version(),
        consumer.version(),
        consumer.min_producer()
    );
    let _ = writeln!(
        text,
        "header: {} shard(s), {} endian",
        header.num_shards,
        endianness(header)
    );
    let _ = writeln!(
        text,
        "  versions: producer {}, min_consumer {}, bad_consumers {:?}",
        versions.producer, versions.min_consumer, versions.bad_consumers
    );
    let _ = match error {
        None => writeln!(text, "  verdict: accepted"),
        Some(error) => writeln!(text, "  verdict: rejected: {error}"),
    };
    text
}

/// The `check --json` object for a checkpoint; the README lists its keys.
fn checkpoint_json(
    file: &str,
    consumer: &Consumer,
    header: &BundleHeaderProto,
    error: Option<&str>,
) -> Value {
    let versions = header.version.clone().unwrap_or_default();
    json!({
        "file": file,
        "kind": "checkpoint",
        "producer": versions.producer,
        "min_consumer": versions.min_consumer,
        "bad_consumers": versions.bad_consumers,
        "accepted": error.is_none(),
        "unreadable": false,
        "error": error,
        "num_shards": header.num_shards,
        "endianness": endianness(header),
        "consumer": {
            "version": consumer.version().get(),
            "min_producer": consumer.min_producer().get(),
            "tf_version": consumer.tf_version(),
        },
    })
}

/// The header's byte order as a word; an unknown value shows as its number.
fn endianness(header: &BundleHeaderProto) -> String {
    match header.endianness {
        0 => "little".to_string(),
        1 => "big".to_string(),
        other => format!("unknown ({other})"),
    }
}

/// What the consumer's release did when it loaded the file, replayed as `releases` replays it.
struct Load<'a> {
    release: TfRelease,
    loader: Loader,
    /// The error it raises; `None` when it loads the file.
    error: Option<&'a LoadError>,
}

/// How the loader is called, in the user's Python.
fn python_call(loader: Loader) -> &'static str {
    match loader {
        Loader::ImportGraphDef => "tf.graph_util.import_graph_def",
        _ => "tf.saved_model.load",
    }
}

fn check_text(
    file: &str,
    consumer: &Consumer,
    report: &CheckReport,
    load: Option<&Load<'_>>,
) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(text, "{file}: {}", report.kind.as_str());
    let _ = writeln!(
        text,
        "consumer: TensorFlow {} (GraphDef version {}, min producer {})",
        consumer.tf_version(),
        consumer.version(),
        consumer.min_producer()
    );
    for graph in &report.graphs {
        let versions = &graph.summary.versions;
        let label = match graph.meta_graph {
            Some(index) => format!("meta graph {index}"),
            None => "graph".to_string(),
        };
        let _ = writeln!(
            text,
            "{label}: {} nodes, {} library functions",
            graph.summary.nodes, graph.summary.library_functions
        );
        let _ = writeln!(
            text,
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
            let _ = writeln!(
                text,
                "  removed op: {} (removed in version {}: {})",
                removed.op, removed.removed_in, removed.explanation
            );
        }
        for warning in &graph.ops.warnings {
            let _ = writeln!(text, "  warning: {warning}");
        }
        let _ = match &graph.error {
            None => writeln!(text, "  verdict: accepted"),
            Some(error) => writeln!(text, "  verdict: rejected: {error}"),
        };
    }
    let _ = match load {
        Some(load) => {
            let how = python_call(load.loader);
            let name = load.release.name();
            match load.error {
                None => writeln!(text, "loading: {how} in TensorFlow {name} loads it"),
                Some(error) => writeln!(
                    text,
                    "loading: {how} in TensorFlow {name} refuses it: {}: {}\nverdict: rejected",
                    error.python_class(),
                    error.message().lines().next().unwrap_or_default()
                ),
            }
        }
        None if report.accepted() => writeln!(
            text,
            "loading: not replayed: the consumer is none of TensorFlow 2.12 to 2.21 (`releases` \
             replays their loaders)"
        ),
        None => Ok(()),
    };
    text
}

/// The `check --json` object; the README lists its keys.
fn check_json(
    file: &str,
    consumer: &Consumer,
    report: &CheckReport,
    load: Option<&Load<'_>>,
) -> Value {
    let load_error = load.and_then(|load| load.error);
    let versions = report
        .graphs
        .first()
        .map(|graph| graph.summary.versions.clone())
        .unwrap_or_default();
    let deprecated_ops: Vec<Value> = report
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
    let warnings: Vec<String> = report
        .graphs
        .iter()
        .flat_map(|graph| &graph.ops.warnings)
        .map(ToString::to_string)
        .collect();
    json!({
        "file": file,
        "kind": report.kind.as_str(),
        "producer": versions.producer,
        "min_consumer": versions.min_consumer,
        "bad_consumers": versions.bad_consumers,
        "accepted": report.accepted() && load_error.is_none(),
        "unreadable": false,
        "error": report
            .first_error()
            .map(ToString::to_string)
            .or_else(|| load_error.map(|error| error.message().to_string())),
        "deprecated_ops": deprecated_ops,
        "warnings": warnings,
        "consumer": {
            "version": consumer.version().get(),
            "min_producer": consumer.min_producer().get(),
            "tf_version": consumer.tf_version(),
        },
        "graphs": report.graphs.iter().map(graph_json).collect::<Vec<_>>(),
        "load": load.map(|load| json!({
            "release": load.release.name(),
            "loader": load.loader.as_str(),
            "accepted": load.error.is_none(),
            "error_class": load.error.map(LoadError::python_class),
            "error": load.error.map(LoadError::message),
        })),
    })
}

fn graph_json(graph: &GraphCheck) -> Value {
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

fn show_history(args: &HistoryArgs) -> Result<Outcome, CliError> {
    if let Some(date) = args.on {
        print(&format!("{}\n", history::graph_def_version_on(date)))?;
        return Ok(Outcome::Accepted);
    }
    let mut text = String::new();
    for entry in history::GRAPH_DEF_HISTORY {
        let date = entry
            .date
            .map_or_else(|| "undated".to_string(), |d| d.to_string());
        let number = if entry.bumped {
            entry.version.to_string()
        } else {
            format!("({})", entry.version)
        };
        let _ = writeln!(text, "{number:>5}  {date:<10}  {}", entry.change);
    }
    let _ = writeln!(
        text,
        "  ...  one version a day since {}: {} is TensorFlow {}'s",
        history::FIRST_DATE_BASED_DAY,
        GRAPH_DEF.current,
        TF_VERSION
    );
    print(&text)?;
    Ok(Outcome::Accepted)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn arguments_are_parsed_into_the_crates_types() {
        let cli = Cli::try_parse_from([
            TOOL,
            "check",
            "g.pb",
            "--consumer",
            "-3",
            "--min-producer",
            "10",
            "--tf-version",
            "2.21.0-rc1",
        ])
        .unwrap();
        let Command::Check(args) = cli.command else {
            panic!("not check");
        };
        assert_eq!(args.consumer, Some(Version::new(-3)));
        assert_eq!(args.min_producer, Some(Version::new(10)));
        assert_eq!(args.tf_version, "2.21.0-rc1");
        assert!(!args.json);

        let Command::Check(defaults) = Cli::try_parse_from([TOOL, "check", "g.pb"])
            .unwrap()
            .command
        else {
            panic!("not check");
        };
        assert_eq!(consumer(&defaults, &GRAPH_DEF).version(), GRAPH_DEF.current);
        assert_eq!(
            consumer(&defaults, &GRAPH_DEF).min_producer(),
            GRAPH_DEF.min_producer
        );
        assert_eq!(
            consumer(&defaults, &CHECKPOINT).version(),
            CHECKPOINT.current
        );
        assert_eq!(defaults.tf_version, TF_VERSION);

        let Command::History(history) =
            Cli::try_parse_from([TOOL, "history", "--on", "2022-07-05"])
                .unwrap()
                .command
        else {
            panic!("not history");
        };
        assert_eq!(history.on, Some("2022-07-05".parse().unwrap()));
    }

    #[test]
    fn bad_values_are_usage_errors_that_say_why() {
        for (args, reason) in [
            (
                &[TOOL, "check", "g.pb", "--consumer", "many"][..],
                "write it as a whole number",
            ),
            (
                &[TOOL, "check", "g.pb", "--min-producer", "99999999999"][..],
                "write it as a whole number",
            ),
            (
                &[TOOL, "check", "g.pb", "--tf-version", "latest"][..],
                "write it as MAJOR.MINOR.PATCH",
            ),
            (
                &[TOOL, "history", "--on", "2022-02-30"][..],
                "write a day that exists as YYYY-MM-DD",
            ),
        ] {
            let error = Cli::try_parse_from(args).err().expect("refused");
            assert_eq!(error.kind(), clap::error::ErrorKind::ValueValidation);
            assert_eq!(error.exit_code(), 2);
            assert!(error.to_string().contains(reason), "{error}");
        }
    }

    #[test]
    fn the_chain_joins_every_source() {
        let error = CliError::Read {
            path: PathBuf::from("g.pb"),
            source: io::Error::new(io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(chain(&error), "cannot read g.pb: gone");
    }
}
