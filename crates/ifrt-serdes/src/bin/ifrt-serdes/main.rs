//! `ifrt-serdes`: look at IFRT SerDes versions and serialized bytes.
//!
//! ```text
//! ifrt-serdes history [--today YYYY-MM-DD] [--json]
//! ifrt-serdes inspect FILE [--proto dtype|shape|array-spec|device-list] [--minimum N] [--current N] [--json]
//! ifrt-serdes negotiate CLIENT_MIN CLIENT_MAX SERVER_MIN SERVER_MAX [--json]
//! ifrt-serdes negotiate --client jaxlib==X.Y.Z SERVER_MIN SERVER_MAX [--json]
//! ifrt-serdes jaxlib [--json]
//! ```
//!
//! Exit status: 0 readable / agreed, 1 refused as incompatible (a version outside the reader's
//! range, or no common version), 2 the input could not be read or the usage is wrong. Every
//! message on stderr starts with `ifrt-serdes: `.

mod input;
mod jaxlib;
mod outcome;

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ifrt_serdes::version::{HISTORY, SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ArraySpec, Clock, DType, Date, DeserializeOptions, DeviceList, Error, JaxlibClient, JitOutcome,
    ProtoCodec, RecordedFormat, Registry, Shape, SystemClock, VersionRange, XlaProgram,
    jaxlib_client, negotiate,
};
use serde_json::{Value, json};

use crate::input::read_input;
use crate::outcome::{Outcome, chain, exit_code, print, print_json};

/// The binary's name, which starts every message it writes to stderr.
const TOOL: &str = "ifrt-serdes";

#[derive(Parser)]
#[command(
    name = TOOL,
    version,
    about = "IFRT's dated serialization versions: history, reading serialized bytes, negotiation",
    after_help = "Exit status: 0 readable / agreed, 1 incompatible, 2 unreadable input or bad usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The version history, with the current, minimum and week-4-old versions.
    History(HistoryArgs),
    /// Read a file holding one `Serialized` envelope (or, with --proto, one plain message), as a
    /// build of the given range would; list every nested value with its recorded format, and
    /// the versions that read the whole file.
    Inspect(InspectArgs),
    /// The version a client and a server with these ranges agree on (IFRT Proxy); the client
    /// may be a measured jaxlib release (`--client jaxlib==0.9.2`).
    Negotiate(NegotiateArgs),
    /// The IFRT Proxy clients of every measured jaxlib release: the proxy protocol and IFRT
    /// SerDes ranges each offers, and the versions at which its jit sends a program.
    Jaxlib(jaxlib::JaxlibArgs),
}

#[derive(Args)]
struct HistoryArgs {
    /// Compute week-4-old as of this day instead of today (UTC). IFRT keeps its week-4-old
    /// version by hand, so for IFRT's history the answer is the same on every day.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = Date::from_str)]
    today: Option<Date>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

// Version numbers are int32 and may be negative: `--minimum -1` is a value, not a flag.
#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct InspectArgs {
    /// The file: the protobuf bytes of one `Serialized` envelope, or of the plain message
    /// `--proto` names.
    file: PathBuf,
    /// Read the file as the plain message IFRT sends this type as, not as an envelope: IFRT
    /// never puts a DType, Shape, ArraySpec or DeviceList in a `Serialized` envelope.
    #[arg(long, value_enum, value_name = "KIND")]
    proto: Option<ProtoKind>,
    /// The reading build's minimum version (default: this build's).
    #[arg(long, value_name = "N", value_parser = SerDesVersionNumber::from_str)]
    minimum: Option<SerDesVersionNumber>,
    /// The reading build's current version (default: this build's).
    #[arg(long, value_name = "N", value_parser = SerDesVersionNumber::from_str)]
    current: Option<SerDesVersionNumber>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

/// The types IFRT sends as plain messages, which `inspect --proto` reads.
#[derive(Clone, Copy, ValueEnum)]
enum ProtoKind {
    /// `xla.ifrt.DTypeProto`
    #[value(name = "dtype")]
    DType,
    /// `xla.ifrt.ShapeProto`
    Shape,
    /// `xla.ifrt.ArraySpecProto` (its sharding in an envelope inside)
    ArraySpec,
    /// `xla.ifrt.DeviceListProto`
    DeviceList,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct NegotiateArgs {
    /// CLIENT_MIN CLIENT_MAX SERVER_MIN SERVER_MAX: the oldest version each side reads and the
    /// newest it reads and writes; with --client, only SERVER_MIN SERVER_MAX.
    #[arg(
        value_name = "VERSION",
        value_parser = SerDesVersionNumber::from_str,
        num_args = 2..=4,
        required = true
    )]
    versions: Vec<SerDesVersionNumber>,
    /// A measured jaxlib release's IFRT Proxy client in place of CLIENT_MIN CLIENT_MAX: the
    /// IFRT SerDes range its GetVersion request offers (`ifrt-serdes jaxlib` lists them).
    #[arg(long, value_name = "jaxlib==X.Y.Z", value_parser = jaxlib_client)]
    client: Option<&'static JaxlibClient>,
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
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
    /// The file is larger than the library's limit for one serialized value: nothing is read.
    #[error(
        "{} is {len} bytes, above the limit of {max} bytes for one serialized value \
         (DeserializeOptions::DEFAULT_MAX_BYTES, 64 MiB; IFRT itself has no limit of its own \
         beyond protobuf's 2 GiB): nothing was read",
        path.display()
    )]
    TooLarge { path: PathBuf, len: u64, max: u64 },
    /// The path names a directory, a pipe or a device.
    #[error(
        "{} is {what}, not a file: give a file holding one serialized value",
        path.display()
    )]
    NotAFile { path: PathBuf, what: &'static str },
    /// The file holds no bytes at all.
    #[error(
        "{} is empty: a serialized IFRT value is a `Serialized` envelope holding at least its \
         type name; give the file the serialized bytes",
        path.display()
    )]
    Empty { path: PathBuf },
    /// A version range given on the command line is not a range of version numbers.
    #[error(
        "the {side}'s range [{}, {}] is not a range of versions: {why}",
        range.min.value(), range.max.value()
    )]
    BadRange {
        side: &'static str,
        range: VersionRange,
        why: &'static str,
    },
    /// The bytes are not a serialized value this build can read.
    #[error("cannot read {} as a serialized IFRT value", path.display())]
    Input {
        path: PathBuf,
        #[source]
        source: Error,
    },
    /// `negotiate` was given the wrong number of version numbers.
    #[error(
        "negotiate takes {}, not {given} version number{}",
        if *with_client {
            "--client jaxlib==X.Y.Z SERVER_MIN SERVER_MAX"
        } else {
            "CLIENT_MIN CLIENT_MAX SERVER_MIN SERVER_MAX (or --client jaxlib==X.Y.Z SERVER_MIN \
             SERVER_MAX)"
        },
        if *given == 1 { "" } else { "s" }
    )]
    VersionCount { given: usize, with_client: bool },
    /// The bytes are not the plain message `--proto` names, or not one this build can read.
    #[error("cannot read {} as a plain {proto} message", path.display())]
    ProtoInput {
        path: PathBuf,
        proto: &'static str,
        #[source]
        source: Error,
    },
    /// `--minimum` and `--current` do not describe a build.
    #[error("--minimum and --current do not describe a build of this history")]
    Range(#[source] Error),
    /// Standard output is closed or full.
    #[error("cannot write to standard output")]
    Output(#[source] io::Error),
}

fn main() -> ExitCode {
    exit_code(run(Cli::parse()))
}

fn run(cli: Cli) -> Result<Outcome, CliError> {
    match cli.command {
        Command::History(args) => history(&args),
        Command::Inspect(args) => inspect(&args),
        Command::Negotiate(args) => negotiate_ranges(&args),
        Command::Jaxlib(args) => jaxlib::jaxlib(&args),
    }
}

fn history(args: &HistoryArgs) -> Result<Outcome, CliError> {
    let today = args.today.unwrap_or_else(|| SystemClock.today());
    let built_in = SupportedVersions::BUILT_IN;
    let week_4_old = built_in.week_4_old(today);
    if args.json {
        let versions: Vec<Value> = HISTORY
            .iter()
            .map(|entry| {
                json!({
                    "number": entry.number().value(),
                    "introduced": entry.introduced().to_string(),
                    "change": entry.change(),
                })
            })
            .collect();
        print_json(&json!({
            "versions": versions,
            "current": built_in.current().number().value(),
            "minimum": built_in.minimum().number().value(),
            "week_4_old": week_4_old.as_ref().ok().map(|v| v.number().value()),
            "today": today.to_string(),
        }))?;
    } else {
        let mut text = String::new();
        for entry in HISTORY {
            text.push_str(&format!(
                "{:>3}  {}  {}\n",
                entry.number().value(),
                entry.introduced(),
                entry.change()
            ));
        }
        let week_4_old = match &week_4_old {
            Ok(version) => version.to_string(),
            Err(error) => format!("none: {error}"),
        };
        text.push_str(&format!(
            "\ncurrent:    {}\nminimum:    {}\nweek-4-old: {week_4_old} (as of {today})\n",
            built_in.current(),
            built_in.minimum(),
        ));
        print(&text)?;
    }
    Ok(Outcome::Accepted)
}

fn inspect(args: &InspectArgs) -> Result<Outcome, CliError> {
    let built_in = SupportedVersions::BUILT_IN;
    let reader = SupportedVersions::new(
        args.minimum.unwrap_or(built_in.minimum().number()),
        args.current.unwrap_or(built_in.current().number()),
    )
    .map_err(CliError::Range)?;
    let report = read_file(&args.file, reader, args.proto);
    if args.json {
        print_json(&report.json(&args.file, reader))?;
    } else if let Some(text) = report.text(reader) {
        print(&text)?;
    }
    match report.result {
        Ok(_) => Ok(Outcome::Accepted),
        Err(Failure::Refused(_)) => Ok(Outcome::Rejected),
        Err(Failure::Unreadable(error)) => Err(error),
    }
}

/// What `inspect` found in a file.
struct Report {
    /// The envelope's type name, if the bytes are an envelope.
    type_name: Option<String>,
    /// The plain message the file was read as (`--proto`), if any.
    proto: Option<&'static str>,
    /// The value (in Rust's `{:?}` form), or why there is none.
    result: Result<String, Failure>,
    /// Every value in the file, outer first, with its recorded format, as read by a build of
    /// the whole history (so the list does not stop where the chosen reader refuses).
    values: Vec<RecordedFormat>,
    /// Whether that build read the whole file (else `values` stops at the first problem).
    complete: bool,
    /// A program's MLIR bytecode header: its producer (e.g. `StableHLO_v1.13.4`) and bytecode
    /// version; `None` for any other value.
    program: Option<(String, u64)>,
    /// The oldest version the reading build writes the file's type at (its minimum, or the
    /// type's own floor); `None` if it writes it at none or the type is unknown.
    lowest_writable: Option<SerDesVersionNumber>,
}

/// The versions in which the values of a file are all readable, `(from, to)`: each version of
/// it alone reads the whole file, and a build `[minimum, current]` reads the file exactly when
/// its range meets this one. `None` if no version does.
fn readable_in(
    values: &[RecordedFormat],
    newest: SerDesVersionNumber,
) -> Option<(SerDesVersionNumber, SerDesVersionNumber)> {
    let from = values.iter().map(|v| v.readable_in().0).max()?;
    let to = values
        .iter()
        .filter_map(|v| v.readable_in().1)
        .min()
        .unwrap_or(newest)
        .min(newest);
    (from <= to).then_some((from, to))
}

/// Why `inspect` has no value to show.
enum Failure {
    /// The bytes were read, and the reader refuses their version: exit 1.
    Refused(Error),
    /// The file or its bytes could not be read: exit 2.
    Unreadable(CliError),
}

impl Failure {
    fn message(&self) -> String {
        match self {
            Failure::Refused(error) => chain(error),
            Failure::Unreadable(error) => chain(error),
        }
    }
}

/// Reads `path` as a build supporting `reader` would: as one envelope, or as the plain message
/// of `proto`.
fn read_file(path: &Path, reader: SupportedVersions, proto: Option<ProtoKind>) -> Report {
    let unreadable = |error| Report {
        type_name: None,
        proto: None,
        result: Err(Failure::Unreadable(error)),
        values: Vec::new(),
        complete: false,
        program: None,
        lowest_writable: None,
    };
    // One serialized value: its length is checked against the library's limit for untrusted
    // input before anything is mapped, and the registry then reads the envelope and its payload
    // straight from the mapped pages, borrowing rather than copying them.
    let bytes = match read_input(path, DeserializeOptions::DEFAULT_MAX_BYTES as u64) {
        // Empty bytes decode as an envelope with no type name; say what is wrong instead. (A
        // plain message may be empty: all its fields at their defaults, a scalar's shape.)
        Ok(bytes) if bytes.is_empty() && proto.is_none() => {
            return unreadable(CliError::Empty {
                path: path.to_owned(),
            });
        }
        Ok(bytes) => bytes,
        Err(error) => return unreadable(error),
    };
    match proto {
        None => read_envelope(path, &bytes, reader),
        Some(ProtoKind::DType) => read_plain::<DType>(path, &bytes, reader),
        Some(ProtoKind::Shape) => read_plain::<Shape>(path, &bytes, reader),
        Some(ProtoKind::ArraySpec) => read_plain::<ArraySpec>(path, &bytes, reader),
        Some(ProtoKind::DeviceList) => read_plain::<DeviceList>(path, &bytes, reader),
    }
}

/// A registry of this build's types reading every version of the history this build knows,
/// so that `inspect` lists every value of a file, whatever reader it plays.
fn whole_history() -> Registry {
    let whole = SupportedVersions::new(HISTORY[0].number(), built_in_current())
        .map_or(SupportedVersions::BUILT_IN, |range| range);
    Registry::with_builtin_types(whole)
}

/// Sorts a failure: a version the reader refuses (exit 1), or bytes it cannot read (exit 2).
fn failure(error: Error, unreadable: impl FnOnce(Error) -> CliError) -> Failure {
    match error {
        Error::Incompatible(_) => Failure::Refused(error),
        source => Failure::Unreadable(unreadable(source)),
    }
}

/// Reads `bytes` as one `Serialized` envelope.
fn read_envelope(path: &Path, bytes: &[u8], reader: SupportedVersions) -> Report {
    let options = DeserializeOptions::default();
    let (read, values) = whole_history().inspect_bytes(bytes, &options);
    let registry = Registry::with_builtin_types(reader);
    let type_name = registry
        .envelope_from_bytes(bytes, &options)
        .map(|envelope| envelope.type_name)
        .ok();
    let result = registry
        .deserialize_dyn_from_bytes(bytes, &options)
        .map(|value| format!("{value:?}"))
        .map_err(|error| {
            failure(error, |source| CliError::Input {
                path: path.to_owned(),
                source,
            })
        });
    // The program's header, as a build of the whole history reads it (a reader that refuses
    // the file's versions still learns which StableHLO it needs).
    let program = read.as_ref().ok().and_then(|value| {
        let any: &dyn std::any::Any = value.as_ref();
        any.downcast_ref::<XlaProgram>()
            .map(|p| (p.producer().to_string(), p.bytecode_version()))
    });
    let lowest_writable = type_name
        .as_deref()
        .and_then(|name| registry.lowest_writable(name));
    Report {
        type_name,
        proto: None,
        result,
        values,
        complete: read.is_ok(),
        program,
        lowest_writable,
    }
}

/// Reads `bytes` as one plain `T::Proto` message, as IFRT's `FromProto` does.
fn read_plain<T: ProtoCodec>(path: &Path, bytes: &[u8], reader: SupportedVersions) -> Report {
    let options = DeserializeOptions::default();
    let (read, values) = whole_history().inspect_proto_bytes::<T>(bytes, &options);
    let result = Registry::with_builtin_types(reader)
        .from_proto_bytes::<T>(bytes, &options)
        .map(|value| format!("{value:?}"))
        .map_err(|error| {
            failure(error, |source| CliError::ProtoInput {
                path: path.to_owned(),
                proto: T::PROTO_NAME,
                source,
            })
        });
    Report {
        type_name: None,
        proto: Some(T::PROTO_NAME),
        result,
        values,
        complete: read.is_ok(),
        program: None,
        // A plain message has no floor of its own: the reader writes it from its minimum on.
        lowest_writable: Some(reader.minimum().number()),
    }
}

/// The newest version of this build.
fn built_in_current() -> SerDesVersionNumber {
    SupportedVersions::BUILT_IN.current().number()
}

impl Report {
    fn json(&self, file: &Path, reader: SupportedVersions) -> Value {
        let values: Vec<Value> = self
            .values
            .iter()
            .map(|v| json!({ "type": v.what(), "format": v.recorded.value() }))
            .collect();
        let readable_in = self
            .complete
            .then(|| readable_in(&self.values, built_in_current()))
            .flatten();
        json!({
            "values": values,
            "readable_in": readable_in.map(|(from, to)| json!({
                "minimum": from.value(),
                "current": to.value(),
            })),
            "narrowest_range": readable_in.map(|(from, _)| json!({
                "minimum": from.value(),
                "current": from.value(),
            })),
            "file": file.display().to_string(),
            "reader": {
                "minimum": reader.minimum().number().value(),
                "current": reader.current().number().value(),
            },
            "type_name": self.type_name,
            "proto": self.proto,
            "format": self.values.first().map(|v| v.recorded.value()),
            "stablehlo_producer": self.program.as_ref().map(|(producer, _)| producer),
            "mlir_bytecode_version": self.program.as_ref().map(|(_, version)| version),
            "lowest_writable": self.lowest_writable.map(|v| v.value()),
            "unreadable": matches!(self.result, Err(Failure::Unreadable(_))),
            "refused": matches!(self.result, Err(Failure::Refused(_))),
            "value": self.result.as_ref().ok(),
            "error": self.result.as_ref().err().map(Failure::message),
        })
    }

    /// The report for people; none when the file could not be read (`main` says why, on
    /// stderr).
    fn text(&self, reader: SupportedVersions) -> Option<String> {
        let last = match &self.result {
            Ok(value) => format!("value:     {value}"),
            Err(Failure::Refused(error)) => format!("refused:   {error}"),
            Err(Failure::Unreadable(_)) => return None,
        };
        let mut values = String::new();
        for value in &self.values {
            values.push_str(&format!(
                "  {} format {}\n",
                value.what(),
                value.recorded.value()
            ));
        }
        let readable_in = match self
            .complete
            .then(|| readable_in(&self.values, built_in_current()))
            .flatten()
        {
            // The range is of versions, not of builds: say what it means for a build.
            Some((from, to)) => format!(
                "readable in versions [{from}, {to}]: a build reads the file when its range \
                 [minimum, current] includes one of them\n  (minimum <= {to} and current >= \
                 {from}); this reader [{}, {}] {}",
                reader.minimum().number().value(),
                reader.current().number().value(),
                if reader.minimum().number() <= to && reader.current().number() >= from {
                    "does"
                } else {
                    "does not"
                },
                from = from.value(),
                to = to.value(),
            ),
            None => "readable in no version of this history".to_string(),
        };
        let what = match (self.proto, &self.type_name) {
            (Some(proto), _) => format!("proto:     {proto} (a plain message, no envelope)"),
            (None, Some(type_name)) => format!("type name: {type_name}"),
            (None, None) => "type name: (no envelope)".to_string(),
        };
        let mut facts = String::new();
        if let Some((producer, version)) = &self.program {
            facts.push_str(&format!(
                "producer:  {producer} (MLIR bytecode version {version})\n"
            ));
        }
        match self.lowest_writable {
            Some(lowest) if lowest > reader.minimum().number() => facts.push_str(&format!(
                "written:   at version {} or newer only (the type's own floor)\n",
                lowest.value()
            )),
            None if self.type_name.is_some() => {
                facts.push_str("written:   at no version of this reader's range\n")
            }
            _ => {}
        }
        Some(format!(
            "reader:    [{}, {}]\n{what}\n{facts}values (type, recorded format):\n{values}{readable_in}\n{last}\n",
            reader.minimum().number().value(),
            reader.current().number().value(),
        ))
    }
}

/// Refuses a range no build announces: a negative end, or a minimum above the maximum. That is
/// a usage error (exit 2), not two builds that disagree (exit 1).
fn check_range(side: &'static str, range: VersionRange) -> Result<(), CliError> {
    let why = if range.min.value() < 0 || range.max.value() < 0 {
        "version numbers are never negative (the first version is 0)"
    } else if range.min > range.max {
        "its minimum is above its maximum; give the minimum first"
    } else {
        return Ok(());
    };
    Err(CliError::BadRange { side, range, why })
}

fn negotiate_ranges(args: &NegotiateArgs) -> Result<Outcome, CliError> {
    let (client, server) = match (args.client, args.versions.as_slice()) {
        (Some(jaxlib), &[server_min, server_max]) => (
            jaxlib.serdes_as_sent(),
            VersionRange {
                min: server_min,
                max: server_max,
            },
        ),
        (None, &[client_min, client_max, server_min, server_max]) => (
            VersionRange {
                min: client_min,
                max: client_max,
            },
            VersionRange {
                min: server_min,
                max: server_max,
            },
        ),
        (jaxlib, versions) => {
            return Err(CliError::VersionCount {
                given: versions.len(),
                with_client: jaxlib.is_some(),
            });
        }
    };
    check_range("client", client)?;
    check_range("server", server)?;
    let agreed = negotiate(client, server);
    // With a measured client: what its jit did when a server chose the agreed version. A
    // client without the SerDes field reads no version from the server: its one run says.
    let jit = args
        .client
        .zip(agreed.as_ref().ok())
        .and_then(|(jaxlib, &version)| match jaxlib.serdes() {
            Some(_) => jaxlib.jit_at(version),
            None => jaxlib.jit_runs().first().map(|run| run.outcome),
        });
    if args.json {
        let range = |r: VersionRange| json!({ "min": r.min.value(), "max": r.max.value() });
        let mut report = json!({
            "client": range(client),
            "server": range(server),
            "agreed": agreed.as_ref().ok().map(|version| version.value()),
            "error": agreed.as_ref().err().map(ToString::to_string),
        });
        if let Some(jaxlib) = args.client {
            let protocol = jaxlib.proxy_protocol();
            report["client"]["jaxlib"] = json!(jaxlib.release());
            report["client"]["serdes_field"] = json!(jaxlib.serdes().is_some());
            report["client"]["proxy_protocol"] =
                json!([protocol.min.value(), protocol.max.value()]);
            report["jit"] = jit.map_or(Value::Null, |outcome| match outcome {
                JitOutcome::ProgramSent => json!({ "program_sent": true, "error": null }),
                JitOutcome::Refused(error) => json!({ "program_sent": false, "error": error }),
                JitOutcome::NotReached(why) => json!({ "program_sent": null, "error": why }),
            });
        }
        print_json(&report)?;
    }
    match agreed {
        Ok(version) => {
            if !args.json {
                let mut text = format!("agreed: IFRT SerDes version {version}\n");
                if let Some(jaxlib) = args.client {
                    text.push_str(&client_note(jaxlib, jit));
                }
                print(&text)?;
            }
            Ok(Outcome::Accepted)
        }
        Err(error) => {
            // The refusal is the answer, in IFRT Proxy's words; a JSON reader has it on stdout.
            eprintln!("{TOOL}: {error}");
            Ok(Outcome::Rejected)
        }
    }
}

/// What `negotiate --client` adds for people: where the client's range comes from, and what its
/// jit did at the agreed version.
fn client_note(jaxlib: &JaxlibClient, jit: Option<JitOutcome>) -> String {
    let release = jaxlib.release();
    let mut text = match jaxlib.serdes() {
        Some(range) => format!(
            "client:  jaxlib {release} offers IFRT SerDes [{}, {}]\n",
            range.min, range.max
        ),
        None => format!(
            "client:  jaxlib {release}'s IfrtProxyVersion has no ifrt_serdes_version_number \
             field; a server reads [0, 0]\n"
        ),
    };
    text.push_str(&match jit {
        Some(JitOutcome::ProgramSent) => {
            "jit:     works: the client sends its program at this version\n".to_string()
        }
        Some(JitOutcome::Refused(error)) => {
            format!("jit:     fails: the client sends no program at this version: {error}\n")
        }
        Some(JitOutcome::NotReached(why)) => format!("jit:     unknown: {why}\n"),
        None => "jit:     not measured at this version\n".to_string(),
    });
    text
}
