//! TensorFlow's own StreamExecutor C API structs, declared with [`versioned_struct!`](crate::versioned_struct): what a
//! Rust crate needs to write a PluggableDevice plugin, or a host that loads one.
//!
//! These are the `SE_*` and `SP_*` structs of TensorFlow's
//! `tensorflow/c/experimental/stream_executor/stream_executor.h`, member for member, with the
//! function-pointer members typed as the header types them. They are **generated** (by `cargo
//! xtask codegen`) from the layouts of every release since PluggableDevice appeared, 2.5 to
//! 2.21: `cargo xtask se-abi-releases` takes each release's header from its wheel and compiles a
//! layout dump against it with gcc, so each member's offset, size and type, the release that
//! added it, and each struct's `*_STRUCT_SIZE` per release are the compiler's facts
//! (`crates/se-abi/releases/` in the repository). [`RELEASE_STRUCT_SIZES`] lists them.
//!
//! # Member history
//!
//! `SE_MAJOR.SE_MINOR.SE_PATCH` has been 0.0.1 in every release, so the header's version says
//! nothing; the layouts do. A struct's versions here are its distinct layouts, oldest first,
//! and a member is `since` the version that added it:
//!
//! - `SP_Platform`: 34 bytes in 2.5 to 2.8; 2.9 appended `force_memory_growth` (35 bytes).
//!   Readers accept both sizes, as TensorFlow does.
//! - every other struct has had one layout since 2.5, except `SP_StreamExecutor`.
//!
//! # Where TensorFlow broke its own rule
//!
//! **`SP_StreamExecutor`, TensorFlow 2.7**: it *inserted* `mem_zero`, `memset` and `memset32`
//! before `host_callback`, which moved from offset 256 to 280, and the struct grew from 264 to
//! 288 bytes. A plugin built against 2.5 or 2.6 writes its `host_callback` where 2.7 and later
//! read `mem_zero`, and leaves `host_callback` (required) unset, so TensorFlow 2.7 and later
//! refuse it ("'host_callback' field in SP_StreamExecutor must be set."); worse, it would call
//! that plugin's `host_callback` as `mem_zero`. So [`SP_StreamExecutor`] declares the 2.7 layout,
//! and a reader refuses a `struct_size` of 264 with [`Error::IncompatibleLayout`](crate::Error)
//! instead of reading members at the wrong offsets; [`tf_2_5_to_2_6::SP_StreamExecutor`]
//! declares the old layout, for code that must still read or fill it. [`APPEND_ONLY_BREAKS`]
//! lists the breaks, and `cargo xtask abi-check` reports them from the release facts.
//!
//! (TF 2.12 also made `TF_Status` a typedef of TSL's `struct TSL_Status`; an opaque type only
//! ever behind a pointer, it changes no layout and no ABI.)
//!
//! # How TensorFlow uses `struct_size`
//!
//! TensorFlow, the host, allocates every struct that a plugin fills, zero-filled and with
//! TensorFlow's own `struct_size` already set, and passes a pointer (`SP_Platform{SP_PLATFORM_STRUCT_SIZE}`
//! in `InitStreamExecutorPlugin`, `tensorflow/c/experimental/stream_executor/stream_executor.cc`;
//! the header says "struct_size set by TF for plugin to read"). The plugin sets `struct_size` and
//! fills the members it knows. TensorFlow then checks only that `struct_size` is not zero
//! ("Expected initialized `SP_Platform` structure ...") and that each required function pointer
//! is set ("'name' field in SP_Platform must be set."). A member beyond a smaller plugin's
//! `struct_size` is never written by that plugin, so TensorFlow reads its own zero there: the
//! member's "not set" value. And a plugin built against a *newer* header than the host's must not
//! write its extra members into the host's shorter allocation: [`fill`](crate::fill) reads the
//! host's `struct_size` first, writes only what fits, and sets `struct_size` to the smaller of the
//! two sizes. It is the only way this crate offers to write into a struct TensorFlow allocated.
//!
//! # `ext`, and `SP_AllocatorStats`
//!
//! - The pointer after `struct_size` is TensorFlow's `ext`. In `SP_Platform` and `SP_Device` it is
//!   "free-form data set by plugin": those two are declared with `header = ext`, so a plugin sets
//!   it (`SP_Platform::ext`) and copies carry it. In the others it is reserved: this crate's
//!   reserved `next`, always NULL.
//! - `SP_AllocatorStats` has no pointer after `struct_size` (its second member is `num_allocs`):
//!   it is declared with `header = none`, and checked like every other struct.
//! - `TF_Status` is TensorFlow's opaque type; a plugin that reports an error calls TensorFlow's
//!   `TF_SetStatus` (from `tensorflow/c/tf_status.h`), which this crate does not bind
//!   (`examples/tf_plugin` shows how to find it in every release).

// TensorFlow's names, kept as its C header spells them so that plugin code reads like TF's.
#![allow(non_camel_case_types)]

use core::ffi::{c_uint, c_void};
use core::marker::{PhantomData, PhantomPinned};

pub use crate::generated::tensorflow::*;

/// The major version of the C API (`SE_MAJOR`): a plugin and TensorFlow must agree on it.
pub const SE_MAJOR: i32 = 0;
/// The minor version of the C API (`SE_MINOR`).
pub const SE_MINOR: i32 = 0;
/// The patch version of the C API (`SE_PATCH`).
pub const SE_PATCH: i32 = 1;

/// TensorFlow's C boolean (`TF_Bool`, `tensorflow/c/c_api_macros.h`): `unsigned char`, 0 or 1.
pub type TF_Bool = u8;

macro_rules! opaque {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: PhantomData<(*mut u8, PhantomPinned)>,
        }

        impl crate::CType for $name {
            const SHAPE: crate::Shape = crate::Shape::Struct { name: stringify!($name) };
        }
    };
}

opaque!(
    /// TensorFlow's status object (`TF_Status`, `tensorflow/c/tf_status.h`), only ever behind a
    /// pointer. A callback that succeeds leaves it untouched.
    TF_Status
);
opaque!(
    /// What an `SP_Stream` points to: the plugin's own stream object.
    SP_Stream_st
);
opaque!(
    /// What an `SP_Event` points to: the plugin's own event object.
    SP_Event_st
);
opaque!(
    /// What an `SP_Timer` points to: the plugin's own timer object.
    SP_Timer_st
);

/// A stream, as the plugin represents it (`typedef struct SP_Stream_st* SP_Stream`).
pub type SP_Stream = *mut SP_Stream_st;
/// An event, as the plugin represents it.
pub type SP_Event = *mut SP_Event_st;
/// A timer, as the plugin represents it.
pub type SP_Timer = *mut SP_Timer_st;

/// The callback TensorFlow passes to `host_callback`: it takes the `callback_arg` given with it,
/// and a status to fill.
pub type SE_StatusCallbackFn = Option<unsafe extern "C" fn(*mut c_void, *mut TF_Status)>;

/// The state of an event (`SE_EventStatus`, a C enum whose values are all non-negative, so GCC
/// and the release dumps give it `unsigned int`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SE_EventStatus(pub c_uint);

impl crate::CType for SE_EventStatus {
    const SHAPE: crate::Shape = crate::Shape::Enum {
        name: "SE_EventStatus",
        repr: &<c_uint as crate::CType>::SHAPE,
    };
}

// SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit pattern valid
// and safe: a `repr(transparent)` wrapper of a `c_uint` (see
// <https://doc.rust-lang.org/reference/type-layout.html#r-layout.repr.transparent>), any of whose
// values is a (possibly unknown) event status.
unsafe impl crate::AbiMember for SE_EventStatus {}

impl SE_EventStatus {
    /// `SE_EVENT_UNKNOWN`: a bad state.
    pub const UNKNOWN: SE_EventStatus = SE_EventStatus(0);
    /// `SE_EVENT_ERROR`.
    pub const ERROR: SE_EventStatus = SE_EventStatus(1);
    /// `SE_EVENT_PENDING`: recorded, not yet reached.
    pub const PENDING: SE_EventStatus = SE_EventStatus(2);
    /// `SE_EVENT_COMPLETE`.
    pub const COMPLETE: SE_EventStatus = SE_EventStatus(3);
}

/// The plugin's entry point, which TensorFlow looks up by the name `SE_InitPlugin` in the
/// plugin's shared library and calls once (`SEInitPluginFn`).
pub type SEInitPluginFn = unsafe extern "C" fn(*mut SE_PlatformRegistrationParams, *mut TF_Status);

// --- The types of the release tables (`TF_RELEASES`), which `cargo xtask codegen` fills in. ---

/// A shared library of a release's wheel that `import tensorflow` loads.
#[derive(Debug, Clone, Copy)]
pub struct TfLibrary {
    /// Its path below `site-packages`.
    pub path: &'static str,
    /// Its `DT_SONAME`, which a plugin's `DT_NEEDED` entry matches.
    pub soname: Option<&'static str>,
    /// Its own `DT_NEEDED` entries.
    pub needed: &'static [&'static str],
    /// The symbol versions it defines (`DT_VERDEF`), its base entry (its own name) included.
    pub version_definitions: &'static [&'static str],
    /// Whether it is in the process's global scope after `import tensorflow` (loaded with
    /// `RTLD_GLOBAL`, or needed by a library that was), so that a plugin that does not link it
    /// still binds to its symbols: none up to 2.18; from 2.19 the libraries behind
    /// `_pywrap_tensorflow_internal.so` (not `libtensorflow_cc.so.2`).
    pub global: bool,
}

/// What a release checks in one struct a plugin fills (`TF_VALIDATE_STRUCT_SIZE`, then
/// `TF_VALIDATE_NOT_NULL` for each member, in order).
#[derive(Debug, Clone, Copy)]
pub struct StructCheck {
    /// The size constant the `struct_size` message names, as TensorFlow spells it there
    /// (`SP_STREAM_EXECUTOR_STRUCT_SIZE`, which the header spells `SP_STREAMEXECUTOR_STRUCT_SIZE`).
    pub size_macro: &'static str,
    /// The members that must not be NULL, in the order they are checked.
    pub members: &'static [&'static str],
}

/// How a release's `TF_CHECK_OK` prints a failed status before it aborts the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOk {
    /// `Non-OK-status: EXPR status: STATUS` (2.12 to 2.16, `tsl/platform/status.cc`).
    NonOkStatus,
    /// `Non-OK-status: EXPR`, then `Status: STATUS` on a line of its own (2.17 to 2.20).
    NonOkStatusNewline,
    /// `Check failed: (::tsl::TfCheckOkDeprecationMarker(), EXPR) is OK (STATUS)` (absl's
    /// `CHECK_OK`, 2.21).
    CheckFailed,
}

/// What a release does with a plugin's `SE_InitPlugin` (`InitStreamExecutorPlugin`,
/// `tensorflow/c/experimental/stream_executor/stream_executor.cc`), taken from the release's
/// own binary by `cargo xtask se-abi-releases`: the checks it makes, in order, and the words it
/// aborts with when one fails.
#[derive(Debug, Clone, Copy)]
pub struct LoadRules {
    /// `SE_PlatformRegistrationParams`, after `SE_InitPlugin` returns.
    pub registration_params: StructCheck,
    /// `SP_Platform`; then its `name` and `type` must match `[A-Z][A-Z_]*`.
    pub platform: StructCheck,
    /// `SP_PlatformFns`.
    pub platform_fns: StructCheck,
    /// `SP_DeviceFns`, after `create_device_fns`.
    pub device_fns: StructCheck,
    /// `SP_StreamExecutor`, after `create_stream_executor`.
    pub stream_executor: StructCheck,
    /// `SP_TimerFns`, after `create_timer_fns`, in the releases that still call it (2.12, 2.13).
    pub timer_fns: Option<StructCheck>,
    /// The members of `stream_executor` checked only when the platform
    /// `supports_unified_memory`.
    pub unified_memory: &'static [&'static str],
    /// How the release prints the status it aborts with.
    pub check_ok: CheckOk,
    /// The expression `TF_CHECK_OK` names when the plugin's registration fails.
    pub register_plugin: &'static str,
    /// The expression it names when the platform's name is taken.
    pub register_platform: &'static str,
}

/// What one installable release offers a plugin at load time.
#[derive(Debug, Clone, Copy)]
pub struct TfRelease {
    /// The release, as `tf.__version__` names it.
    pub release: &'static str,
    /// Whether a global lookup (`dlsym(RTLD_DEFAULT)`) finds TensorFlow's C API: false up
    /// to 2.18, which loads its libraries with `RTLD_LOCAL`.
    pub global_c_api: bool,
    /// The libraries `import tensorflow` loads from the wheel.
    pub libraries: &'static [TfLibrary],
    /// What it checks when it loads a plugin.
    pub load: LoadRules,
}
