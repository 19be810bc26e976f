//! `runtimes MODEL [--require NAME]...`: which real TensorFlow Lite runtimes load the model,
//! and in what words the others refuse it.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use tflite_opver::{
    BlockingCause, BlockingOperator, LoadOutcome, Model, Runtime, RuntimeFamily, RuntimeVerdict,
    RuntimeVerdicts, StampWarning,
};

use crate::outcome::{Outcome, print, print_json};
use crate::{CliError, TOOL, warnings};

/// Judges `model` on every runtime; `required`: the runtimes a deploy needs.
pub(crate) fn judge(
    path: &Path,
    model: &Model<'_>,
    required: &[Runtime],
    as_json: bool,
    stamp_warnings: &[StampWarning],
) -> Result<Outcome, CliError> {
    let verdicts = model.runtime_verdicts();
    let refused: Vec<&RuntimeVerdict> = required
        .iter()
        .map(|&runtime| verdicts.verdict(runtime))
        .filter(|verdict| !verdict.loads())
        .collect();
    let rejected = if required.is_empty() {
        verdicts.loading().next().is_none()
    } else {
        !refused.is_empty()
    };
    if as_json {
        print_json(&report_json(
            path,
            model,
            &verdicts,
            required,
            stamp_warnings,
        ))?;
    } else {
        print(&report_text(path, model, &verdicts))?;
        let mut text = String::new();
        for verdict in &refused {
            // Writing to a String cannot fail.
            let _ = writeln!(
                text,
                "{TOOL}: {}: {} refuses it (required): {}",
                path.display(),
                verdict.runtime,
                one_line(verdict)
            );
            for blocking in &verdict.blocking {
                let _ = writeln!(
                    text,
                    "{TOOL}: {}: {}: {}",
                    path.display(),
                    verdict.runtime,
                    blocking_text(model, blocking)
                );
            }
        }
        eprint!("{text}");
        warnings::warn(path, stamp_warnings);
    }
    Ok(if rejected {
        Outcome::Rejected
    } else {
        Outcome::Accepted
    })
}

/// A verdict's outcome on one line: the runtime's text with its line breaks as spaces.
fn one_line(verdict: &RuntimeVerdict) -> String {
    match &verdict.outcome {
        LoadOutcome::Loads => "loads".to_owned(),
        LoadOutcome::Crashes => {
            "crashes: TFLite dereferences the missing subgraphs vector (segmentation fault)"
                .to_owned()
        }
        LoadOutcome::Refused { message, .. } => {
            let words: Vec<&str> = message.split('\n').map(str::trim).collect();
            words.join(" ").trim().to_owned()
        }
        _ => "refuses it".to_owned(),
    }
}

/// The operator code's name, as `inspect` gives it.
fn name_of(model: &Model<'_>, blocking: &BlockingOperator) -> String {
    let code = model.operator_codes()[blocking.code];
    crate::code_name(code.kind(), code.builtin.code())
}

fn cause_name(cause: BlockingCause) -> &'static str {
    match cause {
        BlockingCause::CodeOutOfRange => "code_out_of_range",
        BlockingCause::VersionNotRegistered => "version_not_registered",
        BlockingCause::NoCustomCode => "no_custom_code",
        _ => "unresolved",
    }
}

fn blocking_text(model: &Model<'_>, blocking: &BlockingOperator) -> String {
    let registered = match (blocking.cause, blocking.max_registered) {
        (BlockingCause::CodeOutOfRange, _) => "a builtin code it does not know".to_owned(),
        (BlockingCause::NoCustomCode, _) => "a CUSTOM code that names no op".to_owned(),
        (_, Some(max)) => format!("it registers up to v{max}"),
        (_, None) => "it registers no version".to_owned(),
    };
    let required = &blocking.required;
    let fix = if required.version() < blocking.version {
        "; `tflite-opver stamp --minimize` lowers it"
    } else {
        ""
    };
    format!(
        "operator code {} ({} v{}): {registered}; its operators need {required}{fix}",
        blocking.code,
        name_of(model, blocking),
        blocking.version,
    )
}

fn report_text(path: &Path, model: &Model<'_>, verdicts: &RuntimeVerdicts) -> String {
    let mut text = String::new();
    let loading = verdicts.loading().count();
    // Writing to a String cannot fail.
    let _ = writeln!(
        text,
        "{}: loads on {loading} of {} runtimes",
        path.display(),
        verdicts.iter().len()
    );
    let oldest: Vec<String> = RuntimeFamily::ALL
        .iter()
        .map(|&family| match verdicts.oldest(family) {
            Some(runtime) => runtime.to_string(),
            None => format!("no {family}"),
        })
        .collect();
    let _ = writeln!(text, "oldest that load it: {}", oldest.join(", "));
    for verdict in verdicts {
        let runtime = verdict.runtime.to_string();
        let _ = writeln!(text, "  {runtime:<24} {}", one_line(verdict));
        for blocking in &verdict.blocking {
            let _ = writeln!(text, "  {:<24}   {}", "", blocking_text(model, blocking));
        }
    }
    text
}

fn report_json(
    path: &Path,
    model: &Model<'_>,
    verdicts: &RuntimeVerdicts,
    required: &[Runtime],
    stamp_warnings: &[StampWarning],
) -> Value {
    let runtimes: Vec<Value> = verdicts
        .iter()
        .map(|verdict| {
            let (refused_by, error) = match &verdict.outcome {
                LoadOutcome::Refused { by, message } => (Some(by.name()), Some(message.clone())),
                _ => (None, None),
            };
            let blocking: Vec<Value> = verdict
                .blocking
                .iter()
                .map(|b| {
                    json!({
                        "operator_code": b.code,
                        "name": name_of(model, b),
                        "builtin_code": b.op.code(),
                        "version": b.version.get(),
                        "max_registered_version": b.max_registered.map(|v| v.get()),
                        "cause": cause_name(b.cause),
                        "required_version": b.required.version().get(),
                        "reason": b.required.to_string(),
                    })
                })
                .collect();
            json!({
                "runtime": verdict.runtime.to_string(),
                "family": verdict.runtime.family().name(),
                "version": verdict.runtime.version(),
                "loads": verdict.loads(),
                "crashes": verdict.outcome == LoadOutcome::Crashes,
                "refused_by": refused_by,
                "error": error,
                "blocking": blocking,
            })
        })
        .collect();
    let mut oldest = serde_json::Map::new();
    for family in RuntimeFamily::ALL {
        oldest.insert(
            family.name().to_owned(),
            json!(verdicts.oldest(family).map(Runtime::version)),
        );
    }
    let required: Vec<Value> = required
        .iter()
        .map(|&runtime| {
            json!({
                "runtime": runtime.to_string(),
                "loads": verdicts.verdict(runtime).loads(),
            })
        })
        .collect();
    json!({
        "file": path.display().to_string(),
        "unreadable": false,
        "runtimes": runtimes,
        "loads_on": verdicts.loading().map(|r| r.to_string()).collect::<Vec<_>>(),
        "oldest": oldest,
        "required": required,
        "warnings": warnings::warnings_json(stamp_warnings),
    })
}
