//! An emulated TensorFlow host: loads a plugin **into this process** and does what one release
//! does when `load_pluggable_device_library` loads it, step by step, with that release's rules
//! ([`LoadRules`](crate::tensorflow::LoadRules), taken from its binary):
//!
//! 1. `dlopen(RTLD_NOW | RTLD_LOCAL)` the plugin, and look up `SE_InitPlugin` (none: nothing
//!    more to do for the device module);
//! 2. `InitStreamExecutorPlugin` (`tensorflow/c/experimental/stream_executor/stream_executor.cc`):
//!    call `SE_InitPlugin` with zero-filled structs of the release's sizes; the status it leaves;
//!    `SE_PlatformRegistrationParams`, `SP_Platform` (and its name and type against
//!    `[A-Z][A-Z_]*`), `SP_PlatformFns`; `create_device_fns`, its status, `SP_DeviceFns`;
//!    `create_stream_executor`, its status, `SP_StreamExecutor`; in 2.12 and 2.13,
//!    `create_timer_fns`, its status, `SP_TimerFns`; then the platform's registration, which
//!    fails on a name the process already has. Any failure is returned to
//!    `TF_LoadPluggableDeviceLibrary`, whose `TF_CHECK_OK` aborts the process with it;
//! 3. the device factory's registration (a plugin whose type is `CPU` replaces TensorFlow's
//!    CPU devices), and Python's `reinitialize_physical_devices`, which lists devices through
//!    the plugin's `get_device_count`, a function TensorFlow never checks: NULL, it crashes the
//!    process; an error status only counts as no device.
//!
//! A function TensorFlow calls without checking it, left NULL, is not called here: the outcome
//! is the crash TensorFlow would have. Everything else runs the plugin's own code: a plugin that
//! crashes takes this process with it. The `se-abi` tool runs it only when asked (`--run`), in a
//! child process of its own per release, which reports each step it reaches ([`Step`]) so that
//! a crash is placed.

use std::ffi::{CStr, c_int, c_void};
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use super::check::Refusal;
use super::status;
use crate::Versioned;
use crate::tensorflow::{
    CheckOk, RELEASE_STRUCT_SIZES, SE_CreateDeviceFnsParams, SE_CreateStreamExecutorParams,
    SE_PlatformRegistrationParams, SEInitPluginFn, SP_DeviceFns, SP_Platform, SP_PlatformFns,
    SP_StreamExecutor, SP_TimerFns, StructCheck, TF_Status, TfRelease,
};

/// What the emulated host found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostOutcome {
    /// The plugin could not be loaded into this process (it needs a library, or imports a
    /// function, that only TensorFlow provides, and the host has none): why.
    NotRun {
        /// The loader's words, and what to do.
        reason: String,
    },
    /// The plugin has no `SE_InitPlugin`: TensorFlow registers no device for it.
    NoDeviceModule,
    /// Every check passed: TensorFlow registers the platform and lists its devices.
    Accepted {
        /// The platform's device type.
        device_type: String,
        /// What `get_device_count` reported (0 after an error status).
        devices: i32,
    },
    /// The release refuses the plugin: it aborts, crashes or raises.
    Refused(Refusal),
}

/// A step of the load at which the host runs the plugin's code: where a crash happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `dlopen`, which runs the plugin's initializers.
    Open,
    /// A function of the plugin's, by its name.
    Call(&'static str),
}

impl Step {
    /// The step's name: `dlopen`, or the function's.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Open => "dlopen",
            Step::Call(name) => name,
        }
    }
}

/// A zero-filled host struct of `size` bytes rounded up to 8 (TensorFlow's `sizeof`), with
/// `struct_size` set: what TensorFlow's `T t{T_STRUCT_SIZE}` is.
fn host_struct(struct_size: usize) -> Vec<u64> {
    let mut words = vec![0u64; struct_size.div_ceil(8).max(1)];
    words[0] = struct_size as u64;
    words
}

/// The pointer-sized member `member` of a host struct (0 if the struct has no such member).
/// Pointer members are 8-aligned, so each is one word of the buffer.
fn word<T: Versioned>(buffer: &[u64], member: &str) -> u64 {
    T::member(member)
        .and_then(|m| buffer.get(m.offset / 8))
        .copied()
        .unwrap_or(0)
}

/// Whether `name` is a valid device type (TensorFlow's `ValidateDeviceType`: `[A-Z][A-Z_]*`,
/// the whole name).
fn valid_device_type(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_uppercase)
        && name.iter().all(|c| c.is_ascii_uppercase() || *c == b'_')
}

/// The fatal line the release aborts with when `TF_CHECK_OK(expression)` fails with `status`
/// (`Status::ToString()`).
pub fn abort_text(check_ok: CheckOk, expression: &str, status: &str) -> String {
    match check_ok {
        CheckOk::NonOkStatus => format!("Non-OK-status: {expression} status: {status}"),
        CheckOk::NonOkStatusNewline => format!("Non-OK-status: {expression}\nStatus: {status}"),
        CheckOk::CheckFailed => format!(
            "Check failed: (::tsl::TfCheckOkDeprecationMarker(), {expression}) is OK ({status})"
        ),
    }
}

/// The platforms a process that imported TensorFlow already has, by name as the registry
/// compares them (lower case): XLA's host platform (`Host`, `xla/stream_executor/host/`).
/// Measured with probe plugins of every name XLA gives a platform, in every release
/// (`interop/plugin_check/probes.py`).
const BUILT_IN_PLATFORMS: &[&str] = &["host"];

/// One run of the load path, against one release's rules and struct sizes.
struct Host<'a> {
    release: &'a TfRelease,
    status: *mut TF_Status,
    step: &'a mut dyn FnMut(Step),
}

/// How a step fails: the refusal, which ends the load.
type Failed = Refusal;

impl Host<'_> {
    fn size(&self, name: &str) -> usize {
        RELEASE_STRUCT_SIZES
            .iter()
            .find(|(r, _)| *r == self.release.release)
            .and_then(|(_, sizes)| sizes.iter().find(|(n, _)| *n == name))
            .map_or(8, |(_, size)| *size)
    }

    /// `TF_CHECK_OK(RegisterPluggableDevicePlugin(...))` failing with `status`.
    fn abort(&self, expression: &str, status: &str) -> Failed {
        Refusal::Abort {
            message: abort_text(self.release.load.check_ok, expression, status),
        }
    }

    /// A failed check of the plugin's registration: `FAILED_PRECONDITION: message`.
    fn refuse(&self, message: &str) -> Failed {
        self.abort(
            self.release.load.register_plugin,
            &format!("FAILED_PRECONDITION: {message}"),
        )
    }

    /// The status the plugin's last call left (`TF_RETURN_IF_ERROR(StatusFromTF_Status(...))`).
    fn check_status(&self) -> Result<(), Failed> {
        // SAFETY: `self.status` came from `status::new` and lives as long as the host.
        match unsafe { status::text(self.status) } {
            Some(text) => Err(self.abort(self.release.load.register_plugin, &text)),
            None => Ok(()),
        }
    }

    /// `TF_VALIDATE_STRUCT_SIZE`, then `TF_VALIDATE_NOT_NULL` of each member, as `check` says.
    fn validate<T: Versioned>(&self, buffer: &[u64], check: &StructCheck) -> Result<(), Failed> {
        if buffer[0] == 0 {
            return Err(self.refuse(&format!(
                "Expected initialized `{}` structure with `struct_size` field set to {}. Found \
                 `struct_size` = 0.",
                T::NAME,
                check.size_macro
            )));
        }
        for member in check.members {
            self.require::<T>(buffer, member)?;
        }
        Ok(())
    }

    /// `TF_VALIDATE_NOT_NULL`: TensorFlow reads the member in its own struct, whatever
    /// `struct_size` the plugin set.
    fn require<T: Versioned>(&self, buffer: &[u64], member: &str) -> Result<(), Failed> {
        if word::<T>(buffer, member) == 0 {
            return Err(self.refuse(&format!("'{member}' field in {} must be set.", T::NAME)));
        }
        Ok(())
    }

    /// The plugin's function `member` of `SP_PlatformFns`, which TensorFlow is about to call:
    /// NULL, TensorFlow crashes there.
    fn function(&self, platform_fns: &[u64], member: &'static str) -> Result<usize, Failed> {
        match word::<SP_PlatformFns>(platform_fns, member) {
            0 => Err(Refusal::Crash {
                signal: "SIGSEGV".to_string(),
                message: format!(
                    "TensorFlow calls the plugin's {member}, which it left NULL (TensorFlow does \
                     not check it): the process is killed by SIGSEGV"
                ),
            }),
            address => Ok(address as usize),
        }
    }

    /// Calls `create_device_fns`, `create_stream_executor` or `create_timer_fns`: each takes the
    /// platform, a struct of TensorFlow's to fill, and the status.
    fn create(
        &mut self,
        platform_fns: &[u64],
        member: &'static str,
        platform: &[u64],
        argument: *mut c_void,
    ) -> Result<(), Failed> {
        type Create = unsafe extern "C" fn(*const c_void, *mut c_void, *mut TF_Status);
        let address = self.function(platform_fns, member)?;
        // SAFETY: `transmute` requires the same size and a valid value (see
        // <https://doc.rust-lang.org/core/mem/fn.transmute.html>): a non-NULL (checked) function
        // pointer of the plugin's, of the type the header gives `member`.
        let create = unsafe { core::mem::transmute::<usize, Create>(address) };
        (self.step)(Step::Call(member));
        // SAFETY: the plugin's function, given its platform, a zero-filled struct of
        // TensorFlow's of the release's size, and the status, all alive for the call.
        unsafe { create(platform.as_ptr().cast(), argument, self.status) };
        self.check_status()
    }

    /// `InitStreamExecutorPlugin`, then the platform's registration and device listing.
    fn run(&mut self, init: SEInitPluginFn) -> Result<(String, i32), Failed> {
        let rules = self.release.load;
        let mut params = host_struct(self.size("SE_PlatformRegistrationParams"));
        let mut platform = host_struct(self.size("SP_Platform"));
        let mut platform_fns = host_struct(self.size("SP_PlatformFns"));
        {
            // SE_MAJOR.SE_MINOR.SE_PATCH, 0.0.1 in every release, and the two structs to fill
            // (x86-64 is little-endian: a 4-byte member at offset `o` is a half of word `o / 8`).
            type P = SE_PlatformRegistrationParams;
            let offset = |member: &str| P::member(member).map_or(0, |m| m.offset);
            let patch = offset("patch_version");
            params[patch / 8] |= 1 << ((patch % 8) * 8);
            params[offset("platform") / 8] = platform.as_mut_ptr() as u64;
            params[offset("platform_fns") / 8] = platform_fns.as_mut_ptr() as u64;
        }
        (self.step)(Step::Call("SE_InitPlugin"));
        // SAFETY: `init` is the plugin's `SE_InitPlugin` (the caller's contract), given
        // TensorFlow's structs: zero-filled, `struct_size` set to the release's sizes, each as
        // long as TensorFlow's `sizeof`, alive for the call; and a status.
        unsafe { init(params.as_mut_ptr().cast(), self.status) };
        self.check_status()?;
        self.validate::<SE_PlatformRegistrationParams>(&params, &rules.registration_params)?;
        self.validate::<SP_Platform>(&platform, &rules.platform)?;
        let mut names = Vec::new();
        for member in ["name", "type"] {
            let pointer = word::<SP_Platform>(&platform, member);
            if pointer == 0 {
                // Not checked by this release, and read anyway: a NULL `char*` is read as a
                // string by TensorFlow's `ValidateDeviceType`, and crashes.
                return Err(Refusal::Crash {
                    signal: "SIGSEGV".to_string(),
                    message: format!(
                        "TensorFlow reads the platform's {member}, which the plugin left NULL: \
                         the process is killed by SIGSEGV"
                    ),
                });
            }
            // SAFETY: `CStr::from_ptr` requires a NUL-terminated string valid for reads: the
            // plugin's platform name or type, which the C API requires to be such a string
            // outliving the plugin (checked non-NULL above).
            let text = unsafe { CStr::from_ptr(pointer as usize as *const core::ffi::c_char) };
            names.push(text.to_string_lossy().into_owned());
        }
        for name in &names {
            if !valid_device_type(name.as_bytes()) {
                return Err(self.refuse(&format!(
                    "Device name/type '{name}' must match [A-Z][A-Z_]*."
                )));
            }
        }
        self.validate::<SP_PlatformFns>(&platform_fns, &rules.platform_fns)?;
        // `supports_unified_memory`: the byte after `visible_device_count`.
        let unified = SP_Platform::member("supports_unified_memory")
            .and_then(|m| {
                let word = platform.get(m.offset / 8)?;
                Some((word >> ((m.offset % 8) * 8)) & 0xff != 0)
            })
            .unwrap_or(false);

        let mut device_fns_params = host_struct(self.size("SE_CreateDeviceFnsParams"));
        let mut device_fns = host_struct(self.size("SP_DeviceFns"));
        let at = SE_CreateDeviceFnsParams::member("device_fns").map_or(2, |m| m.offset / 8);
        device_fns_params[at] = device_fns.as_mut_ptr() as u64;
        let argument = device_fns_params.as_mut_ptr().cast();
        self.create(&platform_fns, "create_device_fns", &platform, argument)?;
        self.validate::<SP_DeviceFns>(&device_fns, &rules.device_fns)?;

        let mut executor_params = host_struct(self.size("SE_CreateStreamExecutorParams"));
        let mut executor = host_struct(self.size("SP_StreamExecutor"));
        let at =
            SE_CreateStreamExecutorParams::member("stream_executor").map_or(2, |m| m.offset / 8);
        executor_params[at] = executor.as_mut_ptr() as u64;
        let argument = executor_params.as_mut_ptr().cast();
        self.create(&platform_fns, "create_stream_executor", &platform, argument)?;
        if executor[0] == 0 {
            return Err(self.refuse(&format!(
                "Expected initialized `SP_StreamExecutor` structure with `struct_size` field set \
                 to {}. Found `struct_size` = 0.",
                rules.stream_executor.size_macro
            )));
        }
        for member in rules.stream_executor.members {
            if unified || !rules.unified_memory.contains(member) {
                self.require::<SP_StreamExecutor>(&executor, member)?;
            }
        }

        if let Some(check) = &rules.timer_fns {
            let mut timer_fns = host_struct(self.size("SP_TimerFns"));
            let argument = timer_fns.as_mut_ptr().cast();
            self.create(&platform_fns, "create_timer_fns", &platform, argument)?;
            self.validate::<SP_TimerFns>(&timer_fns, check)?;
        }

        // The platform registry compares names in lower case.
        let name = names[0].to_ascii_lowercase();
        if BUILT_IN_PLATFORMS.contains(&name.as_str()) {
            return Err(self.abort(
                rules.register_platform,
                &format!(
                    "INTERNAL: platform is already registered with name: \"{}\"",
                    names[0]
                ),
            ));
        }

        // `reinitialize_physical_devices`: `VisibleDeviceCount()` calls `get_device_count`.
        type Count = unsafe extern "C" fn(*const c_void, *mut c_int, *mut TF_Status);
        let address = self.function(&platform_fns, "get_device_count")?;
        // SAFETY: as in `create`: the plugin's non-NULL `get_device_count`.
        let count_fn = unsafe { core::mem::transmute::<usize, Count>(address) };
        let mut count: c_int = 0;
        (self.step)(Step::Call("get_device_count"));
        // SAFETY: the plugin's function, given its platform, TensorFlow's `int` and the status.
        unsafe { count_fn(platform.as_ptr().cast(), &mut count, self.status) };
        // SAFETY: the host's status.
        if unsafe { status::text(self.status) }.is_some() {
            count = 0; // `LOG(ERROR) << TF_Message(...)`, and no device.
        }
        let device_type = names[1].clone();
        // A plugin of type CPU replaces TensorFlow's CPU device factory (priority 220 over its
        // 50), and TensorFlow requires a CPU device (`DeviceFactory::ListAllPhysicalDevices`).
        if device_type == "CPU" && count <= 0 {
            return Err(Refusal::Raises {
                class: "NotFoundError".to_string(),
                message: "No CPU devices are available in this process".to_string(),
            });
        }
        Ok((device_type, count))
    }
}

/// Loads the plugin at `path` into this process and does what `release`'s TensorFlow does when
/// it loads it (one of [`TF_RELEASES`](crate::tensorflow::TF_RELEASES)); `step` is told before
/// each call into the plugin's code. Statuses are [`super::status`]'s: emulated, or a real
/// TensorFlow's once the caller has loaded one and called [`status::use_tensorflow`].
///
/// # Safety
///
/// This runs the plugin's code, which can do anything in this process: call it only for a
/// plugin you would load anyway, and preferably in a process of its own (as the `se-abi` tool
/// does). The plugin must follow the StreamExecutor C API: an `SE_InitPlugin` of type
/// `void(SE_PlatformRegistrationParams*, TF_Status*)` and callbacks of the types the header
/// gives them.
pub unsafe fn emulate(path: &Path, release: &TfRelease, step: &mut dyn FnMut(Step)) -> HostOutcome {
    // TensorFlow loads a plugin with `RTLD_NOW | RTLD_LOCAL` (`LoadDynamicLibrary`,
    // `tsl/platform/default/load_library.cc`).
    let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL;
    step(Step::Open);
    // SAFETY: `Library::open` runs the library's initializers, which may do anything (see
    // <https://docs.rs/libloading/latest/libloading/os/unix/struct.Library.html#method.open>):
    // running the plugin's code is this function's purpose, and its caller's contract.
    let library = match unsafe { libloading::os::unix::Library::open(Some(path), flags) } {
        Ok(library) => library,
        Err(e) => {
            // libloading's error says "dlopen failed"; its source holds the loader's words.
            let reason = match std::error::Error::source(&e) {
                Some(source) => source.to_string(),
                None => e.to_string(),
            };
            return HostOutcome::NotRun { reason };
        }
    };
    // SAFETY: `Library::get` requires the symbol's real type (see
    // <https://docs.rs/libloading/latest/libloading/os/unix/struct.Library.html#method.get>):
    // `SE_InitPlugin` has TensorFlow's `SEInitPluginFn` type, the caller's contract.
    let Ok(init) = (unsafe { library.get::<SEInitPluginFn>(b"SE_InitPlugin\0") }) else {
        core::mem::forget(library);
        return HostOutcome::NoDeviceModule;
    };
    let init: SEInitPluginFn = *init;
    let mut host = Host {
        release,
        status: status::new(),
        step,
    };
    let outcome = match host.run(init) {
        Ok((device_type, devices)) => HostOutcome::Accepted {
            device_type,
            devices,
        },
        Err(refusal) => HostOutcome::Refused(refusal),
    };
    // The plugin stays loaded until this process ends, as in TensorFlow; so does the status,
    // which the plugin may have kept.
    core::mem::forget(library);
    outcome
}
