//! A probe plugin: a PluggableDevice plugin that breaks one thing at a time, on request, so
//! that what real TensorFlow does with it can be compared with what `se-abi plugin-check` says.
//!
//! It is built like any plugin (`cargo build -p se-abi --example tf-probe`) and reads what to
//! break from the environment variable `SE_ABI_PROBE`: directives separated by `;`.
//!
//! | directive | what the plugin does |
//! |---|---|
//! | `null=STRUCT.member` | leaves that function member NULL (repeatable) |
//! | `size=STRUCT:N` | writes `struct_size = N` (0: never set; smaller: an older header's struct, its later members left as TensorFlow's zeros; larger: a newer header's) |
//! | `name=TEXT`, `type=TEXT` | the platform's name or type (default `SE_ABI_PROBE`); `@null` for NULL |
//! | `unified` | sets `supports_unified_memory` |
//! | `status=FUNCTION:CODE:MESSAGE` | sets an error status in `SE_InitPlugin`, `create_device_fns`, `create_stream_executor`, `create_timer_fns` or `get_device_count` |
//! | `devices=N` | `get_device_count` reports N (default 1) |
//! | `stdout=N` | `SE_InitPlugin` writes N bytes to standard output |
//! | `stdout-unflushed=TEXT` | `SE_InitPlugin` prints a line with C's stdio, which keeps it until the process exits |
//! | `fork` | `SE_InitPlugin` forks a child that lives for five minutes, holding the parent's files |
//! | `hang` | `SE_InitPlugin` never returns |
//! | `crash=FUNCTION` | that function raises `SIGSEGV` |
//! | `exit=FUNCTION:STATUS` | that function ends the process with C's `exit(STATUS)` |
//!
//! Every struct is written at TensorFlow 2.21's size (or the host's, if smaller: it writes
//! nothing past the host's `struct_size`), every function member points to a function (one that
//! does nothing, except those TensorFlow calls while it loads a plugin).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;

use se_abi::tensorflow::*;
use se_abi::{Shape, Versioned};

/// What `SE_ABI_PROBE` asks for.
#[derive(Default)]
struct Probe {
    nulls: Vec<(String, String)>,
    sizes: Vec<(String, usize)>,
    name: Option<Option<CString>>,
    device_type: Option<Option<CString>>,
    unified: bool,
    status: Option<(String, c_int, CString)>,
    devices: Option<c_int>,
    stdout: usize,
    unflushed: Option<CString>,
    fork: bool,
    hang: bool,
    crash: Option<String>,
    exit: Option<(String, c_int)>,
}

fn text(value: &str) -> Option<CString> {
    if value == "@null" {
        None
    } else {
        Some(CString::new(value).expect("no NUL in SE_ABI_PROBE"))
    }
}

fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(|| {
        let mut probe = Probe::default();
        let spec = std::env::var("SE_ABI_PROBE").unwrap_or_default();
        for directive in spec.split(';').filter(|d| !d.is_empty()) {
            let (key, value) = directive.split_once('=').unwrap_or((directive, ""));
            match key {
                "null" => {
                    let (st, member) = value.split_once('.').expect("null=STRUCT.member");
                    probe.nulls.push((st.to_string(), member.to_string()));
                }
                "size" => {
                    let (st, size) = value.split_once(':').expect("size=STRUCT:N");
                    probe
                        .sizes
                        .push((st.to_string(), size.parse().expect("a size")));
                }
                "name" => probe.name = Some(text(value)),
                "type" => probe.device_type = Some(text(value)),
                "unified" => probe.unified = true,
                "status" => {
                    let mut parts = value.splitn(3, ':');
                    let function = parts.next().unwrap_or_default().to_string();
                    let code = parts.next().unwrap_or("13").parse().expect("a TF_Code");
                    let message = CString::new(parts.next().unwrap_or("probe error"))
                        .expect("no NUL in SE_ABI_PROBE");
                    probe.status = Some((function, code, message));
                }
                "devices" => probe.devices = Some(value.parse().expect("a count")),
                "stdout" => probe.stdout = value.parse().expect("a byte count"),
                "stdout-unflushed" => probe.unflushed = text(value),
                "fork" => probe.fork = true,
                "hang" => probe.hang = true,
                "crash" => probe.crash = Some(value.to_string()),
                "exit" => {
                    let (function, status) = value.split_once(':').expect("FUNCTION:STATUS");
                    let status = status.parse().expect("an exit status");
                    probe.exit = Some((function.to_string(), status));
                }
                other => panic!("SE_ABI_PROBE: unknown directive {other}"),
            }
        }
        probe
    })
}

unsafe extern "C" {
    fn printf(format: *const c_char, ...) -> c_int;
    fn fork() -> c_int;
    fn sleep(seconds: u32) -> u32;
    fn raise(signal: c_int) -> c_int;
    fn _exit(status: c_int) -> !;
}

/// Every function member the probe does not implement: TensorFlow does not call them while it
/// loads a plugin.
unsafe extern "C" fn unused() -> usize {
    0
}

/// The steps `probe` breaks at.
fn at(function: &str) {
    let probe = probe();
    if probe.crash.as_deref() == Some(function) {
        // SAFETY: `raise` has no preconditions; SIGSEGV (11) ends the process, as asked.
        unsafe { raise(11) };
    }
    if let Some((_, status)) = probe.exit.as_ref().filter(|(f, _)| f == function) {
        // std's exit is C's `exit`: the process's exit handlers run, and it ends, as asked.
        std::process::exit(*status);
    }
}

/// Sets the error `probe` asks for in `function`, through TensorFlow's `TF_SetStatus`.
fn status_in(function: &str, status: *mut TF_Status) {
    let Some((at, code, message)) = &probe().status else {
        return;
    };
    if at != function {
        return;
    }
    type SetStatus = unsafe extern "C" fn(*mut TF_Status, c_int, *const c_char);
    // SAFETY: `tf_function` requires the real type: `TF_SetStatus(TF_Status*, TF_Code, const
    // char*)` (`tensorflow/c/tf_status.h`).
    if let Some(set) = unsafe { tf_function::<SetStatus>(c"TF_SetStatus") } {
        // SAFETY: a live status TensorFlow passed for this call, and a NUL-terminated message.
        unsafe { set(status, *code, message.as_ptr()) };
    }
}

/// A function of TensorFlow's: from `libtensorflow_framework.so.2` if the process has it
/// (`RTLD_NOLOAD`: found even when TensorFlow loaded it `RTLD_LOCAL`), else a global lookup.
///
/// # Safety
/// `T` must be the C function's true type.
unsafe fn tf_function<T: Copy>(name: &CStr) -> Option<T> {
    use libloading::os::unix::{Library, RTLD_LAZY};
    const RTLD_NOLOAD: c_int = 0x4;
    // SAFETY: with `RTLD_NOLOAD` nothing is loaded and no initializer runs: it only returns a
    // handle on a library the process already has, or fails.
    let framework = unsafe {
        Library::open(
            Some("libtensorflow_framework.so.2"),
            RTLD_NOLOAD | RTLD_LAZY,
        )
    };
    let library = framework.unwrap_or_else(|_| Library::this());
    // SAFETY: the caller gives the symbol's real type; the library stays loaded (TensorFlow's,
    // or this process).
    let symbol = unsafe { library.get::<T>(name.to_bytes_with_nul()) }.ok()?;
    Some(*symbol)
}

/// Fills the host's struct `T` at `dst`: every function member the host's `struct_size` reaches
/// points to `unused`, then `functions` (name, function) are set, then the probe's NULLs and
/// size are applied.
///
/// # Safety
/// `dst` must be the host's struct `T`, its `struct_size` set and that many bytes writable.
unsafe fn fill<T: Versioned>(dst: *mut c_void, functions: &[(&str, usize)]) {
    let bytes = dst.cast::<u8>();
    // SAFETY: the host's struct starts with its `size_t struct_size` (caller).
    let host_size = unsafe { bytes.cast::<usize>().read_unaligned() };
    let write = |member: &str, value: usize| {
        if let Some(m) = T::member(member)
            && m.end() <= host_size
        {
            // SAFETY: the member lies inside the host's `struct_size` bytes (checked), which
            // are writable (caller); pointer members are 8 bytes.
            unsafe {
                bytes
                    .wrapping_add(m.offset)
                    .cast::<usize>()
                    .write_unaligned(value)
            };
        }
    };
    for m in T::MEMBERS {
        if matches!(m.shape, Shape::Function { .. }) {
            write(m.name, unused as *const () as usize);
        }
    }
    for (member, function) in functions {
        write(member, *function);
    }
    for (st, member) in &probe().nulls {
        if st == T::NAME {
            write(member, 0);
        }
    }
    for (st, size) in &probe().sizes {
        if st != T::NAME {
            continue;
        }
        // An older header's struct ends at `size`: TensorFlow's zeros stay past it.
        for offset in (*size).max(8)..host_size {
            // SAFETY: inside the host's `struct_size` bytes (caller).
            unsafe { bytes.wrapping_add(offset).write(0) };
        }
        // SAFETY: `struct_size` is the struct's first 8 bytes (caller).
        unsafe { bytes.cast::<usize>().write_unaligned(*size) };
    }
}

/// TensorFlow's entry point.
///
/// # Safety
/// TensorFlow calls it with its registration parameters and a status.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SE_InitPlugin(
    params: *mut SE_PlatformRegistrationParams,
    status: *mut TF_Status,
) {
    let probe = probe();
    if probe.stdout > 0 {
        use std::io::Write as _;
        let line = [b'x'; 99];
        let mut out = std::io::stdout().lock();
        for _ in 0..probe.stdout / 100 {
            let _ = out.write_all(&line);
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
    }
    if let Some(text) = &probe.unflushed {
        // SAFETY: a NUL-terminated format with one `%s` and its NUL-terminated argument.
        unsafe { printf(c"%s\n".as_ptr(), text.as_ptr()) };
    }
    if probe.fork {
        // SAFETY: `fork` has no preconditions; the child only sleeps and exits (both
        // async-signal-safe), holding the files it inherited.
        if unsafe { fork() } == 0 {
            // SAFETY: as above: async-signal-safe calls only, in the child.
            unsafe { sleep(300) };
            // SAFETY: as above.
            unsafe { _exit(0) }
        }
    }
    if probe.hang {
        loop {
            // SAFETY: `sleep` has no preconditions.
            unsafe { sleep(1000) };
        }
    }
    at("SE_InitPlugin");
    let view = params.cast::<c_void>();
    // SAFETY: TensorFlow's `SE_PlatformRegistrationParams`, its `struct_size` set.
    unsafe {
        fill::<SE_PlatformRegistrationParams>(
            view,
            &[
                ("destroy_platform", unused as *const () as usize),
                ("destroy_platform_fns", unused as *const () as usize),
            ],
        )
    };
    let pointer_at = |member: &str| -> *mut c_void {
        let offset = SE_PlatformRegistrationParams::member(member).map_or(0, |m| m.offset);
        // SAFETY: `platform` and `platform_fns` are pointer members of the host's params,
        // which TensorFlow set.
        unsafe {
            view.cast::<u8>()
                .wrapping_add(offset)
                .cast::<*mut c_void>()
                .read_unaligned()
        }
    };
    let platform = pointer_at("platform");
    let platform_fns = pointer_at("platform_fns");
    static DEFAULT: &CStr = c"SE_ABI_PROBE";
    let string = |choice: &Option<Option<CString>>| -> usize {
        match choice {
            None => DEFAULT.as_ptr() as usize,
            Some(None) => 0,
            Some(Some(text)) => text.as_ptr() as usize,
        }
    };
    // SAFETY: TensorFlow's `SP_Platform`, its `struct_size` set.
    unsafe {
        fill::<SP_Platform>(
            platform,
            &[
                ("name", string(&probe.name)),
                ("type", string(&probe.device_type)),
            ],
        )
    };
    if probe.unified
        && let Some(m) = SP_Platform::member("supports_unified_memory")
    {
        // SAFETY: a 1-byte member of TensorFlow's `SP_Platform`, inside every release's size.
        unsafe { platform.cast::<u8>().wrapping_add(m.offset).write(1) };
    }
    // SAFETY: TensorFlow's `SP_PlatformFns`, its `struct_size` set.
    unsafe {
        fill::<SP_PlatformFns>(
            platform_fns,
            &[
                ("get_device_count", get_device_count as *const () as usize),
                ("create_device_fns", create_device_fns as *const () as usize),
                (
                    "create_stream_executor",
                    create_stream_executor as *const () as usize,
                ),
                ("create_timer_fns", create_timer_fns as *const () as usize),
            ],
        )
    };
    status_in("SE_InitPlugin", status);
}

unsafe extern "C" fn get_device_count(
    _platform: *const SP_Platform,
    count: *mut c_int,
    status: *mut TF_Status,
) {
    at("get_device_count");
    // SAFETY: TensorFlow passes a pointer to its `int`.
    unsafe { count.write(probe().devices.unwrap_or(1)) };
    status_in("get_device_count", status);
}

/// The pointer member `member` of the host's parameters struct `T` at `params`.
///
/// # Safety
/// `params` must be the host's `T`.
unsafe fn pointer_in<T: Versioned>(params: *mut c_void, member: &str) -> *mut c_void {
    let offset = T::member(member).map_or(0, |m| m.offset);
    // SAFETY: a pointer member of the host's struct (caller).
    unsafe {
        params
            .cast::<u8>()
            .wrapping_add(offset)
            .cast::<*mut c_void>()
            .read_unaligned()
    }
}

unsafe extern "C" fn create_device_fns(
    _platform: *const SP_Platform,
    params: *mut SE_CreateDeviceFnsParams,
    status: *mut TF_Status,
) {
    at("create_device_fns");
    // SAFETY: TensorFlow's parameters, whose `device_fns` is its `SP_DeviceFns`.
    let device_fns = unsafe { pointer_in::<SE_CreateDeviceFnsParams>(params.cast(), "device_fns") };
    // SAFETY: TensorFlow's `SP_DeviceFns`, its `struct_size` set.
    unsafe { fill::<SP_DeviceFns>(device_fns, &[]) };
    status_in("create_device_fns", status);
}

unsafe extern "C" fn create_stream_executor(
    _platform: *const SP_Platform,
    params: *mut SE_CreateStreamExecutorParams,
    status: *mut TF_Status,
) {
    at("create_stream_executor");
    // SAFETY: TensorFlow's parameters, whose `stream_executor` is its `SP_StreamExecutor`.
    let executor =
        unsafe { pointer_in::<SE_CreateStreamExecutorParams>(params.cast(), "stream_executor") };
    // SAFETY: TensorFlow's `SP_StreamExecutor`, its `struct_size` set.
    unsafe { fill::<SP_StreamExecutor>(executor, &[]) };
    status_in("create_stream_executor", status);
}

unsafe extern "C" fn create_timer_fns(
    _platform: *const SP_Platform,
    timer_fns: *mut SP_TimerFns,
    status: *mut TF_Status,
) {
    at("create_timer_fns");
    // SAFETY: TensorFlow's `SP_TimerFns`, its `struct_size` set.
    unsafe { fill::<SP_TimerFns>(timer_fns.cast(), &[]) };
    status_in("create_timer_fns", status);
}
