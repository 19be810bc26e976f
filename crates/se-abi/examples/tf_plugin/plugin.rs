//! A TensorFlow PluggableDevice plugin in Rust, written with `se_abi::tensorflow`: a device
//! named `RUST_HOST` whose "device memory" is host memory.
//!
//! TensorFlow loads the shared library, looks up `SE_InitPlugin` and calls it with structs it
//! allocated, zero-filled, with its own `struct_size` set. The plugin fills each one with
//! `se_abi::fill`, which reads TensorFlow's `struct_size` first and writes no more than both
//! sides have: a plugin built against an older, shorter struct leaves TensorFlow's zeros in
//! place, and one built against a newer, longer struct writes nothing past TensorFlow's.
//!
//! Streams, events and timers are synchronous: every copy has completed when its call returns,
//! so every event is complete and waiting is a no-op.
//!
//! Three builds share this file (see `crates/se-abi/interop/tensorflow/run.sh`):
//! - `tf-plugin`: every struct at TensorFlow 2.21's size;
//! - `tf-plugin-older`: `SP_Platform`, `SP_Device`, `SP_DeviceFns` and `SP_DeviceMemoryBase` as
//!   a plugin compiled against shorter copies of those structs would write them (see [`older`]).
//!   The other structs end in a member TensorFlow requires, so they cannot be shorter;
//! - `tf-plugin-unset`: `SP_Platform.struct_size` left 0, as a plugin that zero-fills its struct
//!   and forgets the size would: TensorFlow refuses it with its own message;
//! - `tf-plugin-newer`: `SP_Platform` and `SP_Device` with a member appended (see [`newer`]), as
//!   a plugin built against a header newer than TensorFlow's: `se_abi::fill` writes only
//!   TensorFlow's 35 and 56 bytes, and says so in `struct_size`.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use se_abi::tensorflow::*;
use se_abi::{Tail, Versioned, copy_from_ptr};

/// Which struct sizes this build writes.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Build {
    /// TensorFlow 2.21's sizes.
    Current = 0,
    /// Shorter `SP_Platform`, `SP_Device`, `SP_DeviceFns` and `SP_DeviceMemoryBase`.
    Older = 1,
    /// `SP_Platform.struct_size` left 0.
    Unset = 2,
    /// Longer `SP_Platform` and `SP_Device`, as a plugin built against a newer header would have.
    Newer = 3,
}

/// The platform's name and its device type (TensorFlow requires `[A-Z][A-Z_]*` for both).
const NAME: &CStr = c"RUST_HOST";
const DEVICE_TYPE: &CStr = c"RUST_HOST";
const HARDWARE_NAME: &CStr = c"se-abi host memory";
const VENDOR: &CStr = c"se-abi";
/// What `device_memory_usage` reports: 1 GiB, all free.
const MEMORY: i64 = 1 << 30;

// The shorter and longer struct declarations of the `older` and `newer` builds.
#[path = "layouts.rs"]
mod layouts;
use layouts::{newer, older};

/// Fills the struct TensorFlow allocated at `dst` with `value`, through `se_abi::fill`: it reads
/// TensorFlow's `struct_size` first, writes only what fits in it, and sets `struct_size` to the
/// smaller of TensorFlow's and the value's. `U` is TensorFlow's type of the struct; `T` may be a
/// shorter declaration of it. Returns false for a NULL `dst` or a size TensorFlow never set.
///
/// # Safety
/// `dst` must be NULL or point to a writable `U` that TensorFlow allocated with its `struct_size`
/// set, and `T` must be `U` or a shorter declaration of it.
unsafe fn fill<T: Versioned, U>(dst: *mut U, value: &T) -> bool {
    // SAFETY: `se_abi::fill` requires NULL or the other side's struct, its `struct_size` field
    // initialized and as many bytes writable, not overlapping `value` (see its `# Safety`):
    // TensorFlow's struct, allocated for us to fill with its size set (caller), and `value` is
    // our local. `T` declares the same leading members as `U` (caller), so the host's size is
    // validated against a layout the host's memory really has.
    let result = unsafe { se_abi::fill(value, dst.cast::<T>()) };
    if std::env::var_os("RUST_HOST_PLUGIN_VERBOSE").is_some() {
        eprintln!(
            "RUST_HOST: {}: the plugin's struct_size {}, written {result:?}",
            T::NAME,
            se_abi::View::of(value).struct_size(),
        );
    }
    result.is_ok()
}

/// glibc's `RTLD_NOLOAD` (`<dlfcn.h>`, `bits/dlfcn.h`): `dlopen` returns a handle on a library
/// that is already loaded, and loads nothing.
const RTLD_NOLOAD: c_int = 0x4;

/// The library that exports TensorFlow's C API functions a plugin calls (`TF_SetStatus`,
/// `TF_NewStatus`, ...) in every release from 2.12 to 2.21 (from the releases' symbol dumps,
/// `crates/se-abi/releases/`). TensorFlow has loaded it before it loads a plugin.
const TF_FRAMEWORK: &CStr = c"libtensorflow_framework.so.2";

/// TensorFlow's C function `name`, found in the process.
///
/// A global lookup (`dlsym(RTLD_DEFAULT)`) finds it only from TensorFlow 2.19 on: up to 2.18
/// TensorFlow loads its libraries with `RTLD_LOCAL`, so their symbols are not in the global
/// scope, and a plugin that does not link against them finds nothing. What those releases allow
/// is a handle on the library already loaded, by its soname (`dlopen` with `RTLD_NOLOAD`, which
/// finds a library loaded with `RTLD_LOCAL` too), then `dlsym` on it: tried first, in every
/// release; the global lookup stays as the fallback.
///
/// # Safety
/// `T` must be the C function's true type.
unsafe fn tf_function<T: Copy>(name: &CStr) -> Option<T> {
    use libloading::os::unix::{Library, RTLD_LAZY};
    // SAFETY: `Library::open` runs the library's initializers when it loads one (see
    // <https://docs.rs/libloading/latest/libloading/os/unix/struct.Library.html#method.open>);
    // with `RTLD_NOLOAD` it loads nothing, only returns a handle on TensorFlow's library, which
    // the process has already initialized (or fails).
    let framework =
        unsafe { Library::open(Some(TF_FRAMEWORK.to_str().ok()?), RTLD_NOLOAD | RTLD_LAZY) };
    let library = match framework {
        Ok(library) => library,
        Err(_) => Library::this(),
    };
    // SAFETY: `Library::get` requires the symbol's real type to be `T` (see
    // <https://docs.rs/libloading/latest/libloading/os/unix/struct.Library.html#method.get>):
    // the caller's contract. The function pointer outlives `library` (dropping a handle from
    // `RTLD_NOLOAD` only decrements the count TensorFlow's own load keeps above zero).
    let symbol = unsafe { library.get::<T>(name.to_bytes_with_nul()) }.ok()?;
    Some(*symbol)
}

/// Sets `status` to an error, through TensorFlow's own `TF_SetStatus` (see [`tf_function`] for
/// how it is found in every release). TF_FAILED_PRECONDITION is 9.
fn fail(status: *mut TF_Status, message: &CStr) {
    type SetStatus = unsafe extern "C" fn(*mut TF_Status, c_int, *const c_char);
    // SAFETY: `tf_function` requires the real type: `TF_SetStatus(TF_Status*, TF_Code,
    // const char*)` in `tensorflow/c/tf_status.h`, with `TF_Code` a C enum (an `int`).
    if let Some(set) = unsafe { tf_function::<SetStatus>(c"TF_SetStatus") } {
        // SAFETY: `TF_SetStatus` requires a live status and a NUL-terminated message:
        // TensorFlow passed `status` for this call, and `message` is a `CStr`.
        unsafe { set(status, 9, message.as_ptr()) };
    }
}

/// `SE_InitPlugin`, for `build`.
///
/// # Safety
/// `params` must be TensorFlow's registration parameters, as `SE_InitPlugin` receives them.
pub unsafe fn init(
    params: *mut SE_PlatformRegistrationParams,
    status: *mut TF_Status,
    build: Build,
) {
    // SAFETY: `copy_from_ptr` requires `params` readable for its `struct_size` bytes, with
    // initialized members (see `View::from_ptr`): TensorFlow passes a zero-filled
    // `SE_PlatformRegistrationParams{SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE}`.
    let Ok(mut registration) = (unsafe { copy_from_ptr(params, Tail::Ignore) }) else {
        fail(
            status,
            c"RUST_HOST: unreadable SE_PlatformRegistrationParams",
        );
        return;
    };
    if std::env::var_os("RUST_HOST_PLUGIN_REFUSE").is_some() {
        // An error report on request: shows that `TF_SetStatus` is found in every release.
        fail(
            status,
            c"RUST_HOST: refusing to register, as RUST_HOST_PLUGIN_REFUSE asks",
        );
        return;
    }
    type P = SE_PlatformRegistrationParams;
    if registration.get(P::major_version) != Some(SE_MAJOR) {
        fail(
            status,
            c"RUST_HOST: built for StreamExecutor C API major version 0",
        );
        return;
    }
    let platform = registration.get(P::platform).unwrap_or(ptr::null_mut());
    let platform_fns = registration.get(P::platform_fns).unwrap_or(ptr::null_mut());
    registration
        .set(P::destroy_platform, Some(destroy_platform))
        .set(P::destroy_platform_fns, Some(destroy_platform_fns));
    // SAFETY: `params` is TensorFlow's whole `SE_PlatformRegistrationParams` (caller).
    unsafe { fill(params, &registration) };

    let written = match build {
        Build::Current | Build::Unset => {
            let mut value = SP_Platform::new();
            value
                .set(SP_Platform::name, NAME.as_ptr())
                .set(SP_Platform::r#type, DEVICE_TYPE.as_ptr())
                .set(SP_Platform::use_bfc_allocator, 0)
                .set(SP_Platform::force_memory_growth, 0);
            // SAFETY: `platform` is TensorFlow's `SP_Platform` (from its parameters), or NULL.
            unsafe { fill(platform, &value) }
        }
        Build::Newer => {
            type N = newer::SP_Platform;
            let mut value = N::new();
            value
                .set(N::name, NAME.as_ptr())
                .set(N::r#type, DEVICE_TYPE.as_ptr())
                .set(N::future_flag, 1);
            // SAFETY: as above; `newer::SP_Platform` starts with `SP_Platform`'s members.
            unsafe { fill(platform, &value) }
        }
        Build::Older => {
            type O = older::SP_Platform;
            let mut value = O::new();
            value
                .set(O::name, NAME.as_ptr())
                .set(O::r#type, DEVICE_TYPE.as_ptr());
            // SAFETY: as above; `older::SP_Platform` is a shorter `SP_Platform`.
            unsafe { fill(platform, &value) }
        }
    };
    if !written {
        fail(status, c"RUST_HOST: TensorFlow passed no SP_Platform");
        return;
    }
    if build == Build::Unset {
        // The mistake this build shows: a plugin that zero-fills its platform and forgets
        // `struct_size`. (se-abi cannot make that mistake: its values carry their size.)
        // SAFETY: `ptr::write` requires `platform` valid for writes and aligned for `usize`
        // (see <https://doc.rust-lang.org/core/ptr/fn.write.html#safety>): it is TensorFlow's
        // `SP_Platform`, non-NULL (written above), whose first member is `size_t struct_size`.
        unsafe { platform.cast::<usize>().write(0) };
    }

    type F = SP_PlatformFns;
    let mut fns = F::new();
    fns.set(F::get_device_count, Some(get_device_count))
        .set(F::create_device, Some(create_device))
        .set(F::destroy_device, Some(destroy_device))
        .set(F::create_device_fns, Some(create_device_fns))
        .set(F::destroy_device_fns, Some(destroy_device_fns))
        .set(F::create_stream_executor, Some(create_stream_executor))
        .set(F::destroy_stream_executor, Some(destroy_stream_executor))
        .set(F::create_timer_fns, Some(create_timer_fns))
        .set(F::destroy_timer_fns, Some(destroy_timer_fns));
    // The sizes every callback below writes at are fixed when the library is initialized.
    BUILD.store(build as u8, Ordering::Relaxed);
    // SAFETY: `platform_fns` is TensorFlow's `SP_PlatformFns` (from its parameters), or NULL.
    if !unsafe { fill(platform_fns, &fns) } {
        fail(status, c"RUST_HOST: TensorFlow passed no SP_PlatformFns");
    }
}

/// The build the library was initialized for (a `Build` as `u8`); read by the callbacks.
static BUILD: AtomicU8 = AtomicU8::new(Build::Current as u8);

fn build() -> Build {
    match BUILD.load(Ordering::Relaxed) {
        1 => Build::Older,
        2 => Build::Unset,
        3 => Build::Newer,
        _ => Build::Current,
    }
}

unsafe extern "C" fn destroy_platform(_platform: *mut SP_Platform) {}
unsafe extern "C" fn destroy_platform_fns(_fns: *mut SP_PlatformFns) {}

unsafe extern "C" fn get_device_count(
    _platform: *const SP_Platform,
    count: *mut c_int,
    _status: *mut TF_Status,
) {
    if !count.is_null() {
        // SAFETY: TensorFlow passes a pointer to its `int visible_device_count`, checked non-NULL.
        unsafe { count.write(1) };
    }
}

unsafe extern "C" fn create_device(
    _platform: *const SP_Platform,
    params: *mut SE_CreateDeviceParams,
    status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes its zero-filled `SE_CreateDeviceParams` with `struct_size` set.
    let Ok(params) = (unsafe { copy_from_ptr(params, Tail::Ignore) }) else {
        fail(status, c"RUST_HOST: unreadable SE_CreateDeviceParams");
        return;
    };
    let ordinal = params.get(SE_CreateDeviceParams::ordinal).unwrap_or(0);
    let device = params
        .get(SE_CreateDeviceParams::device)
        .unwrap_or(ptr::null_mut());
    let written = if build() == Build::Older {
        type O = older::SP_Device;
        let mut value = O::new();
        value.set(O::ordinal, ordinal);
        // SAFETY: `device` is TensorFlow's `SP_Device` (from its parameters), or NULL; the older
        // declaration is a shorter `SP_Device`.
        unsafe { fill(device, &value) }
    } else if build() == Build::Newer {
        type N = newer::SP_Device;
        let mut value = N::new();
        value
            .set(N::ordinal, ordinal)
            .set(N::hardware_name, HARDWARE_NAME.as_ptr())
            .set(N::device_vendor, VENDOR.as_ptr())
            .set(N::future_data, ptr::without_provenance_mut(0x40));
        // SAFETY: `device` is TensorFlow's `SP_Device` (from its parameters), or NULL; the newer
        // declaration starts with `SP_Device`'s members.
        unsafe { fill(device, &value) }
    } else {
        let mut value = SP_Device::new();
        value
            .set(SP_Device::ordinal, ordinal)
            .set(SP_Device::hardware_name, HARDWARE_NAME.as_ptr())
            .set(SP_Device::device_vendor, VENDOR.as_ptr());
        // SAFETY: `device` is TensorFlow's `SP_Device` (from its parameters), or NULL.
        unsafe { fill(device, &value) }
    };
    if !written {
        fail(status, c"RUST_HOST: TensorFlow passed no SP_Device");
    }
}

unsafe extern "C" fn destroy_device(_platform: *const SP_Platform, _device: *mut SP_Device) {}

unsafe extern "C" fn numa_node(_device: *const SP_Device) -> i32 {
    -1
}
unsafe extern "C" fn memory_bandwidth(_device: *const SP_Device) -> i64 {
    -1
}
unsafe extern "C" fn gflops(_device: *const SP_Device) -> f64 {
    -1.0
}

unsafe extern "C" fn create_device_fns(
    _platform: *const SP_Platform,
    params: *mut SE_CreateDeviceFnsParams,
    status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes its zero-filled `SE_CreateDeviceFnsParams`, `struct_size` set.
    let Ok(params) = (unsafe { copy_from_ptr(params, Tail::Ignore) }) else {
        fail(status, c"RUST_HOST: unreadable SE_CreateDeviceFnsParams");
        return;
    };
    let dst = params
        .get(SE_CreateDeviceFnsParams::device_fns)
        .unwrap_or(ptr::null_mut());
    let written = if build() == Build::Older {
        type O = older::SP_DeviceFns;
        let mut value = O::new();
        value.set(O::get_numa_node, Some(numa_node));
        // SAFETY: `dst` is TensorFlow's `SP_DeviceFns`, or NULL; a shorter declaration of it.
        unsafe { fill(dst, &value) }
    } else {
        type D = SP_DeviceFns;
        let mut value = D::new();
        value
            .set(D::get_numa_node, Some(numa_node))
            .set(D::get_memory_bandwidth, Some(memory_bandwidth))
            .set(D::get_gflops, Some(gflops));
        // SAFETY: `dst` is TensorFlow's `SP_DeviceFns` (from its parameters), or NULL.
        unsafe { fill(dst, &value) }
    };
    if !written {
        fail(status, c"RUST_HOST: TensorFlow passed no SP_DeviceFns");
    }
}

unsafe extern "C" fn destroy_device_fns(_platform: *const SP_Platform, _fns: *mut SP_DeviceFns) {}

unsafe extern "C" fn create_stream_executor(
    _platform: *const SP_Platform,
    params: *mut SE_CreateStreamExecutorParams,
    status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes its zero-filled `SE_CreateStreamExecutorParams`, size set.
    let Ok(params) = (unsafe { copy_from_ptr(params, Tail::Ignore) }) else {
        fail(
            status,
            c"RUST_HOST: unreadable SE_CreateStreamExecutorParams",
        );
        return;
    };
    type S = SP_StreamExecutor;
    let mut se = S::new();
    se.set(S::allocate, Some(allocate))
        .set(S::deallocate, Some(deallocate))
        .set(S::host_memory_allocate, Some(host_memory_allocate))
        .set(S::host_memory_deallocate, Some(host_memory_deallocate))
        .set(S::get_allocator_stats, Some(get_allocator_stats))
        .set(S::device_memory_usage, Some(device_memory_usage))
        .set(S::create_stream, Some(create_stream))
        .set(S::destroy_stream, Some(destroy_stream))
        .set(S::create_stream_dependency, Some(stream_dependency))
        .set(S::get_stream_status, Some(stream_status))
        .set(S::create_event, Some(create_event))
        .set(S::destroy_event, Some(destroy_event))
        .set(S::get_event_status, Some(event_status))
        .set(S::record_event, Some(record_event))
        .set(S::wait_for_event, Some(wait_for_event))
        .set(S::create_timer, Some(create_timer))
        .set(S::destroy_timer, Some(destroy_timer))
        .set(S::start_timer, Some(start_timer))
        .set(S::stop_timer, Some(stop_timer))
        .set(S::memcpy_dtoh, Some(memcpy_dtoh))
        .set(S::memcpy_htod, Some(memcpy_htod))
        .set(S::memcpy_dtod, Some(memcpy_dtod))
        .set(S::sync_memcpy_dtoh, Some(sync_memcpy_dtoh))
        .set(S::sync_memcpy_htod, Some(sync_memcpy_htod))
        .set(S::sync_memcpy_dtod, Some(sync_memcpy_dtod))
        .set(S::block_host_for_event, Some(block_host_for_event))
        .set(S::block_host_until_done, Some(block_host_until_done))
        .set(S::synchronize_all_activity, Some(synchronize_all_activity))
        .set(S::mem_zero, Some(mem_zero))
        .set(S::memset, Some(memset))
        .set(S::memset32, Some(memset32))
        .set(S::host_callback, Some(host_callback));
    let dst = params
        .get(SE_CreateStreamExecutorParams::stream_executor)
        .unwrap_or(ptr::null_mut());
    // SAFETY: `dst` is TensorFlow's `SP_StreamExecutor` (from its parameters), or NULL.
    if !unsafe { fill(dst, &se) } {
        fail(status, c"RUST_HOST: TensorFlow passed no SP_StreamExecutor");
    }
}

unsafe extern "C" fn destroy_stream_executor(
    _platform: *const SP_Platform,
    _se: *mut SP_StreamExecutor,
) {
}

unsafe extern "C" fn create_timer_fns(
    _platform: *const SP_Platform,
    dst: *mut SP_TimerFns,
    status: *mut TF_Status,
) {
    let mut fns = SP_TimerFns::new();
    fns.set(SP_TimerFns::nanoseconds, Some(nanoseconds));
    // SAFETY: `dst` is TensorFlow's `SP_TimerFns`, or NULL.
    if !unsafe { fill(dst, &fns) } {
        fail(status, c"RUST_HOST: TensorFlow passed no SP_TimerFns");
    }
}

unsafe extern "C" fn destroy_timer_fns(_platform: *const SP_Platform, _fns: *mut SP_TimerFns) {}

// --- memory: host memory, with its size kept in a 64-byte header ------------------------------

/// Blocks are 64-byte aligned; the first 64 bytes hold the block's size.
const HEADER: usize = 64;

/// Allocates `size` usable bytes, zeroed; NULL for 0 bytes or on failure.
fn block_alloc(size: u64) -> *mut c_void {
    let Some(total) = usize::try_from(size)
        .ok()
        .and_then(|s| s.checked_add(HEADER))
    else {
        return ptr::null_mut();
    };
    let Ok(layout) = Layout::from_size_align(total, HEADER) else {
        return ptr::null_mut();
    };
    if size == 0 {
        return ptr::null_mut();
    }
    // SAFETY: `alloc_zeroed` requires a non-zero size (see
    // <https://doc.rust-lang.org/std/alloc/trait.GlobalAlloc.html#method.alloc_zeroed>):
    // `total` is at least `HEADER`.
    let base = unsafe { alloc_zeroed(layout) };
    if base.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: `ptr::write` requires `base` valid for writes and aligned for `usize`: a fresh
    // block of at least 64 bytes, 64-byte aligned.
    unsafe { base.cast::<usize>().write(total) };
    base.wrapping_add(HEADER).cast()
}

/// Frees a block from `block_alloc`; NULL is ignored.
///
/// # Safety
/// `ptr` must be NULL or come from `block_alloc`, not yet freed.
unsafe fn block_free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    let base = ptr.cast::<u8>().wrapping_sub(HEADER);
    // SAFETY: `ptr::read` requires `base` valid for reads and aligned: `block_alloc` returned
    // `base + 64` and wrote the block's total size at `base`, 64-byte aligned (caller).
    let total = unsafe { base.cast::<usize>().read() };
    // `block_alloc` made this exact layout, so it is valid.
    let Ok(layout) = Layout::from_size_align(total, HEADER) else {
        return;
    };
    // SAFETY: `dealloc` requires the block to come from this allocator with this layout (see
    // <https://doc.rust-lang.org/std/alloc/trait.GlobalAlloc.html#tymethod.dealloc>):
    // `block_alloc` allocated `base` with `Layout(total, 64)`, and it is freed once (caller).
    unsafe { dealloc(base, layout) };
}

unsafe extern "C" fn allocate(
    _device: *const SP_Device,
    size: u64,
    _memory_space: i64,
    mem: *mut SP_DeviceMemoryBase,
) {
    let opaque = block_alloc(size);
    if build() == Build::Older {
        type O = older::SP_DeviceMemoryBase;
        let mut value = O::new();
        value.set(O::opaque, opaque).set(O::size, size);
        // SAFETY: TensorFlow passes its `SP_DeviceMemoryBase{SP_DEVICE_MEMORY_BASE_STRUCT_SIZE}`;
        // the older declaration is a shorter one.
        unsafe { fill(mem, &value) };
    } else {
        let mut value = SP_DeviceMemoryBase::new();
        value
            .set(SP_DeviceMemoryBase::opaque, opaque)
            .set(SP_DeviceMemoryBase::size, size);
        // SAFETY: TensorFlow passes its `SP_DeviceMemoryBase{SP_DEVICE_MEMORY_BASE_STRUCT_SIZE}`.
        unsafe { fill(mem, &value) };
    }
}

unsafe extern "C" fn deallocate(_device: *const SP_Device, mem: *mut SP_DeviceMemoryBase) {
    // SAFETY: TensorFlow passes the `SP_DeviceMemoryBase` of an allocation it got from
    // `allocate`, with `struct_size` set.
    let Ok(mem) = (unsafe { copy_from_ptr(mem, Tail::Ignore) }) else {
        return;
    };
    let opaque = mem
        .get(SP_DeviceMemoryBase::opaque)
        .unwrap_or(ptr::null_mut());
    // SAFETY: `opaque` is NULL or came from `block_alloc` in `allocate`; TF frees it once.
    unsafe { block_free(opaque) };
}

unsafe extern "C" fn host_memory_allocate(_device: *const SP_Device, size: u64) -> *mut c_void {
    block_alloc(size)
}

unsafe extern "C" fn host_memory_deallocate(_device: *const SP_Device, mem: *mut c_void) {
    // SAFETY: `mem` came from `host_memory_allocate` (`block_alloc`); TF frees it once.
    unsafe { block_free(mem) };
}

unsafe extern "C" fn get_allocator_stats(
    _device: *const SP_Device,
    _stats: *mut SP_AllocatorStats,
) -> TF_Bool {
    0
}

unsafe extern "C" fn device_memory_usage(
    _device: *const SP_Device,
    free: *mut i64,
    total: *mut i64,
) -> TF_Bool {
    if free.is_null() || total.is_null() {
        return 0;
    }
    // SAFETY: TensorFlow passes pointers to two `int64` of its own, checked non-NULL.
    unsafe { free.write(MEMORY) };
    // SAFETY: as above.
    unsafe { total.write(MEMORY) };
    1
}

/// The address an `SP_DeviceMemoryBase` holds; NULL if it cannot be read.
///
/// # Safety
/// `mem` must be NULL or a readable `SP_DeviceMemoryBase` with `struct_size` set.
unsafe fn address(mem: *const SP_DeviceMemoryBase) -> *mut u8 {
    // SAFETY: `copy_from_ptr` refuses NULL and reads `struct_size` bytes of `mem` (caller).
    match unsafe { copy_from_ptr(mem, Tail::Ignore) } {
        Ok(mem) => mem
            .get(SP_DeviceMemoryBase::opaque)
            .unwrap_or(ptr::null_mut())
            .cast(),
        Err(_) => ptr::null_mut(),
    }
}

/// Copies `size` bytes; nothing if either side is NULL or the size does not fit in `usize`.
///
/// # Safety
/// Non-NULL `dst` and `src` must be valid for `size` bytes, and not overlap.
unsafe fn copy(dst: *mut u8, src: *const u8, size: u64) {
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if dst.is_null() || src.is_null() || size == 0 {
        return;
    }
    // SAFETY: `copy_nonoverlapping` requires both sides valid for `size` bytes and disjoint
    // (see <https://doc.rust-lang.org/core/ptr/fn.copy_nonoverlapping.html#safety>): TensorFlow
    // passes a buffer and an allocation of at least `size` bytes each, distinct (caller).
    unsafe { ptr::copy_nonoverlapping(src, dst, size) };
}

unsafe extern "C" fn memcpy_dtoh(
    device: *const SP_Device,
    _stream: SP_Stream,
    host_dst: *mut c_void,
    device_src: *const SP_DeviceMemoryBase,
    size: u64,
    status: *mut TF_Status,
) {
    // SAFETY: the same contract as the synchronous copy: the stream runs it at once.
    unsafe { sync_memcpy_dtoh(device, host_dst, device_src, size, status) };
}

unsafe extern "C" fn memcpy_htod(
    device: *const SP_Device,
    _stream: SP_Stream,
    device_dst: *mut SP_DeviceMemoryBase,
    host_src: *const c_void,
    size: u64,
    status: *mut TF_Status,
) {
    // SAFETY: as above.
    unsafe { sync_memcpy_htod(device, device_dst, host_src, size, status) };
}

unsafe extern "C" fn memcpy_dtod(
    device: *const SP_Device,
    _stream: SP_Stream,
    device_dst: *mut SP_DeviceMemoryBase,
    device_src: *const SP_DeviceMemoryBase,
    size: u64,
    status: *mut TF_Status,
) {
    // SAFETY: as above.
    unsafe { sync_memcpy_dtod(device, device_dst, device_src, size, status) };
}

unsafe extern "C" fn sync_memcpy_dtoh(
    _device: *const SP_Device,
    host_dst: *mut c_void,
    device_src: *const SP_DeviceMemoryBase,
    size: u64,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes the `SP_DeviceMemoryBase` of one of our allocations.
    let src = unsafe { address(device_src) };
    // SAFETY: `host_dst` is TensorFlow's buffer of `size` bytes, `src` our allocation of at
    // least `size` bytes; host buffers and our blocks are distinct allocations.
    unsafe { copy(host_dst.cast(), src, size) };
}

unsafe extern "C" fn sync_memcpy_htod(
    _device: *const SP_Device,
    device_dst: *mut SP_DeviceMemoryBase,
    host_src: *const c_void,
    size: u64,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes the `SP_DeviceMemoryBase` of one of our allocations.
    let dst = unsafe { address(device_dst) };
    // SAFETY: as in `sync_memcpy_dtoh`, the other way.
    unsafe { copy(dst, host_src.cast(), size) };
}

unsafe extern "C" fn sync_memcpy_dtod(
    _device: *const SP_Device,
    device_dst: *mut SP_DeviceMemoryBase,
    device_src: *const SP_DeviceMemoryBase,
    size: u64,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes the `SP_DeviceMemoryBase`s of two of our allocations.
    let dst = unsafe { address(device_dst) };
    // SAFETY: as above.
    let src = unsafe { address(device_src) };
    if dst == src {
        return;
    }
    // SAFETY: two distinct allocations (checked unequal; our blocks never overlap), each of at
    // least `size` bytes.
    unsafe { copy(dst, src, size) };
}

/// Sets `size` bytes of a device allocation to `byte`.
///
/// # Safety
/// `location` must be NULL or one of our allocations of at least `size` bytes.
unsafe fn fill_bytes(location: *mut SP_DeviceMemoryBase, byte: u8, size: u64) {
    // SAFETY: see the function's contract.
    let dst = unsafe { address(location) };
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if !dst.is_null() {
        // SAFETY: `write_bytes` requires `dst` valid for `size` bytes (see
        // <https://doc.rust-lang.org/core/ptr/fn.write_bytes.html#safety>): our allocation.
        unsafe { dst.write_bytes(byte, size) };
    }
}

unsafe extern "C" fn mem_zero(
    _device: *const SP_Device,
    _stream: SP_Stream,
    location: *mut SP_DeviceMemoryBase,
    size: u64,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes one of our allocations and a size within it.
    unsafe { fill_bytes(location, 0, size) };
}

unsafe extern "C" fn memset(
    _device: *const SP_Device,
    _stream: SP_Stream,
    location: *mut SP_DeviceMemoryBase,
    pattern: u8,
    size: u64,
    _status: *mut TF_Status,
) {
    // SAFETY: as above.
    unsafe { fill_bytes(location, pattern, size) };
}

unsafe extern "C" fn memset32(
    _device: *const SP_Device,
    _stream: SP_Stream,
    location: *mut SP_DeviceMemoryBase,
    pattern: u32,
    size: u64,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes one of our allocations.
    let dst = unsafe { address(location) };
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if dst.is_null() {
        return;
    }
    for (i, byte) in (0..size).zip(pattern.to_ne_bytes().into_iter().cycle()) {
        // SAFETY: `ptr::write` requires the target valid for writes (see
        // <https://doc.rust-lang.org/core/ptr/fn.write.html#safety>): `i < size`, a byte of our
        // allocation of at least `size` bytes (`wrapping_add` stays inside it).
        unsafe { dst.wrapping_add(i).write(byte) };
    }
}

// --- streams, events, timers: synchronous -----------------------------------------------------

/// A stream: nothing to hold, since work runs at once.
struct Stream;
/// An event: complete as soon as it is recorded.
struct Event;
/// A timer: the instants its start and stop were recorded.
struct Timer {
    start: Instant,
    stop: Instant,
}

unsafe extern "C" fn create_stream(
    _device: *const SP_Device,
    stream: *mut SP_Stream,
    _status: *mut TF_Status,
) {
    if !stream.is_null() {
        // SAFETY: TensorFlow passes a pointer to its `SP_Stream` variable, checked non-NULL.
        unsafe { stream.write(Box::into_raw(Box::new(Stream)).cast()) };
    }
}

unsafe extern "C" fn destroy_stream(_device: *const SP_Device, stream: SP_Stream) {
    if !stream.is_null() {
        // SAFETY: `Box::from_raw` requires a pointer from `Box::into_raw` of the same type, used
        // once: `create_stream` made it, and TensorFlow destroys each stream once.
        drop(unsafe { Box::from_raw(stream.cast::<Stream>()) });
    }
}

unsafe extern "C" fn stream_dependency(
    _device: *const SP_Device,
    _dependent: SP_Stream,
    _other: SP_Stream,
    _status: *mut TF_Status,
) {
}

unsafe extern "C" fn stream_status(
    _device: *const SP_Device,
    _stream: SP_Stream,
    _status: *mut TF_Status,
) {
}

unsafe extern "C" fn create_event(
    _device: *const SP_Device,
    event: *mut SP_Event,
    _status: *mut TF_Status,
) {
    if !event.is_null() {
        // SAFETY: TensorFlow passes a pointer to its `SP_Event` variable, checked non-NULL.
        unsafe { event.write(Box::into_raw(Box::new(Event)).cast()) };
    }
}

unsafe extern "C" fn destroy_event(_device: *const SP_Device, event: SP_Event) {
    if !event.is_null() {
        // SAFETY: from `create_event`'s `Box::into_raw`, destroyed once by TensorFlow.
        drop(unsafe { Box::from_raw(event.cast::<Event>()) });
    }
}

unsafe extern "C" fn event_status(_device: *const SP_Device, _event: SP_Event) -> SE_EventStatus {
    SE_EventStatus::COMPLETE
}

unsafe extern "C" fn record_event(
    _device: *const SP_Device,
    _stream: SP_Stream,
    _event: SP_Event,
    _status: *mut TF_Status,
) {
}

unsafe extern "C" fn wait_for_event(
    _device: *const SP_Device,
    _stream: SP_Stream,
    _event: SP_Event,
    _status: *mut TF_Status,
) {
}

unsafe extern "C" fn create_timer(
    _device: *const SP_Device,
    timer: *mut SP_Timer,
    _status: *mut TF_Status,
) {
    if !timer.is_null() {
        let now = Instant::now();
        let value = Box::new(Timer {
            start: now,
            stop: now,
        });
        // SAFETY: TensorFlow passes a pointer to its `SP_Timer` variable, checked non-NULL.
        unsafe { timer.write(Box::into_raw(value).cast()) };
    }
}

unsafe extern "C" fn destroy_timer(_device: *const SP_Device, timer: SP_Timer) {
    if !timer.is_null() {
        // SAFETY: from `create_timer`'s `Box::into_raw`, destroyed once by TensorFlow.
        drop(unsafe { Box::from_raw(timer.cast::<Timer>()) });
    }
}

/// The timer behind a handle from `create_timer`; `None` for NULL.
///
/// # Safety
/// `timer` must be NULL or a live timer from `create_timer`, not used elsewhere meanwhile.
unsafe fn timer_mut<'a>(timer: SP_Timer) -> Option<&'a mut Timer> {
    // SAFETY: `as_mut` requires a NULL or valid, aligned, exclusively used pointer to a `Timer`
    // (see <https://doc.rust-lang.org/core/primitive.pointer.html#method.as_mut>): `create_timer`
    // boxed it, and TensorFlow calls one timer function at a time per timer (caller).
    unsafe { timer.cast::<Timer>().as_mut() }
}

unsafe extern "C" fn start_timer(
    _device: *const SP_Device,
    _stream: SP_Stream,
    timer: SP_Timer,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes a timer from `create_timer`.
    if let Some(timer) = unsafe { timer_mut(timer) } {
        timer.start = Instant::now();
        timer.stop = timer.start;
    }
}

unsafe extern "C" fn stop_timer(
    _device: *const SP_Device,
    _stream: SP_Stream,
    timer: SP_Timer,
    _status: *mut TF_Status,
) {
    // SAFETY: TensorFlow passes a timer from `create_timer`.
    if let Some(timer) = unsafe { timer_mut(timer) } {
        timer.stop = Instant::now();
    }
}

unsafe extern "C" fn nanoseconds(timer: SP_Timer) -> u64 {
    // SAFETY: TensorFlow passes a timer from `create_timer`.
    match unsafe { timer_mut(timer) } {
        Some(timer) => {
            let elapsed = timer.stop.saturating_duration_since(timer.start);
            u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
        }
        None => 0,
    }
}

unsafe extern "C" fn block_host_for_event(
    _device: *const SP_Device,
    _event: SP_Event,
    _status: *mut TF_Status,
) {
}

unsafe extern "C" fn block_host_until_done(
    _device: *const SP_Device,
    _stream: SP_Stream,
    _status: *mut TF_Status,
) {
}

unsafe extern "C" fn synchronize_all_activity(_device: *const SP_Device, _status: *mut TF_Status) {}

/// Runs TensorFlow's callback at once (the stream has no pending work), with a status of its
/// own made by TensorFlow's `TF_NewStatus`.
unsafe extern "C" fn host_callback(
    _device: *const SP_Device,
    _stream: SP_Stream,
    callback: SE_StatusCallbackFn,
    arg: *mut c_void,
) -> TF_Bool {
    type NewStatus = unsafe extern "C" fn() -> *mut TF_Status;
    type DeleteStatus = unsafe extern "C" fn(*mut TF_Status);
    let Some(callback) = callback else {
        return 0;
    };
    // SAFETY: `tf_function` requires the real type: `TF_Status* TF_NewStatus(void)`
    // (`tensorflow/c/tf_status.h`).
    let Some(new_status) = (unsafe { tf_function::<NewStatus>(c"TF_NewStatus") }) else {
        return 0;
    };
    // SAFETY: as above: `void TF_DeleteStatus(TF_Status*)`.
    let Some(delete_status) = (unsafe { tf_function::<DeleteStatus>(c"TF_DeleteStatus") }) else {
        return 0;
    };
    // SAFETY: `TF_NewStatus` takes nothing and returns a fresh status.
    let status = unsafe { new_status() };
    // SAFETY: TensorFlow's callback takes the argument it handed over with it, once, and a
    // live status.
    unsafe { callback(arg, status) };
    // SAFETY: `status` came from `TF_NewStatus` and is deleted once.
    unsafe { delete_status(status) };
    1
}
