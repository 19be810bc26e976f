//! How a run ends: what it concluded, the exit code that follows, and its output.
//!
//! Exit 0: done, accepted, compatible; exit 1: the input was read and is refused, incompatible
//! or would not load; exit 2: the run could not conclude (unreadable input, bad usage), said on
//! stderr on one line that starts with the tool's name.
//!
//! This file is the same in the command-line tools of graphdef-versions, tflite-opver and
//! ifrt-serdes: the crates stay independent, so each keeps its own copy, and a test
//! (`xtask/tests/alike.rs`) fails when the copies differ.

use std::io::{self, Write as _};
use std::process::ExitCode;

use serde_json::Value;

use crate::{CliError, TOOL};

/// What a run concluded; the exit code follows from it.
pub(crate) enum Outcome {
    /// Exit 0: done, accepted, compatible.
    Accepted,
    /// Exit 1: the input was read fine and is refused / incompatible / would not load.
    Rejected,
}

/// The exit code of a run; an error is first said on stderr, with its causes.
pub(crate) fn exit_code(result: Result<Outcome, CliError>) -> ExitCode {
    match result {
        Ok(Outcome::Accepted) => ExitCode::SUCCESS,
        Ok(Outcome::Rejected) => ExitCode::from(1),
        Err(error) => {
            eprintln!("{TOOL}: {}", chain(&error));
            ExitCode::from(2)
        }
    }
}

/// An error and its `source()` chain on one line, joined with ": ". A cause whose text its
/// parent already ends with (an error that displays its own source) is not repeated.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut previous = text.clone();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !previous.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        previous = cause_text;
        source = cause.source();
    }
    text
}

/// Writes `text` to stdout.
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(CliError::Output)
}

/// Writes one JSON object and a newline to stdout.
pub(crate) fn print_json(value: &Value) -> Result<(), CliError> {
    print(&format!("{value}\n"))
}
