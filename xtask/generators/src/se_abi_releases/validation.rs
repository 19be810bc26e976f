//! What a release checks when it loads a PluggableDevice plugin, taken from the release's own
//! binary: the rules `se-abi plugin-check --run` replays.
//!
//! TensorFlow's checks (`tensorflow/c/experimental/stream_executor/stream_executor.cc`,
//! `ValidateSEPlatformRegistrationParams`, `ValidateSPPlatform`, `ValidateSPPlatformFns`,
//! `ValidateSPDeviceFns`, `ValidateSPStreamExecutor`, `ValidateSPTimerFns`) are macros that each
//! put one whole message into the binary as a string literal: `TF_VALIDATE_NOT_NULL(SP_Platform,
//! platform, name)` is `"'name' field in SP_Platform must be set."`, and
//! `TF_VALIDATE_STRUCT_SIZE(SP_Platform, platform, SP_PLATFORM_STRUCT_SIZE)` is "Expected
//! initialized `SP_Platform` structure with `struct_size` field set to SP_PLATFORM_STRUCT_SIZE.
//! Found `struct_size` = 0." (`tensorflow/c/c_api_macros_internal.h`). So the literals in a
//! release's `libtensorflow_framework.so.2` are exactly the members that release checks, with
//! the size constant each message names. The wheels ship no C++ source, and the binary is that
//! release's source, compiled.
//!
//! What the literals do not give is their order: the compiler lays them out as it likes. The
//! order is the source's, [`ORDER`] below: every member any release checks, in the order of its
//! `TF_VALIDATE_NOT_NULL` lines (the same order in every copy of the file from 2022 to 2.21); a
//! release's list is the members of [`ORDER`] its binary has, and a literal the table does not
//! know stops the xtask (the table must then be updated from that release's source). The probe
//! plugins the tests load into the real releases (`interop/plugin_check/probes.py`) confirm
//! both, release by release, chains of NULL members included.
//!
//! Three more facts come from the binaries: how `TF_CHECK_OK` prints a failed status (the text
//! TensorFlow aborts with), the expressions it names, and whether the release still calls the
//! plugin's `create_timer_fns` (its `SP_TimerFns` messages).

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

/// Every struct TensorFlow checks at load, with every member any release checks in it, in
/// `stream_executor.cc`'s order. `SP_Platform`'s `name` and `type` are then matched against
/// `[A-Z][A-Z_]*` (`ValidateDeviceType`); `SP_StreamExecutor`'s two `unified_memory_*` members
/// are checked only when the platform `supports_unified_memory`.
pub(super) const ORDER: &[(&str, &[&str])] = &[
    (
        "SE_PlatformRegistrationParams",
        &["destroy_platform", "destroy_platform_fns"],
    ),
    ("SP_Platform", &["name", "type"]),
    (
        "SP_PlatformFns",
        &[
            "create_device",
            "destroy_device",
            "create_stream_executor",
            "destroy_stream_executor",
            "create_timer_fns",
            "destroy_timer_fns",
            "create_device_fns",
            "destroy_device_fns",
        ],
    ),
    ("SP_DeviceFns", &[]),
    (
        "SP_StreamExecutor",
        &[
            "allocate",
            "deallocate",
            "get_allocator_stats",
            "host_memory_allocate",
            "host_memory_deallocate",
            "unified_memory_allocate",
            "unified_memory_deallocate",
            "device_memory_usage",
            "create_stream",
            "destroy_stream",
            "create_stream_dependency",
            "get_stream_status",
            "create_event",
            "destroy_event",
            "get_event_status",
            "record_event",
            "wait_for_event",
            "create_timer",
            "destroy_timer",
            "start_timer",
            "stop_timer",
            "memcpy_dtoh",
            "memcpy_htod",
            "sync_memcpy_dtoh",
            "sync_memcpy_htod",
            "block_host_for_event",
            "synchronize_all_activity",
            "host_callback",
            "mem_zero",
            "memset",
            "memset32",
        ],
    ),
    ("SP_TimerFns", &["nanoseconds"]),
];

/// The members checked only with `supports_unified_memory`.
const UNIFIED: &[&str] = &["unified_memory_allocate", "unified_memory_deallocate"];

/// What `TF_LoadPluggableDeviceLibrary` passes to `TF_CHECK_OK` (`tensorflow/c/c_api_experimental.cc`).
const REGISTER_PLUGIN: &str = "tensorflow::RegisterPluggableDevicePlugin(lib_handle->lib_handle)";

/// The NUL-terminated strings of a binary that contain `needle`.
fn strings_with<'a>(bytes: &'a [u8], needle: &[u8]) -> Vec<&'a str> {
    bytes
        .split(|&b| b == 0)
        .filter(|s| s.len() >= needle.len() && contains(s, needle))
        .filter_map(|s| std::str::from_utf8(s).ok())
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The validation facts of the release installed at `tensorflow` (the wheel's `tensorflow/`).
pub(super) fn validation_of(tensorflow: &Path, release: &str) -> Result<Value, String> {
    let read = |name: &str| {
        let path = tensorflow.join(name);
        fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let framework = read("libtensorflow_framework.so.2")?;
    let cc = read("libtensorflow_cc.so.2")?;
    let mut structs = serde_json::Map::new();
    for (name, order) in ORDER {
        let suffix = format!("' field in {name} must be set.");
        let mut found: Vec<String> = strings_with(&framework, suffix.as_bytes())
            .into_iter()
            .filter_map(|s| {
                s.strip_suffix(&suffix)?
                    .strip_prefix('\'')
                    .map(str::to_string)
            })
            .collect();
        found.sort();
        found.dedup();
        if let Some(unknown) = found.iter().find(|m| !order.contains(&m.as_str())) {
            return Err(format!(
                "{release} checks `{unknown}` of {name}, which the table of checks \
                 (xtask/generators/src/se_abi_releases/validation.rs, ORDER) does not have: add it in the \
                 order of that release's stream_executor.cc"
            ));
        }
        let size =
            format!("Expected initialized `{name}` structure with `struct_size` field set to ");
        let size_macro = strings_with(&framework, size.as_bytes())
            .into_iter()
            .find_map(|s| {
                s.strip_prefix(&size)?
                    .strip_suffix(". Found `struct_size` = 0.")
                    .map(str::to_string)
            });
        let Some(size_macro) = size_macro else {
            // A struct the release no longer checks at all (SP_TimerFns from 2.14 on).
            if found.is_empty() {
                continue;
            }
            return Err(format!(
                "{release}: {name} has member checks but no size check"
            ));
        };
        let members: Vec<&str> = order
            .iter()
            .copied()
            .filter(|m| found.iter().any(|f| f == m))
            .collect();
        structs.insert(
            name.to_string(),
            json!({"size_macro": size_macro, "members": members}),
        );
    }
    for piece in ["Device name/type '", "' must match ", "[A-Z][A-Z_]*"] {
        if !contains(&framework, piece.as_bytes()) {
            return Err(format!(
                "{release}: no `{piece}` in libtensorflow_framework.so.2: ValidateDeviceType changed"
            ));
        }
    }
    // How TF_CHECK_OK prints: absl's CHECK_OK in 2.21 (`Check failed: (..., X) is OK (S)`),
    // else TSL's TfCheckOpHelperOutOfLine: `Non-OK-status: X\nStatus: S` from 2.17 on, and
    // `Non-OK-status: X status: S` before (`tsl/platform/status.cc`).
    let marked = format!("(::tsl::TfCheckOkDeprecationMarker(), {REGISTER_PLUGIN}) is OK");
    let plugin_checks = strings_with(&cc, REGISTER_PLUGIN.as_bytes());
    let check_ok = if plugin_checks.contains(&marked.as_str()) {
        "check-failed"
    } else if contains(&framework, b"\nStatus: \0") {
        "non-ok-status-newline"
    } else if contains(&framework, b" status: \0") {
        "non-ok-status"
    } else {
        return Err(format!("{release}: cannot tell how TF_CHECK_OK prints"));
    };
    if plugin_checks.is_empty() {
        return Err(format!(
            "{release}: no `{REGISTER_PLUGIN}` in libtensorflow_cc.so.2"
        ));
    }
    // The platform registry's TF_CHECK_OK, which fails on a platform name already taken.
    let register_platform = strings_with(&framework, b"std::move(cplatform))")
        .into_iter()
        .find_map(|s| {
            let s = s
                .strip_prefix("(::tsl::TfCheckOkDeprecationMarker(), ")
                .unwrap_or(s);
            let s = s.strip_suffix(") is OK").unwrap_or(s);
            s.starts_with("stream_executor::").then(|| s.to_string())
        })
        .ok_or_else(|| {
            format!("{release}: no RegisterPlatform(std::move(cplatform)) expression")
        })?;
    if !contains(&framework, b"platform is already registered with name: \"") {
        return Err(format!("{release}: the duplicate-platform message changed"));
    }
    Ok(json!({
        "release": release,
        "structs": structs,
        "unified_memory": UNIFIED,
        "check_ok": check_ok,
        "register_plugin": REGISTER_PLUGIN,
        "register_platform": register_platform,
    }))
}
