//! TensorFlow's own StreamExecutor C API structs, declared with [`versioned_struct!`]: what a
//! Rust crate needs to write a PluggableDevice plugin.
//!
//! These are the `SE_*` and `SP_*` structs of TensorFlow's
//! `tensorflow/c/experimental/stream_executor/stream_executor.h`, member for member, with the
//! function-pointer members typed as the header types them. The header is byte-for-byte the same
//! in every release from 2.12 to 2.21 (`SE_MAJOR.SE_MINOR.SE_PATCH` = 0.0.1 throughout), and
//! the crate's tests check every offset, size, `sizeof` and `*_STRUCT_SIZE` against the values a
//! C compiler gave for TF 2.21's header.
//!
//! # Member history
//!
//! TensorFlow's header records no per-member history: no member carries the version that added
//! it, and `SE_MINOR` has never moved. So every member here is `since 1`, and each struct has
//! one size. A plugin compiled against an older copy of the header, in which a struct ended
//! earlier, declares that older struct itself (the way `examples/tf_plugin` does for its
//! "older sizes" build) and sets the smaller `struct_size`.
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
//! # What is not here
//!
//! - `SP_AllocatorStats` has no `ext` pointer after `struct_size` (its second member is
//!   `num_allocs`), so it is not a struct of this crate's scheme: it is declared below as a plain
//!   `#[repr(C)]` struct, [`SP_AllocatorStats`], with its layout checked at compile time.
//! - The reserved pointer that TensorFlow calls `ext` (in `SP_Platform` and `SP_Device`
//!   "free-form data set by plugin") is this crate's reserved header pointer, which is always
//!   zero: a plugin built with this module leaves `ext` NULL.
//! - `TF_Status` is TensorFlow's opaque type; a plugin that reports an error calls TensorFlow's
//!   `TF_SetStatus` (from `tensorflow/c/tf_status.h`), which this crate does not bind.

// TensorFlow's names, kept as its C header spells them so that plugin code reads like TF's.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};
use core::marker::{PhantomData, PhantomPinned};

use crate::versioned_struct;

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

/// The state of an event (`SE_EventStatus`, a C enum: an `int`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SE_EventStatus(pub c_int);

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

versioned_struct! {
    /// `SP_TimerFns`: how TensorFlow reads a plugin timer.
    #[abi(size = SP_TIMER_FNS_STRUCT_SIZE, sizes = [24])]
    pub struct SP_TimerFns {
        /// Nanoseconds between the timer's start and stop. Required.
        nanoseconds: Option<unsafe extern "C" fn(SP_Timer) -> u64> = nonzero(since 1, at 16..24),
    }
}

versioned_struct! {
    /// `SP_DeviceMemoryBase`: one allocation of device memory.
    #[abi(size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE, sizes = [40])]
    pub struct SP_DeviceMemoryBase {
        /// The plugin's handle on the memory (need not be an address).
        opaque: *mut c_void = value(since 1, at 16..24),
        /// Its size in bytes.
        size: u64 = value(since 1, at 24..32),
        /// A value for the plugin's own use.
        payload: u64 = value(since 1, at 32..40),
    }
}

versioned_struct! {
    /// `SP_Device`: one device, filled by the plugin's `create_device`.
    #[abi(size = SP_DEVICE_STRUCT_SIZE, sizes = [56])]
    pub struct SP_Device {
        /// The device's index.
        ordinal: i32 = value(since 1, at 16..20),
        /// The plugin's handle on its device.
        device_handle: *mut c_void = value(since 1, at 24..32),
        /// Optional, NUL-terminated: the hardware's name, for printing.
        hardware_name: *const c_char = nonzero(since 1, at 32..40),
        /// Optional, NUL-terminated: the vendor's name, for printing.
        device_vendor: *const c_char = nonzero(since 1, at 40..48),
        /// Optional, NUL-terminated: the PCI bus id, `[domain]:[bus]:[device].[function]`.
        pci_bus_id: *const c_char = nonzero(since 1, at 48..56),
    }
}

versioned_struct! {
    /// `SE_CreateDeviceParams`: what TensorFlow passes to `create_device`.
    #[abi(size = SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE, sizes = [32])]
    pub struct SE_CreateDeviceParams {
        /// The index of the device to create.
        ordinal: i32 = value(since 1, at 16..20),
        /// The device to fill: allocated by TensorFlow, `struct_size` set by TensorFlow.
        device: *mut SP_Device = nonzero(since 1, at 24..32),
    }
}

versioned_struct! {
    /// `SP_DeviceFns`: optional facts about a device.
    #[abi(size = SP_DEVICE_FNS_STRUCT_SIZE, sizes = [40])]
    pub struct SP_DeviceFns {
        /// Optional: the device's NUMA node; negative is "unset".
        get_numa_node: Option<unsafe extern "C" fn(*const SP_Device) -> i32> =
            nonzero(since 1, at 16..24),
        /// Optional: its memory bandwidth in bytes per second; negative is "unset".
        get_memory_bandwidth: Option<unsafe extern "C" fn(*const SP_Device) -> i64> =
            nonzero(since 1, at 24..32),
        /// Optional: its GFLOP/s estimate; negative is "unset".
        get_gflops: Option<unsafe extern "C" fn(*const SP_Device) -> f64> =
            nonzero(since 1, at 32..40),
    }
}

versioned_struct! {
    /// `SE_CreateDeviceFnsParams`: what TensorFlow passes to `create_device_fns`.
    #[abi(size = SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE, sizes = [24])]
    pub struct SE_CreateDeviceFnsParams {
        /// The functions to fill, allocated by TensorFlow.
        device_fns: *mut SP_DeviceFns = nonzero(since 1, at 16..24),
    }
}

versioned_struct! {
    /// `SP_StreamExecutor`: memory, streams, events, timers and copies of a device. TensorFlow
    /// requires every member except `unified_memory_*` (unless the platform supports unified
    /// memory), `memcpy_dtod`, `sync_memcpy_dtod`, `block_host_until_done`, `mem_zero`,
    /// `memset` and `memset32`.
    #[abi(size = SP_STREAMEXECUTOR_STRUCT_SIZE, sizes = [288])]
    pub struct SP_StreamExecutor {
        /// Allocates `size` bytes of device memory into the `SP_DeviceMemoryBase`.
        allocate: Option<unsafe extern "C" fn(*const SP_Device, u64, i64, *mut SP_DeviceMemoryBase)> =
            nonzero(since 1, at 16..24),
        /// Frees memory from `allocate`; freeing a NULL allocation is allowed.
        deallocate: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_DeviceMemoryBase)> =
            nonzero(since 1, at 24..32),
        /// Allocates host memory usable by asynchronous copies.
        host_memory_allocate: Option<unsafe extern "C" fn(*const SP_Device, u64) -> *mut c_void> =
            nonzero(since 1, at 32..40),
        /// Frees memory from `host_memory_allocate`.
        host_memory_deallocate: Option<unsafe extern "C" fn(*const SP_Device, *mut c_void)> =
            nonzero(since 1, at 40..48),
        /// Allocates unified memory, if the platform supports it.
        unified_memory_allocate: Option<unsafe extern "C" fn(*const SP_Device, u64) -> *mut c_void> =
            nonzero(since 1, at 48..56),
        /// Frees unified memory.
        unified_memory_deallocate: Option<unsafe extern "C" fn(*const SP_Device, *mut c_void)> =
            nonzero(since 1, at 56..64),
        /// Fills allocator statistics; returns false when there are none.
        get_allocator_stats: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_AllocatorStats) -> TF_Bool> =
            nonzero(since 1, at 64..72),
        /// Fills free and total device memory; returns false when unknown.
        device_memory_usage: Option<unsafe extern "C" fn(*const SP_Device, *mut i64, *mut i64) -> TF_Bool> =
            nonzero(since 1, at 72..80),
        /// Creates a stream.
        create_stream: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_Stream, *mut TF_Status)> =
            nonzero(since 1, at 80..88),
        /// Destroys a stream.
        destroy_stream: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream)> =
            nonzero(since 1, at 88..96),
        /// Makes `dependent` wait for the work enqueued so far on `other`.
        create_stream_dependency: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, SP_Stream, *mut TF_Status)> =
            nonzero(since 1, at 96..104),
        /// The stream's status, without blocking.
        get_stream_status: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut TF_Status)> =
            nonzero(since 1, at 104..112),
        /// Creates an event.
        create_event: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_Event, *mut TF_Status)> =
            nonzero(since 1, at 112..120),
        /// Destroys an event.
        destroy_event: Option<unsafe extern "C" fn(*const SP_Device, SP_Event)> =
            nonzero(since 1, at 120..128),
        /// The event's state.
        get_event_status: Option<unsafe extern "C" fn(*const SP_Device, SP_Event) -> SE_EventStatus> =
            nonzero(since 1, at 128..136),
        /// Records the event at the end of the stream.
        record_event: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, SP_Event, *mut TF_Status)> =
            nonzero(since 1, at 136..144),
        /// Makes the stream wait for the event.
        wait_for_event: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, SP_Event, *mut TF_Status)> =
            nonzero(since 1, at 144..152),
        /// Creates a timer.
        create_timer: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_Timer, *mut TF_Status)> =
            nonzero(since 1, at 152..160),
        /// Destroys a timer.
        destroy_timer: Option<unsafe extern "C" fn(*const SP_Device, SP_Timer)> =
            nonzero(since 1, at 160..168),
        /// Records the timer's start on the stream.
        start_timer: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, SP_Timer, *mut TF_Status)> =
            nonzero(since 1, at 168..176),
        /// Records the timer's stop on the stream.
        stop_timer: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, SP_Timer, *mut TF_Status)> =
            nonzero(since 1, at 176..184),
        /// Enqueues a device-to-host copy.
        memcpy_dtoh: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut c_void, *const SP_DeviceMemoryBase, u64, *mut TF_Status)> =
            nonzero(since 1, at 184..192),
        /// Enqueues a host-to-device copy.
        memcpy_htod: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut SP_DeviceMemoryBase, *const c_void, u64, *mut TF_Status)> =
            nonzero(since 1, at 192..200),
        /// Enqueues a device-to-device copy.
        memcpy_dtod: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut SP_DeviceMemoryBase, *const SP_DeviceMemoryBase, u64, *mut TF_Status)> =
            nonzero(since 1, at 200..208),
        /// Copies device to host, blocking.
        sync_memcpy_dtoh: Option<unsafe extern "C" fn(*const SP_Device, *mut c_void, *const SP_DeviceMemoryBase, u64, *mut TF_Status)> =
            nonzero(since 1, at 208..216),
        /// Copies host to device, blocking.
        sync_memcpy_htod: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_DeviceMemoryBase, *const c_void, u64, *mut TF_Status)> =
            nonzero(since 1, at 216..224),
        /// Copies device to device, blocking.
        sync_memcpy_dtod: Option<unsafe extern "C" fn(*const SP_Device, *mut SP_DeviceMemoryBase, *const SP_DeviceMemoryBase, u64, *mut TF_Status)> =
            nonzero(since 1, at 224..232),
        /// Blocks the host until the event completes.
        block_host_for_event: Option<unsafe extern "C" fn(*const SP_Device, SP_Event, *mut TF_Status)> =
            nonzero(since 1, at 232..240),
        /// Optional: blocks the host until the stream's work is done.
        block_host_until_done: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut TF_Status)> =
            nonzero(since 1, at 240..248),
        /// Blocks the host until all of the device's work is done.
        synchronize_all_activity: Option<unsafe extern "C" fn(*const SP_Device, *mut TF_Status)> =
            nonzero(since 1, at 248..256),
        /// Optional: enqueues zeroing `size` bytes of device memory.
        mem_zero: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut SP_DeviceMemoryBase, u64, *mut TF_Status)> =
            nonzero(since 1, at 256..264),
        /// Optional: enqueues setting `size` bytes to a byte pattern.
        memset: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut SP_DeviceMemoryBase, u8, u64, *mut TF_Status)> =
            nonzero(since 1, at 264..272),
        /// Optional: enqueues setting `size` bytes to a 32-bit pattern.
        memset32: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, *mut SP_DeviceMemoryBase, u32, u64, *mut TF_Status)> =
            nonzero(since 1, at 272..280),
        /// Enqueues a host callback on the stream; returns false if it could not.
        host_callback: Option<unsafe extern "C" fn(*const SP_Device, SP_Stream, SE_StatusCallbackFn, *mut c_void) -> TF_Bool> =
            nonzero(since 1, at 280..288),
    }
}

versioned_struct! {
    /// `SE_CreateStreamExecutorParams`: what TensorFlow passes to `create_stream_executor`.
    #[abi(size = SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE, sizes = [24])]
    pub struct SE_CreateStreamExecutorParams {
        /// The functions to fill, allocated by TensorFlow.
        stream_executor: *mut SP_StreamExecutor = nonzero(since 1, at 16..24),
    }
}

versioned_struct! {
    /// `SP_Platform`: the plugin's platform. Its last member is a 1-byte `TF_Bool`, so
    /// `SP_PLATFORM_STRUCT_SIZE` (35) is less than `sizeof` (40).
    #[abi(size = SP_PLATFORM_STRUCT_SIZE, sizes = [35])]
    pub struct SP_Platform {
        /// Required, NUL-terminated, outliving the plugin: the platform's name; it must match
        /// `[A-Z][A-Z_]*`.
        name: *const c_char = nonzero(since 1, at 16..24),
        /// Required, likewise: the device type users name (`tf.device("/MY_DEVICE:0")`); it must
        /// match `[A-Z][A-Z_]*`.
        r#type: *const c_char = nonzero(since 1, at 24..32),
        /// Whether `unified_memory_allocate` is available.
        supports_unified_memory: TF_Bool = value(since 1, at 32..33),
        /// Whether TensorFlow should put its BFC allocator over `allocate`.
        use_bfc_allocator: TF_Bool = value(since 1, at 33..34),
        /// Whether the BFC allocator should grow on demand rather than take all memory at once.
        force_memory_growth: TF_Bool = value(since 1, at 34..35),
    }
}

versioned_struct! {
    /// `SP_PlatformFns`: creating and destroying devices and their functions. TensorFlow
    /// requires every member but `get_device_count`, which it calls all the same.
    #[abi(size = SP_PLATFORM_FNS_STRUCT_SIZE, sizes = [88])]
    pub struct SP_PlatformFns {
        /// Writes how many devices there are.
        get_device_count: Option<unsafe extern "C" fn(*const SP_Platform, *mut c_int, *mut TF_Status)> =
            nonzero(since 1, at 16..24),
        /// Fills `params.device`.
        create_device: Option<unsafe extern "C" fn(*const SP_Platform, *mut SE_CreateDeviceParams, *mut TF_Status)> =
            nonzero(since 1, at 24..32),
        /// Releases what `create_device` made.
        destroy_device: Option<unsafe extern "C" fn(*const SP_Platform, *mut SP_Device)> =
            nonzero(since 1, at 32..40),
        /// Fills `params.device_fns`.
        create_device_fns: Option<unsafe extern "C" fn(*const SP_Platform, *mut SE_CreateDeviceFnsParams, *mut TF_Status)> =
            nonzero(since 1, at 40..48),
        /// Releases what `create_device_fns` made.
        destroy_device_fns: Option<unsafe extern "C" fn(*const SP_Platform, *mut SP_DeviceFns)> =
            nonzero(since 1, at 48..56),
        /// Fills `params.stream_executor`.
        create_stream_executor: Option<unsafe extern "C" fn(*const SP_Platform, *mut SE_CreateStreamExecutorParams, *mut TF_Status)> =
            nonzero(since 1, at 56..64),
        /// Releases what `create_stream_executor` made.
        destroy_stream_executor: Option<unsafe extern "C" fn(*const SP_Platform, *mut SP_StreamExecutor)> =
            nonzero(since 1, at 64..72),
        /// Fills the timer functions.
        create_timer_fns: Option<unsafe extern "C" fn(*const SP_Platform, *mut SP_TimerFns, *mut TF_Status)> =
            nonzero(since 1, at 72..80),
        /// Releases what `create_timer_fns` made.
        destroy_timer_fns: Option<unsafe extern "C" fn(*const SP_Platform, *mut SP_TimerFns)> =
            nonzero(since 1, at 80..88),
    }
}

versioned_struct! {
    /// `SE_PlatformRegistrationParams`: what TensorFlow passes to `SE_InitPlugin`.
    #[abi(size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE, sizes = [64])]
    pub struct SE_PlatformRegistrationParams {
        /// TensorFlow's `SE_MAJOR`.
        major_version: i32 = value(since 1, at 16..20),
        /// TensorFlow's `SE_MINOR`.
        minor_version: i32 = value(since 1, at 20..24),
        /// TensorFlow's `SE_PATCH`.
        patch_version: i32 = value(since 1, at 24..28),
        /// The platform to fill, allocated by TensorFlow.
        platform: *mut SP_Platform = nonzero(since 1, at 32..40),
        /// The platform functions to fill, allocated by TensorFlow.
        platform_fns: *mut SP_PlatformFns = nonzero(since 1, at 40..48),
        /// Set by the plugin, required: releases what the plugin put in the platform.
        destroy_platform: Option<unsafe extern "C" fn(*mut SP_Platform)> =
            nonzero(since 1, at 48..56),
        /// Set by the plugin, required: releases what it put in the platform functions.
        destroy_platform_fns: Option<unsafe extern "C" fn(*mut SP_PlatformFns)> =
            nonzero(since 1, at 56..64),
    }
}

/// `SP_AllocatorStats`: allocator statistics a plugin may report. Not a struct of this crate's
/// scheme (no reserved pointer after `struct_size`), so a plain `#[repr(C)]` struct whose layout
/// is checked below; set `struct_size` to [`SP_ALLOCATORSTATS_STRUCT_SIZE`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct SP_AllocatorStats {
    pub struct_size: usize,
    pub num_allocs: i64,
    pub bytes_in_use: i64,
    pub peak_bytes_in_use: i64,
    pub largest_alloc_size: i64,
    pub has_bytes_limit: i8,
    pub bytes_limit: i64,
    pub bytes_reserved: i64,
    pub peak_bytes_reserved: i64,
    pub has_bytes_reservable_limit: i8,
    pub bytes_reservable_limit: i64,
    pub largest_free_block_bytes: i64,
}

/// The end of `SP_AllocatorStats`' last member: 96.
pub const SP_ALLOCATORSTATS_STRUCT_SIZE: usize =
    core::mem::offset_of!(SP_AllocatorStats, largest_free_block_bytes) + size_of::<i64>();

// The layout TensorFlow 2.21's header has on x86-64 (tests/data/se_layout.txt).
const _: () = {
    use core::mem::offset_of;
    assert!(offset_of!(SP_AllocatorStats, has_bytes_limit) == 40);
    assert!(offset_of!(SP_AllocatorStats, bytes_limit) == 48);
    assert!(offset_of!(SP_AllocatorStats, has_bytes_reservable_limit) == 72);
    assert!(offset_of!(SP_AllocatorStats, bytes_reservable_limit) == 80);
    assert!(SP_ALLOCATORSTATS_STRUCT_SIZE == 96);
    assert!(size_of::<SP_AllocatorStats>() == 96);
};
