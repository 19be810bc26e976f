//! The measured IFRT Proxy clients of jaxlib (`JAXLIB_CLIENTS`, generated from
//! `releases/jaxlib-*.json`): the table's invariants, and the CLI's `jaxlib` and
//! `negotiate --client`.

use std::process::{Command, Output};

use ifrt_serdes::version::{HISTORY, SerDesVersionNumber};
use ifrt_serdes::{JAXLIB_CLIENTS, JaxlibClient, JitOutcome, VersionRange, jaxlib_client};
use serde_json::{Value, json};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ifrt-serdes"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `0.9.0.1` as `[0, 9, 0, 1]`, for ordering releases.
fn release_key(release: &str) -> Vec<u32> {
    release
        .split('.')
        .map(|part| part.parse().expect("a numeric release"))
        .collect()
}

fn n(value: i32) -> SerDesVersionNumber {
    SerDesVersionNumber::new(value)
}

fn client(release: &str) -> &'static JaxlibClient {
    jaxlib_client(release).unwrap()
}

#[test]
fn the_table_covers_every_release_from_0_4_31_in_order() {
    let releases: Vec<&str> = JAXLIB_CLIENTS.iter().map(|c| c.release()).collect();
    assert_eq!(releases.first(), Some(&"0.4.31"));
    assert!(releases.contains(&"0.10.2"));
    for pair in releases.windows(2) {
        assert!(
            release_key(pair[0]) < release_key(pair[1]),
            "{} before {}",
            pair[0],
            pair[1]
        );
    }
    for c in JAXLIB_CLIENTS {
        // jaxlib 0.11 and later publish no CPython 3.11 wheel.
        let expected = if release_key(c.release()) < vec![0, 11] {
            "3.11"
        } else {
            "3.12"
        };
        assert_eq!(c.python(), expected, "{}", c.release());
    }
}

#[test]
fn ranges_are_ranges_and_the_serdes_field_arrives_in_0_7_for_good() {
    for c in JAXLIB_CLIENTS {
        let protocol = c.proxy_protocol();
        assert!(
            0 < protocol.min.value() && protocol.min <= protocol.max,
            "{}",
            c.release()
        );
        let has_field = release_key(c.release()) >= vec![0, 7];
        assert_eq!(c.serdes().is_some(), has_field, "{}", c.release());
        if let Some(range) = c.serdes() {
            assert!(
                0 <= range.min.value() && range.min <= range.max,
                "{}",
                c.release()
            );
            // 0.7.0 ... 0.9.0.1 have the field and leave it at its default.
            if release_key(c.release()) < vec![0, 9, 1] {
                assert_eq!((range.min.value(), range.max.value()), (0, 0));
            }
        } else {
            assert_eq!(
                c.serdes_as_sent(),
                VersionRange {
                    min: n(0),
                    max: n(0)
                }
            );
        }
    }
    // Neither end of either range ever goes down from one release to the next.
    for pair in JAXLIB_CLIENTS.windows(2) {
        let (old, new) = (pair[0].proxy_protocol(), pair[1].proxy_protocol());
        assert!(
            old.min <= new.min && old.max <= new.max,
            "{}",
            pair[1].release()
        );
        if let (Some(old), Some(new)) = (pair[0].serdes(), pair[1].serdes()) {
            assert!(
                old.min <= new.min && old.max <= new.max,
                "{}",
                pair[1].release()
            );
        }
    }
}

/// The history knows every version a measured client offers, and each version past the newest
/// header read (3) is dated by the upload of the first release that offers it (PyPI's upload
/// times: jaxlib 0.11.0 2026-07-16, 0.11.1 2026-08-17, 0.11.2 2026-09-17).
#[test]
fn every_offered_version_is_in_the_history_dated_by_its_first_release() {
    let newest = JAXLIB_CLIENTS
        .iter()
        .filter_map(JaxlibClient::serdes)
        .map(|range| range.max)
        .max()
        .unwrap();
    assert_eq!(HISTORY.last().unwrap().number(), newest);
    let uploads = [
        ("0.11.0", "2026-07-16"),
        ("0.11.1", "2026-08-17"),
        ("0.11.2", "2026-09-17"),
    ];
    for (entry, (release, uploaded)) in HISTORY[4..].iter().zip(uploads) {
        let first = JAXLIB_CLIENTS
            .iter()
            .find(|c| c.serdes().is_some_and(|range| range.max >= entry.number()))
            .unwrap();
        assert_eq!(first.release(), release, "{}", entry.number());
        assert_eq!(entry.introduced().to_string(), uploaded);
    }
    assert_eq!(HISTORY.len(), 4 + uploads.len());
}

#[test]
fn one_jit_run_per_offered_version_newest_first() {
    for c in JAXLIB_CLIENTS {
        let runs: Vec<Option<SerDesVersionNumber>> =
            c.jit_runs().iter().map(|run| run.serdes).collect();
        let expected: Vec<Option<SerDesVersionNumber>> = match c.serdes() {
            None => vec![None],
            Some(range) => (range.min.value()..=range.max.value())
                .rev()
                .map(|v| Some(n(v)))
                .collect(),
        };
        assert_eq!(runs, expected, "{}", c.release());
    }
}

#[test]
fn programs_are_written_from_the_floor_up_and_refusals_name_the_version() {
    for c in JAXLIB_CLIENTS {
        let Some(range) = c.serdes() else {
            assert_eq!(c.program_floor(), None, "{}", c.release());
            continue;
        };
        let floor = c.program_floor();
        for v in range.min.value()..=range.max.value() {
            let outcome = c.jit_at(n(v)).expect("every offered version was measured");
            match outcome {
                JitOutcome::ProgramSent => {
                    assert!(floor.is_some_and(|f| f <= n(v)), "{}", c.release());
                }
                JitOutcome::Refused(error) => {
                    assert!(floor.is_none_or(|f| n(v) < f), "{} at {v}", c.release());
                    assert!(
                        error.contains(&format!("Unsupported IFRT SerDes version {v} for ")),
                        "{} at {v}: {error}",
                        c.release()
                    );
                }
                JitOutcome::NotReached(why) => panic!("{} at {v}: {why}", c.release()),
            }
        }
        // The client's newest version always works: a client refusing its own maximum would
        // never compile against a newer server.
        assert_eq!(
            c.jit_at(range.max),
            Some(JitOutcome::ProgramSent),
            "{}",
            c.release()
        );
        assert_eq!(c.jit_at(n(range.max.value() + 1)), None);
    }
}

#[test]
fn the_releases_the_oracle_captured() {
    let c = client("jaxlib==0.9.2");
    assert_eq!(
        c.serdes(),
        Some(VersionRange {
            min: n(0),
            max: n(1)
        })
    );
    assert_eq!(c.program_floor(), Some(n(0)));
    let c = client("0.10.2");
    assert_eq!(
        c.serdes(),
        Some(VersionRange {
            min: n(0),
            max: n(3)
        })
    );
    assert_eq!(c.program_floor(), Some(n(3)));
    assert_eq!(
        c.jit_at(n(2)),
        Some(JitOutcome::Refused(
            "FAILED_PRECONDITION: Unsupported IFRT SerDes version 2 for HloProgram serialization"
        ))
    );
    assert_eq!(
        client("0.7.2").serdes(),
        Some(VersionRange {
            min: n(0),
            max: n(0)
        })
    );
    // 0.10.0 writes programs from 1; 0.12.0 no longer offers 0 and 1.
    assert_eq!(client("0.10.0").program_floor(), Some(n(1)));
    assert_eq!(
        client("0.12.0").serdes(),
        Some(VersionRange {
            min: n(2),
            max: n(6)
        })
    );
    assert_eq!(client("0.12.0").program_floor(), Some(n(3)));
    assert_eq!(client("0.6.2").serdes(), None);
}

#[test]
fn an_unmeasured_release_is_an_error_that_lists_the_measured_ones() {
    for input in ["jaxlib==0.4.30", "jaxlib==9.9.9", "jax==0.9.2", "0.9", ""] {
        let text = jaxlib_client(input).unwrap_err().to_string();
        for c in JAXLIB_CLIENTS {
            assert!(text.contains(c.release()), "{input}: {text}");
        }
    }
}

#[test]
fn jaxlib_json_lists_every_release() {
    let output = run(&["jaxlib", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_of(&output);
    let releases = report["releases"].as_array().expect("releases");
    assert_eq!(releases.len(), JAXLIB_CLIENTS.len());
    for (entry, c) in releases.iter().zip(JAXLIB_CLIENTS) {
        let keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "jaxlib",
                "jit",
                "program_serdes_floor",
                "proxy_protocol",
                "python",
                "serdes"
            ]
        );
        assert_eq!(entry["jaxlib"], c.release());
        for run in entry["jit"].as_array().unwrap() {
            let keys: Vec<&str> = run
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["error", "program_sent", "serdes"]);
        }
    }
    let find = |release: &str| {
        releases
            .iter()
            .find(|entry| entry["jaxlib"] == release)
            .unwrap()
    };
    assert_eq!(find("0.9.2")["proxy_protocol"], json!([16, 25]));
    assert_eq!(find("0.9.2")["serdes"], json!([0, 1]));
    assert_eq!(find("0.9.2")["program_serdes_floor"], 0);
    assert_eq!(find("0.6.2")["serdes"], Value::Null);
    assert_eq!(find("0.6.2")["program_serdes_floor"], Value::Null);
    assert_eq!(find("0.7.2")["serdes"], json!([0, 0]));
    assert_eq!(find("0.10.2")["serdes"], json!([0, 3]));
    assert_eq!(find("0.10.2")["program_serdes_floor"], 3);
    assert_eq!(
        find("0.10.2")["jit"][1],
        json!({
            "serdes": 2,
            "program_sent": false,
            "error": "FAILED_PRECONDITION: Unsupported IFRT SerDes version 2 for HloProgram serialization",
        })
    );

    let text = run(&["jaxlib"]);
    assert_eq!(text.status.code(), Some(0));
    let table = String::from_utf8_lossy(&text.stdout);
    assert_eq!(
        table.lines().filter(|l| l.starts_with("0.")).count(),
        JAXLIB_CLIENTS.len()
    );
}

#[test]
fn negotiate_takes_a_jaxlib_release_as_the_client() {
    let output = run(&["negotiate", "--client", "jaxlib==0.9.2", "0", "2", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_of(&output);
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["agreed", "client", "error", "jit", "server"]);
    assert_eq!(report["agreed"], 1);
    assert_eq!(
        report["client"],
        json!({"min": 0, "max": 1, "jaxlib": "0.9.2", "serdes_field": true, "proxy_protocol": [16, 25]})
    );
    assert_eq!(report["jit"], json!({"program_sent": true, "error": null}));

    // Agreed, but the client cannot write its program there: still exit 0, and `jit` says so.
    let output = run(&[
        "negotiate",
        "--client",
        "jaxlib==0.10.2",
        "0",
        "2",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let report = json_of(&output);
    assert_eq!(report["agreed"], 2);
    assert_eq!(report["jit"]["program_sent"], false);
    let text = run(&["negotiate", "--client", "jaxlib==0.10.2", "0", "2"]);
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(said.contains("agreed: IFRT SerDes version 2"), "{said}");
    assert!(
        said.contains("Unsupported IFRT SerDes version 2 for HloProgram serialization"),
        "{said}"
    );

    // A release without the field offers what a server reads: [0, 0].
    let output = run(&["negotiate", "--client", "jaxlib==0.6.2", "0", "3", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json_of(&output);
    assert_eq!(report["agreed"], 0);
    assert_eq!(report["client"]["serdes_field"], false);
    // Its one run stands for every answer: it reads no SerDes version from the server.
    assert_eq!(report["jit"], json!({"program_sent": true, "error": null}));

    // No common version: exit 1, IFRT Proxy's words.
    let output = run(&["negotiate", "--client", "jaxlib==0.10.2", "4", "5"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with(
            "ifrt-serdes: IFRT Proxy client and server failed to agree on the IFRT SerDes \
             version; supported versions: client = [0, 3], server = [4, 5]"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn negotiate_refuses_unknown_releases_and_wrong_counts_with_exit_2() {
    let output = run(&["negotiate", "--client", "jaxlib==0.4.30", "0", "2"]);
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(said.contains("no measured IFRT Proxy client"), "{said}");
    for c in JAXLIB_CLIENTS {
        assert!(said.contains(c.release()), "{said}");
    }
    for args in [
        &["negotiate", "--client", "jaxlib==0.9.2", "0", "1", "0", "2"][..],
        &["negotiate", "--client", "jaxlib==0.9.2", "0", "1", "2"][..],
        &["negotiate", "0", "1", "2"][..],
        &["negotiate", "0", "1"][..],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).starts_with("ifrt-serdes: negotiate takes "),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}
