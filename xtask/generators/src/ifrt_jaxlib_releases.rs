//! jaxlib's IFRT Proxy clients for ifrt-serdes: measured from the real releases, turned into a
//! table.
//!
//! - `cargo xtask ifrt-jaxlib-releases [--work DIR] [--release R]...` runs
//!   `crates/ifrt-serdes/interop/jaxlib/measure.py` once per release: it installs jax and
//!   jaxlib of that release from PyPI into a scratch venv, runs the release's own IFRT Proxy
//!   client against a fake proxy server (over a stand-in ALTS handshake) and records the
//!   `GetVersion` request it sends and, for each IFRT SerDes version it offers, whether its
//!   `jit` still sends the program. The facts go to
//!   `crates/ifrt-serdes/releases/jaxlib-<R>.json` (compact JSON, sorted keys, no timestamp):
//!   committed, they are the source data, and no test ever downloads jaxlib.
//! - `cargo xtask codegen` turns them into `src/generated/jaxlib_clients.rs` ([`generate`]), the
//!   crate's `JAXLIB_CLIENTS`, after checking each file against itself (the recorded numbers
//!   against the request's own bytes, the runs against the range offered). `--check` fails when
//!   it is stale.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::generated::{Files, facts_header};
use crate::venv::run;

/// Every jaxlib release covered, oldest first, with the CPython it is measured with: every
/// release on PyPI from 0.4.31 (the oldest whose IFRT Proxy client the oracle captured) to the
/// newest when these facts were measured. Releases up to 0.10.x have CPython 3.11 wheels; 0.11
/// and later have wheels for CPython 3.12 and later only.
pub const RELEASES: &[(&str, Python)] = &[
    ("0.4.31", Python::V311),
    ("0.4.33", Python::V311),
    ("0.4.34", Python::V311),
    ("0.4.35", Python::V311),
    ("0.4.36", Python::V311),
    ("0.4.38", Python::V311),
    ("0.5.0", Python::V311),
    ("0.5.1", Python::V311),
    ("0.5.3", Python::V311),
    ("0.6.0", Python::V311),
    ("0.6.1", Python::V311),
    ("0.6.2", Python::V311),
    ("0.7.0", Python::V311),
    ("0.7.1", Python::V311),
    ("0.7.2", Python::V311),
    ("0.8.0", Python::V311),
    ("0.8.1", Python::V311),
    ("0.8.2", Python::V311),
    ("0.8.3", Python::V311),
    ("0.9.0", Python::V311),
    ("0.9.0.1", Python::V311),
    ("0.9.1", Python::V311),
    ("0.9.2", Python::V311),
    ("0.10.0", Python::V311),
    ("0.10.1", Python::V311),
    ("0.10.2", Python::V311),
    ("0.11.0", Python::V312),
    ("0.11.1", Python::V312),
    ("0.11.2", Python::V312),
    ("0.12.0", Python::V312),
    ("0.12.0.1", Python::V312),
];

/// The CPython a release is measured with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Python {
    V311,
    V312,
}

impl Python {
    fn version(self) -> &'static str {
        match self {
            Python::V311 => "3.11",
            Python::V312 => "3.12",
        }
    }
}

/// Where the facts live, relative to the workspace root.
const FACTS: &str = "crates/ifrt-serdes/releases";

/// The measuring script, relative to the workspace root (it needs only Python's standard
/// library to start; it makes its own venvs).
const MEASURE_SCRIPT: &str = "crates/ifrt-serdes/interop/jaxlib/measure.py";

/// What the fake server answers every Compile request with (`proxy_server.py`).
const COMPILE_ANSWER: &str = "UNIMPLEMENTED: fake server: compile not implemented";

fn facts_file(release: &str) -> String {
    format!("jaxlib-{release}.json")
}

/// The interpreters to make the releases' venvs with.
pub struct Interpreters {
    pub python311: String,
    pub python312: String,
}

/// `cargo xtask ifrt-jaxlib-releases`: measures `chosen` (all when empty) into the committed
/// facts, one release after the other, in the scratch folder `work`.
pub fn measure(
    root: &Path,
    work: &Path,
    chosen: &[String],
    interpreters: &Interpreters,
) -> Result<(), String> {
    for name in chosen {
        if !RELEASES.iter().any(|(release, _)| release == name) {
            let known: Vec<&str> = RELEASES.iter().map(|(release, _)| *release).collect();
            return Err(format!(
                "unknown jaxlib release {name:?}; the covered releases are {}",
                known.join(", ")
            ));
        }
    }
    fs::create_dir_all(root.join(FACTS)).map_err(|e| format!("{FACTS}: {e}"))?;
    for (release, python) in RELEASES {
        if !chosen.is_empty() && !chosen.iter().any(|name| name == release) {
            continue;
        }
        let interpreter = match python {
            Python::V311 => &interpreters.python311,
            Python::V312 => &interpreters.python312,
        };
        println!("measuring jaxlib {release} (CPython {})", python.version());
        run(Command::new("python3")
            .arg(root.join(MEASURE_SCRIPT))
            .arg("--work")
            .arg(work)
            .arg("--release")
            .arg(release)
            .arg("--python")
            .arg(interpreter)
            .arg("--out")
            .arg(root.join(FACTS).join(facts_file(release))))?;
    }
    println!("now run `cargo xtask codegen` to regenerate the table of IFRT Proxy clients");
    Ok(())
}

/// One run, as the generated table holds it.
struct Run {
    serdes: Option<i64>,
    outcome: String,
}

/// One release's facts, checked.
struct Client {
    release: &'static str,
    python: String,
    protocol: (i64, i64),
    serdes: Option<(i64, i64)>,
    runs: Vec<Run>,
}

/// The generator `cargo xtask codegen` runs for ifrt-serdes: module `jaxlib_clients`.
pub fn generate(root: &Path) -> Result<(&'static str, Files), String> {
    let clients = RELEASES
        .iter()
        .map(|(release, python)| {
            read_client(root, release, *python).map_err(|e| {
                format!(
                    "{FACTS}/{}: {e}; remeasure with `cargo xtask ifrt-jaxlib-releases \
                     --release {release}`",
                    facts_file(release)
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;

    // A table of releases without the SerDes field alone would leave the import unused.
    let any_serdes = clients.iter().any(|client| client.serdes.is_some());
    let mut rs = String::new();
    let _ = writeln!(
        rs,
        "{}\n// The IFRT Proxy clients of {} jaxlib releases ({} ... {}), measured by running each\n\
         // release's own client against a fake proxy server: see\n\
         // crates/ifrt-serdes/interop/jaxlib/README.md.\n\n\
         use crate::proxy_clients::{{JaxlibClient, JitOutcome, JitRun}};\n\
         {}\
         /// Every measured client, oldest release first.\n\
         pub static CLIENTS: &[JaxlibClient] = &[",
        facts_header(FACTS, "ifrt-jaxlib-releases"),
        clients.len(),
        RELEASES[0].0,
        RELEASES[RELEASES.len() - 1].0,
        if any_serdes {
            "use crate::version::SerDesVersionNumber;\n\n"
        } else {
            "\n"
        },
    );
    for client in &clients {
        let serdes = client
            .serdes
            .map_or_else(|| "None".to_string(), |(a, b)| format!("Some(({a}, {b}))"));
        let _ = writeln!(
            rs,
            "    JaxlibClient::measured(\n        {:?},\n        {:?},\n        ({}, {}),\n        \
             {serdes},\n        &[",
            client.release, client.python, client.protocol.0, client.protocol.1
        );
        for run in &client.runs {
            let serdes = run.serdes.map_or_else(
                || "None".to_string(),
                |n| format!("Some(SerDesVersionNumber::new({n}))"),
            );
            let _ = writeln!(
                rs,
                "            JitRun {{\n                serdes: {serdes},\n                \
                 outcome: {},\n            }},",
                run.outcome
            );
        }
        rs.push_str("        ],\n    ),\n");
    }
    rs.push_str("];\n");
    let mut files = Files::new();
    files.insert("jaxlib_clients.rs".to_string(), rs.into_bytes());
    Ok(("jaxlib_clients", files))
}

fn read_client(root: &Path, release: &'static str, python: Python) -> Result<Client, String> {
    let path = root.join(FACTS).join(facts_file(release));
    let text = fs::read(&path).map_err(|e| e.to_string())?;
    let facts: Value = serde_json::from_slice(&text).map_err(|e| e.to_string())?;
    if facts["jaxlib"] != release {
        return Err(format!(
            "the facts of jaxlib {}, not {release}",
            facts["jaxlib"]
        ));
    }
    if facts["python"] != python.version() {
        return Err(format!(
            "measured with CPython {}, not {}",
            facts["python"],
            python.version()
        ));
    }
    let pair = |value: &Value, what: &str| -> Result<(i64, i64), String> {
        match value.as_array().map(Vec::as_slice) {
            Some([a, b]) => match (a.as_i64(), b.as_i64()) {
                (Some(a), Some(b)) if 0 <= a && a <= b && b <= i64::from(i32::MAX) => Ok((a, b)),
                _ => Err(format!("{what} {value} is not a range [min, max]")),
            },
            _ => Err(format!("{what} {value} is not a range [min, max]")),
        }
    };
    let protocol = pair(&facts["proxy_protocol"], "proxy_protocol")?;
    let fields = facts["ifrt_proxy_version_fields"]
        .as_object()
        .ok_or("no ifrt_proxy_version_fields")?;
    let field_number = |name: &str| fields.get(name).and_then(Value::as_u64);
    let protocol_field = field_number("protocol_version").ok_or("no protocol_version field")?;
    let serdes_field = field_number("ifrt_serdes_version_number");
    let serdes = match (&facts["serdes"], serdes_field) {
        (Value::Null, None) => None,
        (value, Some(_)) if !value.is_null() => Some(pair(value, "serdes")?),
        (value, field) => {
            return Err(format!(
                "serdes {value} does not fit the schema (field ifrt_serdes_version_number: {field:?})"
            ));
        }
    };
    // The numbers must be the request's own: decode its bytes with the release's field numbers.
    let hex = facts["get_version_request_hex"]
        .as_str()
        .ok_or("no get_version_request_hex")?;
    let request = unhex(hex)?;
    let (low, high) = get_version_request(&request)?;
    let number = |version: &[(u64, u64)], field: u64| {
        version
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(0, |(_, v)| *v as i64)
    };
    if (number(&low, protocol_field), number(&high, protocol_field)) != protocol {
        return Err(format!(
            "proxy_protocol {protocol:?} is not what the request's bytes say"
        ));
    }
    if let (Some(field), Some(range)) = (serdes_field, serdes)
        && (number(&low, field), number(&high, field)) != range
    {
        return Err(format!(
            "serdes {range:?} is not what the request's bytes say"
        ));
    }

    let runs = facts["runs"].as_array().ok_or("no runs")?;
    let mut table = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let answered = run["answered_serdes"].as_i64();
        let serdes_run = match serdes {
            None => None,
            Some((min, max)) => {
                // The first run lets the server take the client's newest version, then one
                // run per older version, newest first.
                let expected = max - i as i64;
                if answered != Some(expected) || expected < min {
                    return Err(format!(
                        "run {i} was answered with serdes {answered:?}, not {expected}"
                    ));
                }
                Some(expected)
            }
        };
        if run["answered_protocol"].as_i64() != Some(protocol.1) {
            return Err(format!(
                "run {i} was not answered with protocol {}",
                protocol.1
            ));
        }
        let sent = run["program_sent"].as_bool().ok_or("no program_sent")?;
        let outcome = match (&run["jit"], sent) {
            (Value::String(verdict), true) if verdict == "ok" => {
                "JitOutcome::ProgramSent".to_string()
            }
            (Value::String(verdict), false) if verdict != "ok" && verdict != COMPILE_ANSWER => {
                format!("JitOutcome::Refused({verdict:?})")
            }
            (Value::Null, false) => {
                let why = run["stopped"]
                    .as_str()
                    .ok_or(format!("run {i} stopped before jit without a reason"))?;
                format!("JitOutcome::NotReached({why:?})")
            }
            (jit, sent) => {
                return Err(format!(
                    "run {i}: jit {jit} does not fit program_sent {sent}"
                ));
            }
        };
        table.push(Run {
            serdes: serdes_run,
            outcome,
        });
    }
    let expected_runs = serdes.map_or(1, |(min, max)| (max - min + 1) as usize);
    if table.len() != expected_runs {
        return Err(format!(
            "{} runs, not one per SerDes version offered ({expected_runs})",
            table.len()
        ));
    }
    Ok(Client {
        release,
        python: python.version().to_string(),
        protocol,
        serdes,
        runs: table,
    })
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) {
        return Err("odd-length hex".to_string());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|byte| u8::from_str_radix(byte, 16).ok())
                .ok_or_else(|| format!("bad hex at {i}"))
        })
        .collect()
}

/// The varint at `bytes[*at..]`, moving `at` past it.
fn varint(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at).ok_or("truncated varint")?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(value);
        }
    }
    Err("varint too long".to_string())
}

/// The varint fields `(number, value)` of a message made of varints only (`IfrtProxyVersion`).
fn varint_fields(bytes: &[u8]) -> Result<Vec<(u64, u64)>, String> {
    let mut at = 0;
    let mut fields = Vec::new();
    while at < bytes.len() {
        let key = varint(bytes, &mut at)?;
        if key & 7 != 0 {
            return Err(format!(
                "IfrtProxyVersion field {} is not a varint",
                key >> 3
            ));
        }
        fields.push((key >> 3, varint(bytes, &mut at)?));
    }
    Ok(fields)
}

/// `GrpcGetVersionRequest{1: min_version, 2: max_version}`, each an `IfrtProxyVersion`
/// (xla/python/ifrt_proxy/common/grpc_ifrt_service.proto), as varint fields.
#[allow(clippy::type_complexity)]
fn get_version_request(bytes: &[u8]) -> Result<(Vec<(u64, u64)>, Vec<(u64, u64)>), String> {
    let (mut low, mut high) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < bytes.len() {
        let key = varint(bytes, &mut at)?;
        if key & 7 != 2 {
            return Err(format!("request field {} is not a message", key >> 3));
        }
        let len = usize::try_from(varint(bytes, &mut at)?).map_err(|_| "length")?;
        let body = bytes.get(at..at + len).ok_or("truncated request")?;
        at += len;
        match key >> 3 {
            1 => low = varint_fields(body)?,
            2 => high = varint_fields(body)?,
            other => return Err(format!("request field {other} is not min/max_version")),
        }
    }
    Ok((low, high))
}
