//! `runtimes MODEL [--require NAME]...`: which real TensorFlow Lite runtimes load the model,
//! and in what words the others refuse it.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use tflite_opver::{
    Allocation, BlockingCause, BlockingOperator, KernelGap, KernelGaps, LoadOutcome, Model,
    Runtime, RuntimeFamily, RuntimeVerdict, RuntimeVerdicts, StampWarning, StoredTooLow,
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
    // A required runtime gates on what the tool can tell: construction, and allocation where
    // it is judged.
    let refused: Vec<&RuntimeVerdict> = required
        .iter()
        .map(|&runtime| verdicts.verdict(runtime))
        .filter(|verdict| verdict.runs() == Some(false))
        .collect();
    let rejected = if required.is_empty() {
        verdicts.iter().all(|v| v.runs() == Some(false))
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
        print(&report_text(path, model, &verdicts, stamp_warnings))?;
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

/// A runtime's text with its line breaks as spaces.
fn flat(message: &str) -> String {
    let words: Vec<&str> = message.split('\n').map(str::trim).collect();
    words.join(" ").trim().to_owned()
}

/// A verdict on one line: construction, then allocation (the runtime's text with its line
/// breaks as spaces).
pub(crate) fn one_line(verdict: &RuntimeVerdict) -> String {
    match &verdict.outcome {
        LoadOutcome::Loads => match &verdict.allocation {
            Allocation::Allocates => "loads and allocates".to_owned(),
            Allocation::Refused { message, .. } => {
                format!("loads, but allocate_tensors() fails: {}", flat(message))
            }
            Allocation::NotJudged { reason } => {
                format!("loads; allocate_tensors() not judged: {reason}")
            }
            _ => "loads".to_owned(),
        },
        LoadOutcome::Crashes => {
            "crashes: TFLite dereferences the missing subgraphs vector (segmentation fault)"
                .to_owned()
        }
        LoadOutcome::Refused { message, .. } => flat(message),
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

pub(crate) fn blocking_text(model: &Model<'_>, blocking: &BlockingOperator) -> String {
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

fn report_text(
    path: &Path,
    model: &Model<'_>,
    verdicts: &RuntimeVerdicts,
    stamp_warnings: &[StampWarning],
) -> String {
    let mut text = String::new();
    let loading = verdicts.loading().count();
    let count = |value: Option<bool>| {
        verdicts
            .iter()
            .filter(|v| v.loads() && v.allocates() == value)
            .count()
    };
    // Writing to a String cannot fail.
    let _ = writeln!(
        text,
        "{}: loads on {loading} of {} runtimes (the interpreter is constructed); \
         allocate_tensors() refused on {}, succeeds on {}, not judged on {}",
        path.display(),
        verdicts.iter().len(),
        count(Some(false)),
        count(Some(true)),
        count(None),
    );
    let oldest: Vec<String> = RuntimeFamily::ALL
        .iter()
        .map(|&family| match verdicts.oldest(family) {
            Some(runtime) => runtime.to_string(),
            None => format!("no {family}"),
        })
        .collect();
    let _ = writeln!(text, "oldest that load it: {}", oldest.join(", "));
    text.push_str(&stored_too_low_text(model, stamp_warnings));
    if let Some(excluded) = restamp_refused_by(model, verdicts, stamp_warnings)
        && !excluded.is_empty()
    {
        let names: Vec<String> = excluded.iter().map(Runtime::to_string).collect();
        let _ = writeln!(
            text,
            "re-stamped (tflite-opver stamp), it would be refused by: {}",
            names.join(", ")
        );
    }
    let kernels = model.kernel_gaps();
    text.push_str(&kernels_summary(&kernels));
    for verdict in verdicts {
        let runtime = verdict.runtime.to_string();
        let _ = writeln!(text, "  {runtime:<24} {}", one_line(verdict));
        for blocking in &verdict.blocking {
            let _ = writeln!(text, "  {:<24}   {}", "", blocking_text(model, blocking));
        }
        if verdict.loads() {
            for gap in kernels.of(verdict.runtime) {
                let _ = writeln!(text, "  {:<24}   {}", "", gap_text(gap));
            }
        }
    }
    text
}

/// What the kernel facts reach for the model, in one or two lines.
fn kernels_summary(kernels: &KernelGaps) -> String {
    let mut text = format!(
        "kernels: {} operator form(s) measured (one-operator probes run on every runtime and \
         compared with {}), {} not measured",
        kernels.measured,
        KernelGaps::reference(),
        kernels.not_measured.len()
    );
    if !kernels.not_measured.is_empty() {
        let names: Vec<&str> = kernels
            .not_measured
            .iter()
            .map(|(_, n)| n.as_str())
            .collect();
        let _ = write!(
            text,
            " (nothing is known of their kernels): {}",
            names.join(", ")
        );
    }
    text.push('\n');
    text
}

/// One kernel gap, on one line.
pub(crate) fn gap_text(gap: &KernelGap) -> String {
    format!(
        "kernel gap: {} ({}) at subgraph {} operator {}{}, {}: {}",
        gap.op.name().unwrap_or("an unknown builtin"),
        gap.types,
        gap.at.subgraph,
        gap.at.operator,
        if gap.nodes > 1 {
            format!(" and {} more alike", gap.nodes - 1)
        } else {
            String::new()
        },
        gap_stage_words(gap),
        flat(&gap.text)
    )
}

fn gap_stage_words(gap: &KernelGap) -> &'static str {
    match gap.stage {
        tflite_opver::KernelStage::Prepare => "allocate_tensors() raises",
        tflite_opver::KernelStage::Invoke => "invoke() raises",
        tflite_opver::KernelStage::Signal => "the process dies",
        tflite_opver::KernelStage::Wrong => "computes wrongly",
    }
}

fn gap_json(gap: &KernelGap) -> Value {
    json!({
        "subgraph": gap.at.subgraph,
        "operator": gap.at.operator,
        "nodes": gap.nodes,
        "name": gap.op.name(),
        "builtin_code": gap.op.code(),
        "types": gap.types,
        "stage": gap.stage.name(),
        "text": gap.text,
        "probe": gap.probe,
    })
}

fn report_json(
    path: &Path,
    model: &Model<'_>,
    verdicts: &RuntimeVerdicts,
    required: &[Runtime],
    stamp_warnings: &[StampWarning],
) -> Value {
    let kernels = model.kernel_gaps();
    let runtimes: Vec<Value> = verdicts
        .iter()
        .map(|verdict| runtime_json(model, verdict, &kernels))
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
            let verdict = verdicts.verdict(runtime);
            json!({
                "runtime": runtime.to_string(),
                "loads": verdict.loads(),
                "allocates": verdict.allocates(),
                "runs": verdict.runs(),
            })
        })
        .collect();
    json!({
        "file": path.display().to_string(),
        "unreadable": false,
        "runtimes": runtimes,
        "loads_on": verdicts.loading().map(|r| r.to_string()).collect::<Vec<_>>(),
        "allocates_on": verdicts
            .iter()
            .filter(|v| v.allocates() == Some(true))
            .map(|v| v.runtime.to_string())
            .collect::<Vec<_>>(),
        "allocation_refused_by": verdicts
            .iter()
            .filter(|v| v.loads() && v.allocates() == Some(false))
            .map(|v| v.runtime.to_string())
            .collect::<Vec<_>>(),
        "oldest": oldest,
        "required": required,
        "stored_too_low": stored_too_low_json(model, stamp_warnings),
        "restamp_refused_by": restamp_refused_by(model, verdicts, stamp_warnings)
            .map(|runtimes| runtimes.iter().map(Runtime::to_string).collect::<Vec<_>>()),
        "kernels": {
            "reference": KernelGaps::reference(),
            "tolerance": KernelGaps::tolerance(),
            "measured": kernels.measured,
            "not_measured": kernels
                .not_measured
                .iter()
                .map(|(at, name)| json!({
                    "subgraph": at.subgraph,
                    "operator": at.operator,
                    "name": name,
                }))
                .collect::<Vec<_>>(),
        },
        "warnings": warnings::warnings_json(stamp_warnings),
    })
}

/// The runtimes that load the model but refuse its re-stamped copy: none when no stamp is
/// too low (nothing is re-stamped then, and the model is not judged again); `None` when the
/// model cannot be re-stamped.
fn restamp_refused_by(
    model: &Model<'_>,
    verdicts: &RuntimeVerdicts,
    stamp_warnings: &[StampWarning],
) -> Option<Vec<Runtime>> {
    verdicts.restamp_refused_by(model, stamp_warnings).ok()
}

/// The operator codes stored too low, computed only when a stamp warning says there is one.
fn stored_too_low(model: &Model<'_>, stamp_warnings: &[StampWarning]) -> Vec<StoredTooLow> {
    if stamp_warnings
        .iter()
        .any(|w| matches!(w, StampWarning::VersionTooLow { .. }))
    {
        model.stored_too_low()
    } else {
        Vec::new()
    }
}

/// `stored_too_low` of `runtimes --json`: each operator code stored below what its operators
/// need, and the known runtimes that register the stored version but not the required one.
fn stored_too_low_json(model: &Model<'_>, stamp_warnings: &[StampWarning]) -> Value {
    Value::Array(
        stored_too_low(model, stamp_warnings)
            .iter()
            .map(|low| {
                let code = model.operator_codes()[low.code];
                json!({
                    "operator_code": low.code,
                    "name": crate::code_name(code.kind(), code.builtin.code()),
                    "stored_version": low.stored.get(),
                    "required_version": low.required.get(),
                    "stored_only": low.stored_only.iter().map(Runtime::to_string).collect::<Vec<_>>(),
                    "all_register_required": low.all_register_required,
                })
            })
            .collect(),
    )
}

/// The text lines about stamps stored too low: which known runtimes run the model as stored
/// without the required version, and which re-stamping would exclude.
fn stored_too_low_text(model: &Model<'_>, stamp_warnings: &[StampWarning]) -> String {
    let mut text = String::new();
    for low in stored_too_low(model, stamp_warnings) {
        let code = model.operator_codes()[low.code];
        let name = crate::code_name(code.kind(), code.builtin.code());
        // Writing to a String cannot fail.
        let _ = if low.all_register_required {
            writeln!(
                text,
                "operator code {} ({name}) stored v{}, needs v{}: every known runtime registers \
                 v{}, so for them this concerns the file's metadata only",
                low.code, low.stored, low.required, low.required
            )
        } else if low.stored_only.is_empty() {
            writeln!(
                text,
                "operator code {} ({name}) stored v{}, needs v{}: no known runtime registers \
                 v{} without v{}",
                low.code, low.stored, low.required, low.stored, low.required
            )
        } else {
            let names: Vec<String> = low.stored_only.iter().map(Runtime::to_string).collect();
            writeln!(
                text,
                "operator code {} ({name}) stored v{}, needs v{}: {} register v{} but not v{} \
                 (they run it with no version check; whether their kernel handles it cannot be \
                 read from versions)",
                low.code,
                low.stored,
                low.required,
                names.join(", "),
                low.stored,
                low.required
            )
        };
    }
    text
}

/// One runtime's entry of `runtimes --json` (and of `check --runtime NAME --json`): what
/// constructing its interpreter does, then what `allocate_tensors()` does.
pub(crate) fn runtime_json(
    model: &Model<'_>,
    verdict: &RuntimeVerdict,
    kernels: &KernelGaps,
) -> Value {
    // Kernels are reached only by a runtime that constructs the interpreter.
    let kernel_gaps = verdict.loads().then(|| {
        kernels
            .of(verdict.runtime)
            .map(gap_json)
            .collect::<Vec<_>>()
    });
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
    let (allocate_refused_by, allocate_node, allocate_op, allocate_note) = match &verdict.allocation
    {
        Allocation::Refused {
            cause, node, op, ..
        } => (Some(cause.name()), Some(*node), Some(op.clone()), None),
        Allocation::NotJudged { reason } => (None, None, None, Some(reason.to_string())),
        Allocation::NotConstructed => (
            None,
            None,
            None,
            Some("the interpreter is not constructed".to_owned()),
        ),
        _ => (None, None, None, None),
    };
    json!({
        "runtime": verdict.runtime.to_string(),
        "family": verdict.runtime.family().name(),
        "version": verdict.runtime.version(),
        "loads": verdict.loads(),
        "crashes": verdict.outcome == LoadOutcome::Crashes,
        "refused_by": refused_by,
        "error": error,
        "blocking": blocking,
        "allocates": verdict.allocates(),
        "allocate_error": verdict.allocation.error(),
        "allocate_refused_by": allocate_refused_by,
        "allocate_node": allocate_node,
        "allocate_op": allocate_op,
        "allocate_note": allocate_note,
        "runs": verdict.runs(),
        "kernel_gaps": kernel_gaps,
    })
}
