//! `ifrt-serdes`: look at IFRT SerDes versions and serialized bytes.
//!
//! ```text
//! ifrt-serdes history [--today YYYY-MM-DD]
//! ifrt-serdes inspect FILE [--minimum N] [--current N] [--json]
//! ifrt-serdes negotiate CLIENT_MIN CLIENT_MAX SERVER_MIN SERVER_MAX
//! ```
//!
//! Exit status: 0 readable / agreed, 1 incompatible (a version outside the build's range, or no
//! common version), 2 unreadable input or bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ifrt_serdes::version::{HISTORY, SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    CivilDate, Clock, DeserializeOptions, Error, Incompatible, Registry, SystemClock, VersionRange,
    negotiate,
};
use serde_json::json;

#[derive(Parser)]
#[command(
    name = "ifrt-serdes",
    version,
    about = "IFRT's dated serialization versions: history, reading serialized bytes, negotiation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The version history, with the current, minimum and week-4-old versions.
    History {
        /// Compute week-4-old as of this day instead of today (UTC).
        #[arg(long)]
        today: Option<String>,
    },
    /// Read a file holding one `Serialized` envelope, as a build of the given range would.
    Inspect {
        /// The file.
        file: PathBuf,
        /// The reading build's minimum version (default: this build's).
        #[arg(long, allow_hyphen_values = true)]
        minimum: Option<i32>,
        /// The reading build's current version (default: this build's).
        #[arg(long, allow_hyphen_values = true)]
        current: Option<i32>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The version a client and a server with these ranges agree on (IFRT Proxy).
    Negotiate {
        #[arg(allow_hyphen_values = true)]
        client_min: i32,
        #[arg(allow_hyphen_values = true)]
        client_max: i32,
        #[arg(allow_hyphen_values = true)]
        server_min: i32,
        #[arg(allow_hyphen_values = true)]
        server_max: i32,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::History { today } => history(today.as_deref()),
        Command::Inspect {
            file,
            minimum,
            current,
            json,
        } => inspect(&file, minimum, current, json),
        Command::Negotiate {
            client_min,
            client_max,
            server_min,
            server_max,
        } => {
            let range = |min, max| VersionRange {
                min: SerDesVersionNumber::new(min),
                max: SerDesVersionNumber::new(max),
            };
            match negotiate(range(client_min, client_max), range(server_min, server_max)) {
                Ok(version) => {
                    println!("agreed: {version}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("{error}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

fn history(today: Option<&str>) -> ExitCode {
    let today = match today.map(str::parse::<CivilDate>) {
        None => SystemClock.today(),
        Some(Ok(date)) => date,
        Some(Err(error)) => return usage(&Error::from(error)),
    };
    let built_in = SupportedVersions::BUILT_IN;
    for entry in HISTORY {
        println!(
            "{:>3}  {}  {}",
            entry.number.value(),
            entry.introduced,
            entry.change
        );
    }
    println!();
    println!("current:    {}", built_in.current());
    println!("minimum:    {}", built_in.minimum());
    println!("week-4-old: {} (as of {today})", built_in.week_4_old(today));
    ExitCode::SUCCESS
}

fn inspect(file: &PathBuf, minimum: Option<i32>, current: Option<i32>, json: bool) -> ExitCode {
    let built_in = SupportedVersions::BUILT_IN;
    let range = match SupportedVersions::new(
        minimum.map_or(built_in.minimum().number(), SerDesVersionNumber::new),
        current.map_or(built_in.current().number(), SerDesVersionNumber::new),
    ) {
        Ok(range) => range,
        Err(error) => return usage(&error),
    };
    let options = DeserializeOptions::default();
    let too_big = std::fs::metadata(file).is_ok_and(|m| m.len() > options.max_bytes as u64);
    let bytes = match std::fs::read(file) {
        Ok(_) if too_big => {
            eprintln!(
                "{}: larger than {} bytes",
                file.display(),
                options.max_bytes
            );
            return ExitCode::from(2);
        }
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("{}: {error}", file.display());
            return ExitCode::from(2);
        }
    };
    let registry = Registry::with_builtin_types(range);
    let type_name = registry
        .envelope_from_bytes(&bytes, &options)
        .map(|envelope| envelope.type_name)
        .ok();
    let result = registry.deserialize_dyn_from_bytes(&bytes, &options);
    let code = match &result {
        Ok(_) => 0,
        Err(Error::Incompatible(Incompatible::UnsupportedDeserializationVersion { .. })) => 1,
        Err(_) => 2,
    };
    if json {
        let report = json!({
            "file": file.display().to_string(),
            "reader": { "minimum": range.minimum().number().value(), "current": range.current().number().value() },
            "type_name": type_name,
            "readable": result.is_ok(),
            "value": result.as_ref().ok().map(|value| format!("{value:?}")),
            "error": result.as_ref().err().map(ToString::to_string),
        });
        println!("{report:#}");
    } else {
        println!(
            "reader:    [{}, {}]",
            range.minimum().number().value(),
            range.current().number().value()
        );
        println!(
            "type name: {}",
            type_name.as_deref().unwrap_or("(no envelope)")
        );
        match &result {
            Ok(value) => println!("value:     {value:?}"),
            Err(error) => println!("refused:   {error}"),
        }
    }
    ExitCode::from(code)
}

fn usage(error: &Error) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(2)
}
