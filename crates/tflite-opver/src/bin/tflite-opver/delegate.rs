//! `check MODEL --delegate NAME`: the nodes a TFLite delegate refuses on version grounds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;
use tflite_opver::{Delegate, Model, Placement, Refusal, StampWarning};

use crate::outcome::{Outcome, print, print_json};
use crate::{CliError, TOOL, code_name, warnings};

/// The delegates whose version checks the crate carries.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum DelegateName {
    /// TFLite's GPU delegate (its model builder's `CheckMaxSupportedOpVersion` calls).
    Gpu,
    /// Android's NNAPI delegate (`Validate`'s `ExpectMaxOpVersion` / `ExpectOpVersion`).
    Nnapi,
    /// The XNNPACK delegate (refuses FULLY_CONNECTED version 8).
    Xnnpack,
}

impl DelegateName {
    fn delegate(self) -> Delegate {
        match self {
            Self::Gpu => Delegate::gpu(),
            Self::Nnapi => Delegate::nnapi(),
            Self::Xnnpack => Delegate::xnnpack(),
        }
    }
}

/// One node the delegate refuses on version grounds.
struct VersionRefusal {
    subgraph: usize,
    operator: usize,
    name: String,
    version: i32,
    /// `None` when the delegate caps nothing but refuses this one version.
    max_version: Option<i32>,
    reason: String,
}

/// Judges every node of `model` by the version of its operator code, as `name` would.
pub(crate) fn check(
    path: &Path,
    model: &Model<'_>,
    name: DelegateName,
    as_json: bool,
    stamp_warnings: &[StampWarning],
) -> Result<Outcome, CliError> {
    let delegate = name.delegate();
    let mut refusals = Vec::new();
    // Operators without a kernel in the delegate, and how many nodes use each.
    let mut no_kernel: BTreeMap<String, usize> = BTreeMap::new();
    let mut nodes = 0usize;
    for at in model.operators() {
        nodes += 1;
        let Ok(index) = model.opcode_index(at) else {
            continue;
        };
        let code = model.operator_codes()[index];
        let op_name = code_name(code.kind(), code.builtin.code());
        let Some(capability) = delegate.capability(code.kind()) else {
            *no_kernel.entry(op_name).or_default() += 1;
            continue;
        };
        if capability.accepts_version(code.version) {
            continue;
        }
        let signature = model.signature(at).map_err(|source| CliError::Input {
            path: path.to_owned(),
            source,
        })?;
        let partition = delegate.partition([(at.operator, &signature, code.version)]);
        let decision = &partition.decisions()[0];
        let max_version = match &decision.placement {
            Placement::Cpu(Refusal::VersionTooNew { max, .. }) => Some(max.get()),
            _ => None,
        };
        refusals.push(VersionRefusal {
            subgraph: at.subgraph,
            operator: at.operator,
            name: op_name,
            version: code.version.get(),
            max_version,
            reason: decision.reason().unwrap_or_default(),
        });
    }
    let not_modelled = delegate.not_modelled().unwrap_or_default();
    let file = path.display();
    let delegate_name = delegate.name();
    let no_kernel_nodes: usize = no_kernel.values().sum();
    if as_json {
        let refused: Vec<_> = refusals
            .iter()
            .map(|r| {
                json!({
                    "subgraph": r.subgraph,
                    "operator": r.operator,
                    "name": r.name,
                    "version": r.version,
                    "max_version": r.max_version,
                    "reason": r.reason,
                })
            })
            .collect();
        print_json(&json!({
            "file": file.to_string(),
            "unreadable": false,
            "delegate": delegate_name,
            "versions_accepted": refusals.is_empty(),
            "version_refusals": refused,
            "no_kernel": no_kernel.keys().collect::<Vec<_>>(),
            "no_kernel_nodes": no_kernel_nodes,
            "not_modelled": not_modelled,
            "warnings": warnings::warnings_json(stamp_warnings),
        }))?;
    } else {
        let mut summary = String::new();
        // Writing to a String cannot fail.
        if !no_kernel.is_empty() {
            let ops: Vec<_> = no_kernel.keys().map(String::as_str).collect();
            let _ = writeln!(
                summary,
                "{no_kernel_nodes} node(s) have no {delegate_name} kernel at all and stay on the \
                 CPU: {}",
                ops.join(", ")
            );
        }
        let _ = writeln!(summary, "note: {not_modelled}");
        if refusals.is_empty() {
            print(&format!(
                "{file}: the {delegate_name} delegate refuses none of its {nodes} node(s) on \
                 version grounds\n{summary}"
            ))?;
        } else {
            let mut text = format!(
                "{TOOL}: {file}: the {delegate_name} delegate refuses {} of its {nodes} node(s) \
                 on version grounds\n",
                refusals.len()
            );
            for r in &refusals {
                let _ = writeln!(
                    text,
                    "{TOOL}: {file}: subgraph {} node {} ({} v{}): {}",
                    r.subgraph, r.operator, r.name, r.version, r.reason
                );
            }
            for line in summary.lines() {
                let _ = writeln!(text, "{TOOL}: {line}");
            }
            eprint!("{text}");
        }
        warnings::warn(path, stamp_warnings);
    }
    Ok(if refusals.is_empty() {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    })
}
