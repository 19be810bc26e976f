//! XLA's PJRT C API (`xla/pjrt/c/pjrt_c_api.h`): the same `struct_size` scheme, in the plugin
//! interface that JAX and every XLA framework load hardware plugins through.
//!
//! Every PJRT args struct begins with `size_t struct_size` (the header's
//! `PJRT_DEFINE_STRUCT_TRAITS` defines `<struct>_STRUCT_SIZE` as the end of its last member, as
//! this crate's [`versioned_struct!`](crate::versioned_struct) does) and a
//! `PJRT_Extension_Base* extension_start` (named `priv` before PJRT 0.4x: the same bytes).
//! A plugin's `GetPjrtApi()` returns a `PJRT_Api`: its own `struct_size`, an extension chain,
//! the `PJRT_Api_Version` (major, minor) it was built with, and one function pointer per API
//! function. The framework checks the version when it loads the plugin (`pjrt_api.cc`:
//! "Mismatched PJRT plugin PJRT API version"; with `ENABLE_PJRT_COMPATIBILITY`, the major and
//! a minimum minor instead), and the plugin checks every args struct it is given against its
//! own header (`pjrt_c_api_helpers.cc`: "Unexpected `<struct>` size: expected N, got M").
//!
//! Each struct below is declared with `versioned_struct!` from the real headers that
//! TensorFlow 2.14 ... 2.21's wheels ship (PJRT 0.13 to 0.90, `cargo xtask pjrt-releases`),
//! each member with the API version whose header first reaches it; [`STRUCT_SIZES`] has every
//! struct's `*_STRUCT_SIZE` per version, [`APPEND_ONLY_BREAKS`] where XLA broke the
//! append-only rule, [`RENAMES`] the renames that kept every byte. Members that are other
//! structs by value, unions and arrays are [`Blob`]s of their bytes; pointers to PJRT's opaque
//! objects are `*mut c_void`.

pub use crate::generated::pjrt::*;

/// The bytes of a member that is a struct by value, a union or an array (`PJRT_Api`'s
/// `pjrt_api_version`, `PJRT_NamedValue`'s value): read them through the struct of their own.
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blob<const N: usize>(pub [u8; N]);

// SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit pattern valid:
// a byte array has all three, and `align(8)` adds no padding when `N` is a multiple of 8, which
// the layout lock of every declaration using it checks (each member's locked end offset).
unsafe impl<const N: usize> crate::AbiMember for Blob<N> {}

impl<const N: usize> crate::CType for Blob<N> {
    const SHAPE: crate::Shape = crate::Shape::Struct { name: "bytes" };
}

/// What a measured release did with one probe plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measured {
    /// It accepted the plugin and went on to create a client (where the probe stops it).
    Loads,
    /// It refused it with this text (a template: `{plugin}`, `{plugin_major}`, `{path}`,
    /// `{message}` stand for what the plugin puts there).
    Refused(&'static str),
    /// The process died of this signal.
    Signal(&'static str),
}

/// How one release checks a plugin's `PJRT_Api_Version` under one `ENABLE_PJRT_COMPATIBILITY`
/// setting (`pjrt_api.cc`), measured; the texts are templates (see [`Measured::Refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionRule {
    /// Major and minor must both equal the framework's.
    pub exact: bool,
    /// The smallest minor accepted (the framework's own when `exact`).
    pub min_minor: u32,
    /// Whether a minor above the framework's is accepted.
    pub newer: bool,
    /// The refusal of another minor when `exact`.
    pub mismatch: &'static str,
    /// The refusal of a minor below `min_minor` when not `exact`.
    pub too_old: &'static str,
    /// The refusal of a newer minor when it is refused.
    pub too_new: &'static str,
    /// The refusal of another major.
    pub major: &'static str,
}

/// What one JAX release (jax == jaxlib) does with a PJRT plugin, measured with probe plugins
/// (`interop/pjrt/measure.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JaxRelease {
    /// The jaxlib version.
    pub jaxlib: &'static str,
    /// Its framework PJRT API version (major, minor).
    pub framework: (u32, u32),
    /// Its version rule with `ENABLE_PJRT_COMPATIBILITY` unset, `0` and `1`.
    pub rules: [VersionRule; 3],
    /// The calls it makes while discovering the plugin's devices, in order, with the
    /// `struct_size` of the args it passes: `(PJRT_Api slot index, size)`; the probe fails
    /// `PJRT_Client_Create` (slot 10), as a missing device does.
    pub calls: &'static [(u32, usize)],
    /// A probe with one slot NULL: `(slot index, what happened)`.
    pub null_slots: &'static [(u32, Measured)],
    /// A probe whose `PJRT_Api.struct_size` stops short: `(struct_size, what happened)`.
    pub short_api: &'static [(usize, Measured)],
    /// A probe with one extension on its chain: `(PJRT_Extension_Type, its struct_size, what
    /// happened)`; its bytes end at an unreadable page, so reading past them faults.
    pub extensions: &'static [(u32, usize, Measured)],
    /// A probe refusing the args of one slot as a later plugin does (`{message}`):
    /// `(slot index, what the framework made of it)`.
    pub demands: &'static [(u32, Measured)],
    /// `register_plugin`'s refusal of a library without `GetPjrtApi` (`{path}`).
    pub not_found: &'static str,
}

/// Which `ENABLE_PJRT_COMPATIBILITY` setting a prediction is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compat {
    /// Not set.
    Unset,
    /// `0`.
    Off,
    /// `1`.
    On,
}

impl Compat {
    /// Its index in [`JaxRelease::rules`].
    pub const fn index(self) -> usize {
        match self {
            Compat::Unset => 0,
            Compat::Off => 1,
            Compat::On => 2,
        }
    }
}

/// The args struct of a `PJRT_Api` slot (`PJRT_Client_Create` takes `PJRT_Client_Create_Args`),
/// and its `*_STRUCT_SIZE` in the header of API minor `minor`: `(size, exact)`, `exact` false
/// when `minor` falls between two headers read that disagree (the size given is the older one).
pub fn args_size_at(slot: u32, minor: u32) -> Option<(&'static str, usize, bool)> {
    let (name, _, _) = API_SLOTS.get(slot as usize)?;
    let (_, sizes) = STRUCT_SIZES
        .iter()
        .find(|(s, _)| s.strip_suffix("_Args") == Some(name))?;
    let i = sizes.iter().rposition(|(m, _)| *m <= minor)?;
    let size = sizes[i].1;
    // Exact when `minor` is a header read, or the next size change is not before the next header.
    let next_header = HEADERS.iter().map(|h| h.1).find(|m| *m > minor);
    let exact = HEADERS.iter().any(|h| h.1 == minor)
        || match (sizes.get(i + 1), next_header) {
            (Some((changed, _)), Some(next)) => *changed > next,
            (None, Some(_)) => true,
            // Past the newest header read: at least this size, maybe more.
            (_, None) => false,
        };
    Some((args_name(name), size, exact))
}

/// `PJRT_Client_Create` as `PJRT_Client_Create_Args`, for the slots whose args are declared.
fn args_name(slot: &str) -> &'static str {
    STRUCT_SIZES
        .iter()
        .map(|(s, _)| *s)
        .find(|s| s.strip_suffix("_Args") == Some(slot))
        .unwrap_or("")
}

#[cfg(feature = "plugin-check")]
mod check;
#[cfg(feature = "plugin-check")]
pub use check::{
    ApiFacts, PjrtPlugin, Prediction, Wording, call_get_pjrt_api, predict, predict_all,
};
