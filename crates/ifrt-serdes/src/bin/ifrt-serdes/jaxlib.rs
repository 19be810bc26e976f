//! `ifrt-serdes jaxlib`: the IFRT Proxy clients of the measured jaxlib releases.

use clap::Args;
use ifrt_serdes::{JAXLIB_CLIENTS, JaxlibClient, JitOutcome};
use serde_json::{Value, json};

use crate::CliError;
use crate::outcome::{Outcome, print, print_json};

#[derive(Args)]
pub(crate) struct JaxlibArgs {
    /// Print one JSON object instead of text (its keys are listed in the crate's README).
    #[arg(long)]
    json: bool,
}

/// The table, oldest release first.
pub(crate) fn jaxlib(args: &JaxlibArgs) -> Result<Outcome, CliError> {
    if args.json {
        let releases: Vec<Value> = JAXLIB_CLIENTS.iter().map(client_json).collect();
        print_json(&json!({ "releases": releases }))?;
    } else {
        let mut text = String::from(
            "jaxlib     python  proxy protocol  IFRT SerDes  jit sends its program at\n",
        );
        for client in JAXLIB_CLIENTS {
            let protocol = client.proxy_protocol();
            let serdes = client.serdes().map_or_else(
                || "no field".to_string(),
                |range| format!("[{}, {}]", range.min, range.max),
            );
            text.push_str(&format!(
                "{:<10} {:<7} {:<15} {:<12} {}\n",
                client.release(),
                client.python(),
                format!("[{}, {}]", protocol.min, protocol.max),
                serdes,
                jit_summary(client)
            ));
        }
        text.push_str(
            "\n`no field`: the release's IfrtProxyVersion has no ifrt_serdes_version_number; a \
             server reads [0, 0].\n",
        );
        print(&text)?;
    }
    Ok(Outcome::Accepted)
}

/// One release's object in `jaxlib --json`.
pub(crate) fn client_json(client: &JaxlibClient) -> Value {
    let protocol = client.proxy_protocol();
    let runs: Vec<Value> = client
        .jit_runs()
        .iter()
        .map(|run| {
            let (program_sent, error) = match run.outcome {
                JitOutcome::ProgramSent => (Some(true), None),
                JitOutcome::Refused(error) => (Some(false), Some(error)),
                JitOutcome::NotReached(why) => (None, Some(why)),
            };
            json!({
                "serdes": run.serdes.map(|v| v.value()),
                "program_sent": program_sent,
                "error": error,
            })
        })
        .collect();
    json!({
        "jaxlib": client.release(),
        "python": client.python(),
        "proxy_protocol": [protocol.min.value(), protocol.max.value()],
        "serdes": client.serdes().map(|r| [r.min.value(), r.max.value()]),
        "program_serdes_floor": client.program_floor().map(|v| v.value()),
        "jit": runs,
    })
}

/// Where `jit` works, for the text table: the versions at which the program was sent.
fn jit_summary(client: &JaxlibClient) -> String {
    let mut sent = Vec::new();
    let mut unknown = None;
    for run in client.jit_runs() {
        match run.outcome {
            JitOutcome::ProgramSent => sent.push(
                run.serdes
                    .map_or_else(|| "yes".to_string(), |v| v.to_string()),
            ),
            JitOutcome::Refused(_) => {}
            JitOutcome::NotReached(why) => unknown = Some(why),
        }
    }
    if let Some(why) = unknown {
        return format!("unknown ({why})");
    }
    if sent.is_empty() {
        return "none".to_string();
    }
    sent.reverse();
    sent.join(", ")
}
