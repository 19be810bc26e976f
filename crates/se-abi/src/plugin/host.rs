//! An emulated TensorFlow host: loads a plugin **into this process** and runs its
//! `SE_InitPlugin` against structs of one release's sizes, then applies that release's
//! validation, as `InitStreamExecutorPlugin` does
//! (`tensorflow/c/experimental/stream_executor/stream_executor.cc`).
//!
//! This executes the plugin's code: a plugin that crashes takes the process with it. The
//! `se-abi` tool runs it only when asked (`--run`), in a child process of its own per release.

use std::ffi::c_void;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use crate::Versioned;
use crate::error::Error;
use crate::tensorflow::{
    RELEASE_STRUCT_SIZES, SE_CreateDeviceFnsParams, SE_CreateStreamExecutorParams,
    SE_PlatformRegistrationParams, SEInitPluginFn, SP_DeviceFns, SP_Platform, SP_PlatformFns,
    SP_StreamExecutor,
};

/// What the emulated host found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostOutcome {
    /// The plugin could not be loaded into a process without TensorFlow (it needs a library,
    /// or imports a function, that only TensorFlow provides): only the static checks judge it.
    NotRun {
        /// The loader's words.
        reason: String,
    },
    /// The plugin has no `SE_InitPlugin`: nothing to run.
    NoDeviceModule,
    /// `SE_InitPlugin` ran and the release's validation accepted what it filled in.
    Accepted,
    /// The release's validation refused it (TensorFlow aborts the process: SIGABRT).
    Refused {
        /// TensorFlow's words.
        message: String,
    },
}

/// The members of `SP_StreamExecutor` TensorFlow requires (`ValidateSPStreamExecutor`), in its
/// order; `unified_memory_allocate` and `unified_memory_deallocate` too when the platform
/// `supports_unified_memory`.
const REQUIRED_STREAM_EXECUTOR: &[&str] = &[
    "allocate",
    "deallocate",
    "host_memory_allocate",
    "host_memory_deallocate",
    "get_allocator_stats",
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
];

/// A zero-filled host struct of `size` bytes rounded up to 8 (TensorFlow's `sizeof`), with
/// `struct_size` set: what TensorFlow's `T t{T_STRUCT_SIZE}` is.
fn host_struct(struct_size: usize) -> Vec<u64> {
    let mut words = vec![0u64; struct_size.div_ceil(8).max(1)];
    words[0] = struct_size as u64;
    words
}

fn size_in(release: &str, name: &str) -> Option<usize> {
    RELEASE_STRUCT_SIZES
        .iter()
        .find(|(r, _)| *r == release)
        .and_then(|(_, sizes)| sizes.iter().find(|(n, _)| *n == name))
        .map(|(_, size)| *size)
}

/// Whether `name` is a valid device type (TensorFlow's `ValidateDeviceType`: `[A-Z][A-Z_]*`).
fn valid_device_type(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_uppercase)
        && name.iter().all(|c| c.is_ascii_uppercase() || *c == b'_')
}

/// TensorFlow's struct-size check (`TF_VALIDATE_STRUCT_SIZE`): only that the plugin left it
/// non-zero.
fn require_size<T: Versioned>(buffer: &[u64]) -> Result<(), String> {
    if buffer[0] == 0 {
        return Err(Error::Uninitialized {
            name: T::NAME,
            size_name: T::SIZE_NAME,
        }
        .to_string());
    }
    Ok(())
}

/// A required member (`TF_VALIDATE_NOT_NULL`): TensorFlow reads it in its own struct, whatever
/// `struct_size` the plugin set, and says "'member' field in Struct must be set." for NULL.
fn require<T: Versioned>(buffer: &[u64], member: &'static str) -> Result<(), String> {
    if word(buffer, T::member(member)) == 0 {
        return Err(Error::MemberNotSet {
            name: T::NAME,
            member,
        }
        .to_string());
    }
    Ok(())
}

/// The pointer-sized member `member` of a host struct (0 if the struct has no such member).
/// Pointer members are 8-aligned, so each is one word of the buffer.
fn word(buffer: &[u64], member: Option<&'static crate::Member>) -> u64 {
    member
        .and_then(|m| buffer.get(m.offset / 8))
        .copied()
        .unwrap_or(0)
}

/// Loads the plugin at `path` into this process and runs its `SE_InitPlugin` as `release`'s
/// TensorFlow would (one of [`TF_RELEASES`](crate::tensorflow::TF_RELEASES)), returning what
/// that release's validation says.
///
/// # Safety
///
/// This runs the plugin's code, which can do anything in this process: call it only for a
/// plugin you would load anyway, and preferably in a process of its own (as the `se-abi` tool
/// does). The plugin must follow the StreamExecutor C API: an `SE_InitPlugin` of type
/// `void(SE_PlatformRegistrationParams*, TF_Status*)` and callbacks of the types the header
/// gives them.
pub unsafe fn emulate(path: &Path, release: &str) -> Result<HostOutcome, Error> {
    let size = |name: &'static str| {
        size_in(release, name).ok_or(Error::NotAPlugin {
            path: path.to_path_buf(),
            reason: "checked against a release se-abi has no facts of",
        })
    };
    // TensorFlow loads a plugin with `RTLD_NOW | RTLD_LOCAL` (`LoadDynamicLibrary`,
    // `tsl/platform/default/load_library.cc`).
    let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL;
    // SAFETY: `Library::open` runs the library's initializers, which may do anything (see
    // <https://docs.rs/libloading/latest/libloading/os/unix/struct.Library.html#method.open>):
    // running the plugin's code is this function's purpose, and its caller's contract.
    let library = match unsafe { libloading::os::unix::Library::open(Some(path), flags) } {
        Ok(library) => library,
        Err(e) => {
            // libloading's error says "dlopen failed"; its source holds the loader's words.
            let reason = match std::error::Error::source(&e) {
                Some(source) => format!("{e}: {source}"),
                None => e.to_string(),
            };
            return Ok(HostOutcome::NotRun { reason });
        }
    };
    // SAFETY: `Library::get` requires the symbol's real type (see
    // <https://docs.rs/libloading/latest/libloading/os/unix/struct.Library.html#method.get>):
    // `SE_InitPlugin` has TensorFlow's `SEInitPluginFn` type, the caller's contract.
    let Ok(init) = (unsafe { library.get::<SEInitPluginFn>(b"SE_InitPlugin\0") }) else {
        return Ok(HostOutcome::NoDeviceModule);
    };
    let init: SEInitPluginFn = *init;

    let mut params = host_struct(size("SE_PlatformRegistrationParams")?);
    let mut platform = host_struct(size("SP_Platform")?);
    let mut platform_fns = host_struct(size("SP_PlatformFns")?);
    // SE_MAJOR.SE_MINOR.SE_PATCH, 0.0.1 in every release, and the two structs to fill (x86-64
    // is little-endian: a 4-byte member at offset `o` is the low or high half of word `o / 8`).
    {
        type P = SE_PlatformRegistrationParams;
        let offset = |member: &str| P::member(member).map_or(0, |m| m.offset);
        let patch = offset("patch_version");
        params[patch / 8] |= 1 << ((patch % 8) * 8);
        params[offset("platform") / 8] = platform.as_mut_ptr() as u64;
        params[offset("platform_fns") / 8] = platform_fns.as_mut_ptr() as u64;
    }
    // An opaque status the plugin may hand to TensorFlow's functions (which this host does not
    // provide: a plugin that links them is `NotRun` above).
    let mut status = [0u64; 8];
    // SAFETY: `init` is the plugin's `SE_InitPlugin` (caller's contract), given TensorFlow's
    // structs: zero-filled, `struct_size` set to the release's sizes, each as long as
    // TensorFlow's `sizeof`, alive for the call.
    unsafe { init(params.as_mut_ptr().cast(), status.as_mut_ptr().cast()) };

    let mut check = || -> Result<(), String> {
        require_size::<SE_PlatformRegistrationParams>(&params)?;
        require::<SE_PlatformRegistrationParams>(&params, "destroy_platform")?;
        require::<SE_PlatformRegistrationParams>(&params, "destroy_platform_fns")?;
        require_size::<SP_Platform>(&platform)?;
        require::<SP_Platform>(&platform, "name")?;
        require::<SP_Platform>(&platform, "type")?;
        for member in ["name", "type"] {
            let pointer = word(&platform, SP_Platform::member(member));
            // SAFETY: `CStr::from_ptr` requires a NUL-terminated string valid for reads: the
            // plugin's platform name and type, which the C API requires to be such strings
            // outliving the plugin (checked non-NULL above).
            let text =
                unsafe { std::ffi::CStr::from_ptr(pointer as usize as *const core::ffi::c_char) };
            if !valid_device_type(text.to_bytes()) {
                return Err(format!(
                    "Device name/type '{}' must match the pattern: [A-Z][A-Z_]*",
                    text.to_string_lossy()
                ));
            }
        }
        require_size::<SP_PlatformFns>(&platform_fns)?;
        for member in [
            "create_device",
            "destroy_device",
            "create_stream_executor",
            "destroy_stream_executor",
            "create_device_fns",
            "destroy_device_fns",
        ] {
            require::<SP_PlatformFns>(&platform_fns, member)?;
        }
        // `supports_unified_memory`, the byte at offset 32 (little-endian x86-64).
        let supports_unified_memory = platform.get(4).is_some_and(|w| w & 0xff != 0);
        type Create = unsafe extern "C" fn(*const c_void, *mut c_void, *mut c_void);
        // create_device_fns, then create_stream_executor, as TensorFlow calls them.
        let mut device_fns_params =
            host_struct(size("SE_CreateDeviceFnsParams").map_err(|e| e.to_string())?);
        let mut device_fns = host_struct(size("SP_DeviceFns").map_err(|e| e.to_string())?);
        let at = SE_CreateDeviceFnsParams::member("device_fns").map_or(2, |m| m.offset / 8);
        device_fns_params[at] = device_fns.as_mut_ptr() as u64;
        let function = word(&platform_fns, SP_PlatformFns::member("create_device_fns"));
        // SAFETY: `transmute` requires the same size and a valid value (see
        // <https://doc.rust-lang.org/core/mem/fn.transmute.html>): a non-NULL (checked above)
        // function pointer of the plugin's, of the type the header gives `create_device_fns`.
        let create_device_fns = unsafe { core::mem::transmute::<usize, Create>(function as usize) };
        // SAFETY: the plugin's `create_device_fns`, given its platform, TensorFlow's zero-filled
        // parameters and device functions of the release's sizes, and a status.
        unsafe {
            create_device_fns(
                platform.as_ptr().cast(),
                device_fns_params.as_mut_ptr().cast(),
                status.as_mut_ptr().cast(),
            )
        };
        require_size::<SP_DeviceFns>(&device_fns)?;
        let mut se_params =
            host_struct(size("SE_CreateStreamExecutorParams").map_err(|e| e.to_string())?);
        let mut executor = host_struct(size("SP_StreamExecutor").map_err(|e| e.to_string())?);
        let at =
            SE_CreateStreamExecutorParams::member("stream_executor").map_or(2, |m| m.offset / 8);
        se_params[at] = executor.as_mut_ptr() as u64;
        let function = word(
            &platform_fns,
            SP_PlatformFns::member("create_stream_executor"),
        );
        // SAFETY: as for `create_device_fns`: the plugin's non-NULL `create_stream_executor`.
        let create = unsafe { core::mem::transmute::<usize, Create>(function as usize) };
        // SAFETY: the plugin's `create_stream_executor`, given its platform, TensorFlow's
        // zero-filled parameters and stream executor of the release's sizes, and a status.
        unsafe {
            create(
                platform.as_ptr().cast(),
                se_params.as_mut_ptr().cast(),
                status.as_mut_ptr().cast(),
            )
        };
        require_size::<SP_StreamExecutor>(&executor)?;
        for member in REQUIRED_STREAM_EXECUTOR {
            require::<SP_StreamExecutor>(&executor, member)?;
        }
        if supports_unified_memory {
            require::<SP_StreamExecutor>(&executor, "unified_memory_allocate")?;
            require::<SP_StreamExecutor>(&executor, "unified_memory_deallocate")?;
        }
        Ok(())
    };
    let outcome = match check() {
        Ok(()) => HostOutcome::Accepted,
        Err(message) => HostOutcome::Refused { message },
    };
    // The plugin stays loaded until this process ends, as in TensorFlow.
    core::mem::forget(library);
    Ok(outcome)
}
