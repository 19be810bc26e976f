//! The measured facts of each JAX release (`crates/se-abi/releases/pjrt/jax/<jaxlib>.json.gz`,
//! made by `crates/se-abi/interop/pjrt/measure.py` with probe plugins) as se-abi's
//! `JAX_RELEASES` table: the version rule under each `ENABLE_PJRT_COMPATIBILITY` setting with
//! the refusal texts as templates, the calls made during discovery with their args sizes, and
//! what a NULL slot, a short `PJRT_Api`, a base-only extension or a plugin's own refusal did.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::FACTS;

/// The prefix jax puts before a backend's status: the predictions hold the rest.
const PREFIX: &str = "Unable to initialize backend 'probe': ";

fn runs<'a>(facts: &'a Value, setting: &str, what: &str) -> Vec<&'a Value> {
    facts["runs"]
        .as_array()
        .map(|runs| {
            runs.iter()
                .filter(|r| r["setting"] == setting && r["probe"]["what"] == what)
                .collect()
        })
        .unwrap_or_default()
}

/// The text of a refusal with the plugin's version replaced by `{plugin}` (and its major alone,
/// in parentheses, by `{plugin_major}`), and the probe's path by `{path}`.
fn template(run: &Value) -> Option<String> {
    let error = run["error"].as_str()?;
    let text = error.strip_prefix(PREFIX).unwrap_or(error);
    let major = run["probe"]["major"].as_i64()?;
    let minor = run["probe"]["minor"].as_i64()?;
    let mut t = text.replace(&format!("({major}.{minor})"), "({plugin})");
    t = t.replace(&format!("version {major}.{minor} "), "version {plugin} ");
    t = t.replace(
        &format!("major version ({major})"),
        "major version ({plugin_major})",
    );
    if let Some(start) = t.find("/tmp/")
        && let Some(len) = t[start..].find(".so")
    {
        t.replace_range(start..start + len + 3, "{path}");
    }
    Some(t)
}

/// Whether a run was refused by the version check (`pjrt_api.cc`), as opposed to accepted
/// (whatever happened after).
fn version_refused(run: &Value) -> bool {
    run["outcome"] == "refused"
        && run["error"]
            .as_str()
            .is_some_and(|e| e.contains("PJRT API version") || e.contains("PJRT API major version"))
}

fn outcome(run: &Value) -> String {
    match run["outcome"].as_str() {
        Some("loaded") => "Measured::Loads".to_string(),
        Some("signal") => format!(
            "Measured::Signal({:?})",
            run["error"].as_str().unwrap_or("")
        ),
        _ => format!("Measured::Refused({:?})", template(run).unwrap_or_default()),
    }
}

/// The `JAX_RELEASES` table.
pub fn table(root: &Path, releases: &[String]) -> Result<String, String> {
    let mut out = String::from(
        "/// What each measured JAX release does with a PJRT plugin, oldest first \
         (`crates/se-abi/releases/pjrt/jax/`, measured with probe plugins by \
         `interop/pjrt/measure.py`).\npub const JAX_RELEASES: &[JaxRelease] = &[\n",
    );
    for release in releases {
        let path = root
            .join(FACTS)
            .join("jax")
            .join(format!("{release}.json.gz"));
        if !path.exists() {
            continue;
        }
        let facts = crate::se_abi_releases::read_gz(&path)?;
        let bad = |what: &str| format!("{}: {what}", path.display());
        let framework = facts["framework"]
            .as_str()
            .ok_or_else(|| bad("no framework"))?;
        let (fmaj, fmin) = framework.split_once('.').ok_or_else(|| bad("framework"))?;
        let _ = writeln!(
            out,
            "    JaxRelease {{\n        jaxlib: {release:?},\n        framework: ({fmaj}, {fmin}),"
        );
        out.push_str("        rules: [\n");
        for setting in ["unset", "0", "1"] {
            let one = |what: &str| runs(&facts, setting, what).into_iter().next();
            let older = one("one minor older").ok_or_else(|| bad("no older run"))?;
            let newer = one("one minor newer").ok_or_else(|| bad("no newer run"))?;
            let major = one("next major").ok_or_else(|| bad("no major run"))?;
            let exact = version_refused(older);
            let min_minor = facts["min_minor"][setting]
                .as_u64()
                .ok_or_else(|| bad("no min_minor"))?;
            // The refusal of a too-old minor: the refused bisect run closest to the minimum.
            let too_old = runs(&facts, setting, "bisect")
                .into_iter()
                .filter(|r| version_refused(r))
                .max_by_key(|r| r["probe"]["minor"].as_i64().unwrap_or(-1))
                .and_then(template)
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "            VersionRule {{\n                exact: {exact},\n                min_minor: {min_minor},\n                \
                 newer: {},\n                mismatch: {:?},\n                too_old: {too_old:?},\n                \
                 too_new: {:?},\n                major: {:?},\n            }},",
                !version_refused(newer),
                if exact {
                    template(older).unwrap_or_default()
                } else {
                    String::new()
                },
                if version_refused(newer) {
                    template(newer).unwrap_or_default()
                } else {
                    String::new()
                },
                if version_refused(major) {
                    template(major).unwrap_or_default()
                } else {
                    String::new()
                },
            );
        }
        out.push_str("        ],\n");
        let base = runs(&facts, "unset", "framework version")
            .into_iter()
            .next()
            .ok_or_else(|| bad("no base run"))?;
        let calls: Vec<String> = base["calls"]
            .as_array()
            .map(|c| c.iter().map(|p| format!("({}, {})", p[0], p[1])).collect())
            .unwrap_or_default();
        let _ = writeln!(out, "        calls: &[{}],", calls.join(", "));
        let mut null_slots = Vec::new();
        let mut short_api = Vec::new();
        let mut extensions = Vec::new();
        let mut demands = Vec::new();
        let mut not_found = String::new();
        for r in facts["runs"].as_array().into_iter().flatten() {
            let p = &r["probe"];
            let what = p["what"].as_str().unwrap_or("");
            if let Some(slot) = p["null_slot"].as_u64() {
                null_slots.push(format!("({slot}, {})", outcome(r)));
            } else if let Some(size) = p["api_size"].as_u64() {
                short_api.push(format!("({size}, {})", outcome(r)));
            } else if let Some(t) = p["ext_type"].as_u64() {
                extensions.push(format!("({t}, {}, {})", p["ext_size"], outcome(r)));
            } else if let Some(slot) = p["demand_slot"].as_u64() {
                // The plugin's own message, as the framework passes it on.
                let message = r["error"].as_str().unwrap_or("");
                let message = message.strip_prefix(PREFIX).unwrap_or(message);
                let t = match message.find("Unexpected ") {
                    Some(i) => {
                        let end = message[i..]
                            .find(&format!("API version {fmaj}.{fmin}."))
                            .map_or(message.len(), |e| {
                                i + e + format!("API version {fmaj}.{fmin}.").len()
                            });
                        format!("{}{{message}}{}", &message[..i], &message[end..])
                    }
                    None => message.to_string(),
                };
                let o = match r["outcome"].as_str() {
                    Some("refused") => format!("Measured::Refused({t:?})"),
                    _ => outcome(r),
                };
                demands.push(format!("({slot}, {o})"));
            } else if what == "no GetPjrtApi" {
                not_found = template(r).unwrap_or_default();
            }
        }
        let _ = writeln!(out, "        null_slots: &[{}],", null_slots.join(", "));
        let _ = writeln!(out, "        short_api: &[{}],", short_api.join(", "));
        let _ = writeln!(out, "        extensions: &[{}],", extensions.join(", "));
        let _ = writeln!(out, "        demands: &[{}],", demands.join(", "));
        let _ = writeln!(out, "        not_found: {not_found:?},\n    }},");
    }
    out.push_str("];\n");
    Ok(out)
}

/// The releases measured, from `interop/pjrt/releases.txt`.
pub fn releases(root: &Path) -> Result<Vec<String>, String> {
    let path = root.join("crates/se-abi/interop/pjrt/releases.txt");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}
