//! Agreement with TensorFlow 2.21's real StreamExecutor C API structs (x86-64), as recorded in
//! `tests/data/se_layout.txt` (compiled from TF's
//! `tensorflow/c/experimental/stream_executor/stream_executor.h`).
//!
//! The structs below are declared with `versioned_struct!` from TF's header (function-pointer
//! members as `Option<unsafe extern "C" fn()>`, which has the layout of any C function pointer);
//! the test compares every member's offset and size, `sizeof` and `STRUCT_SIZE` with the file.
//! It fails, rather than skips, when the file is missing.

mod common;

use std::collections::BTreeMap;
use std::ffi::{c_char, c_void};

use se_abi::{Agreement, ApiVersion, Error, Versioned, View, check_registration, versioned_struct};

type Fn = Option<unsafe extern "C" fn()>;

versioned_struct! {
    /// `SP_TimerFns`.
    #[abi(size = SP_TIMER_FNS_STRUCT_SIZE, sizes = [24])]
    pub struct SP_TimerFns {
        nanoseconds: Fn = nonzero(since 1, at 16..24),
    }
}

versioned_struct! {
    /// `SP_DeviceMemoryBase`.
    #[abi(size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE, sizes = [40])]
    pub struct SP_DeviceMemoryBase {
        opaque: *mut c_void = value(since 1, at 16..24),
        size: u64 = value(since 1, at 24..32),
        payload: u64 = value(since 1, at 32..40),
    }
}

versioned_struct! {
    /// `SP_Device`.
    #[abi(size = SP_DEVICE_STRUCT_SIZE, sizes = [56])]
    pub struct SP_Device {
        ordinal: i32 = value(since 1, at 16..20),
        device_handle: *mut c_void = value(since 1, at 24..32),
        hardware_name: *const c_char = nonzero(since 1, at 32..40),
        device_vendor: *const c_char = nonzero(since 1, at 40..48),
        pci_bus_id: *const c_char = nonzero(since 1, at 48..56),
    }
}

versioned_struct! {
    /// `SE_CreateDeviceParams`.
    #[abi(size = SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE, sizes = [32])]
    pub struct SE_CreateDeviceParams {
        ordinal: i32 = value(since 1, at 16..20),
        device: *mut SP_Device = nonzero(since 1, at 24..32),
    }
}

versioned_struct! {
    /// `SP_DeviceFns`.
    #[abi(size = SP_DEVICE_FNS_STRUCT_SIZE, sizes = [40])]
    pub struct SP_DeviceFns {
        get_numa_node: Fn = nonzero(since 1, at 16..24),
        get_memory_bandwidth: Fn = nonzero(since 1, at 24..32),
        get_gflops: Fn = nonzero(since 1, at 32..40),
    }
}

versioned_struct! {
    /// `SE_CreateDeviceFnsParams`.
    #[abi(size = SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE, sizes = [24])]
    pub struct SE_CreateDeviceFnsParams {
        device_fns: *mut SP_DeviceFns = nonzero(since 1, at 16..24),
    }
}

versioned_struct! {
    /// `SE_CreateStreamExecutorParams`.
    #[abi(size = SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE, sizes = [24])]
    pub struct SE_CreateStreamExecutorParams {
        stream_executor: *mut c_void = nonzero(since 1, at 16..24),
    }
}

versioned_struct! {
    /// `SP_Platform`: its last member is a 1-byte `TF_Bool`, so `STRUCT_SIZE` (35) is less than
    /// `sizeof` (40).
    #[abi(size = SP_PLATFORM_STRUCT_SIZE, sizes = [35])]
    pub struct SP_Platform {
        name: *const c_char = nonzero(since 1, at 16..24),
        r#type: *const c_char = nonzero(since 1, at 24..32),
        supports_unified_memory: u8 = value(since 1, at 32..33),
        use_bfc_allocator: u8 = value(since 1, at 33..34),
        force_memory_growth: u8 = value(since 1, at 34..35),
    }
}

versioned_struct! {
    /// `SP_PlatformFns`.
    #[abi(size = SP_PLATFORM_FNS_STRUCT_SIZE, sizes = [88])]
    pub struct SP_PlatformFns {
        get_device_count: Fn = nonzero(since 1, at 16..24),
        create_device: Fn = nonzero(since 1, at 24..32),
        destroy_device: Fn = nonzero(since 1, at 32..40),
        create_device_fns: Fn = nonzero(since 1, at 40..48),
        destroy_device_fns: Fn = nonzero(since 1, at 48..56),
        create_stream_executor: Fn = nonzero(since 1, at 56..64),
        destroy_stream_executor: Fn = nonzero(since 1, at 64..72),
        create_timer_fns: Fn = nonzero(since 1, at 72..80),
        destroy_timer_fns: Fn = nonzero(since 1, at 80..88),
    }
}

versioned_struct! {
    /// `SE_PlatformRegistrationParams`.
    #[abi(size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE, sizes = [64])]
    pub struct SE_PlatformRegistrationParams {
        major_version: i32 = value(since 1, at 16..20),
        minor_version: i32 = value(since 1, at 20..24),
        patch_version: i32 = value(since 1, at 24..28),
        platform: *mut SP_Platform = nonzero(since 1, at 32..40),
        platform_fns: *mut SP_PlatformFns = nonzero(since 1, at 40..48),
        destroy_platform: Option<unsafe extern "C" fn(*mut SP_Platform)> =
            nonzero(since 1, at 48..56),
        destroy_platform_fns: Option<unsafe extern "C" fn(*mut SP_PlatformFns)> =
            nonzero(since 1, at 56..64),
    }
}

versioned_struct! {
    /// `SP_StreamExecutor`: 34 function pointers after the header.
    #[abi(size = SP_STREAMEXECUTOR_STRUCT_SIZE, sizes = [288])]
    pub struct SP_StreamExecutor {
        allocate: Fn = nonzero(since 1, at 16..24),
        deallocate: Fn = nonzero(since 1, at 24..32),
        host_memory_allocate: Fn = nonzero(since 1, at 32..40),
        host_memory_deallocate: Fn = nonzero(since 1, at 40..48),
        unified_memory_allocate: Fn = nonzero(since 1, at 48..56),
        unified_memory_deallocate: Fn = nonzero(since 1, at 56..64),
        get_allocator_stats: Fn = nonzero(since 1, at 64..72),
        device_memory_usage: Fn = nonzero(since 1, at 72..80),
        create_stream: Fn = nonzero(since 1, at 80..88),
        destroy_stream: Fn = nonzero(since 1, at 88..96),
        create_stream_dependency: Fn = nonzero(since 1, at 96..104),
        get_stream_status: Fn = nonzero(since 1, at 104..112),
        create_event: Fn = nonzero(since 1, at 112..120),
        destroy_event: Fn = nonzero(since 1, at 120..128),
        get_event_status: Fn = nonzero(since 1, at 128..136),
        record_event: Fn = nonzero(since 1, at 136..144),
        wait_for_event: Fn = nonzero(since 1, at 144..152),
        create_timer: Fn = nonzero(since 1, at 152..160),
        destroy_timer: Fn = nonzero(since 1, at 160..168),
        start_timer: Fn = nonzero(since 1, at 168..176),
        stop_timer: Fn = nonzero(since 1, at 176..184),
        memcpy_dtoh: Fn = nonzero(since 1, at 184..192),
        memcpy_htod: Fn = nonzero(since 1, at 192..200),
        memcpy_dtod: Fn = nonzero(since 1, at 200..208),
        sync_memcpy_dtoh: Fn = nonzero(since 1, at 208..216),
        sync_memcpy_htod: Fn = nonzero(since 1, at 216..224),
        sync_memcpy_dtod: Fn = nonzero(since 1, at 224..232),
        block_host_for_event: Fn = nonzero(since 1, at 232..240),
        block_host_until_done: Fn = nonzero(since 1, at 240..248),
        synchronize_all_activity: Fn = nonzero(since 1, at 248..256),
        mem_zero: Fn = nonzero(since 1, at 256..264),
        memset: Fn = nonzero(since 1, at 264..272),
        memset32: Fn = nonzero(since 1, at 272..280),
        host_callback: Fn = nonzero(since 1, at 280..288),
    }
}

/// One struct of the oracle file.
#[derive(Debug)]
struct OracleStruct {
    size_of: usize,
    size_macro: String,
    struct_size: usize,
    members: Vec<(String, usize, usize)>,
}

struct Oracle {
    version: ApiVersion,
    structs: BTreeMap<String, OracleStruct>,
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|word| {
            word.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix('='))
        })
        .unwrap_or_else(|| panic!("`{key}=` missing in oracle line {line:?}"))
}

fn number(text: &str) -> usize {
    text.parse()
        .unwrap_or_else(|e| panic!("oracle number {text:?}: {e}"))
}

fn oracle() -> Oracle {
    let path = common::data("se_layout.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().expect("SE_MAJOR line");
    let version = ApiVersion::new(
        number(field(header, "SE_MAJOR")) as u32,
        number(field(header, "SE_MINOR")) as u32,
        number(field(header, "SE_PATCH")) as u32,
    );
    let mut structs = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in lines {
        if let Some(rest) = line.strip_prefix("struct ") {
            let name = rest
                .split_whitespace()
                .next()
                .expect("struct name")
                .to_owned();
            let (size_macro, struct_size) = rest
                .split_whitespace()
                .find(|word| word.contains("_STRUCT_SIZE="))
                .and_then(|word| word.split_once('='))
                .expect("*_STRUCT_SIZE= in struct line");
            structs.insert(
                name.clone(),
                OracleStruct {
                    size_of: number(field(line, "sizeof")),
                    size_macro: size_macro.to_owned(),
                    struct_size: number(struct_size),
                    members: Vec::new(),
                },
            );
            current = Some(name);
        } else if line.starts_with("  ") {
            let name = line
                .split_whitespace()
                .next()
                .expect("member name")
                .to_owned();
            let member = (
                name,
                number(field(line, "offset")),
                number(field(line, "size")),
            );
            let owner = current.as_ref().expect("member before struct");
            structs
                .get_mut(owner)
                .expect("current struct")
                .members
                .push(member);
        }
    }
    Oracle { version, structs }
}

/// Compares one declared struct with TF's; returns the number of members checked.
fn agree<T: Versioned>(oracle: &Oracle) -> usize {
    let tf = oracle
        .structs
        .get(T::NAME)
        .unwrap_or_else(|| panic!("{} is not in the oracle", T::NAME));
    assert_eq!(size_of::<T>(), tf.size_of, "sizeof({})", T::NAME);
    assert_eq!(T::STRUCT_SIZE, tf.struct_size, "{}", tf.size_macro);
    assert_eq!(T::SIZE_NAME, tf.size_macro);
    assert_eq!(
        T::MEMBERS.len(),
        tf.members.len(),
        "member count of {}",
        T::NAME
    );
    for (ours, (name, offset, size)) in T::MEMBERS.iter().zip(&tf.members) {
        // TF calls the reserved pointer `ext`; this scheme calls it `next`.
        let tf_name = if name == "ext" { "next" } else { name.as_str() };
        let our_name = ours.name.trim_start_matches("r#");
        assert_eq!(our_name, tf_name, "member order of {}", T::NAME);
        assert_eq!(ours.offset, *offset, "offsetof({}, {name})", T::NAME);
        assert_eq!(ours.size, *size, "sizeof({}.{name})", T::NAME);
    }
    tf.members.len()
}

#[test]
fn declared_structs_agree_with_tensorflow_layouts() {
    let oracle = oracle();
    let members = agree::<SP_TimerFns>(&oracle)
        + agree::<SP_DeviceMemoryBase>(&oracle)
        + agree::<SP_Device>(&oracle)
        + agree::<SE_CreateDeviceParams>(&oracle)
        + agree::<SP_DeviceFns>(&oracle)
        + agree::<SE_CreateDeviceFnsParams>(&oracle)
        + agree::<SE_CreateStreamExecutorParams>(&oracle)
        + agree::<SP_Platform>(&oracle)
        + agree::<SP_PlatformFns>(&oracle)
        + agree::<SE_PlatformRegistrationParams>(&oracle)
        + agree::<SP_StreamExecutor>(&oracle);
    // Every oracle struct but SP_AllocatorStats, which has no `ext` after `struct_size` and so
    // is not a struct of this scheme (its second member is `num_allocs`).
    assert_eq!(oracle.structs.len(), 12);
    let stats = &oracle.structs["SP_AllocatorStats"];
    assert_eq!(stats.members[1].0, "num_allocs");
    let expected: usize = oracle
        .structs
        .iter()
        .filter(|(name, _)| *name != "SP_AllocatorStats")
        .map(|(_, tf)| tf.members.len())
        .sum();
    // 11 structs, 93 members: offsets and sizes all equal.
    assert_eq!((members, expected), (93, 93));
}

#[test]
fn sp_platform_struct_size_is_the_end_of_its_last_member_not_sizeof() {
    let oracle = oracle();
    let tf = &oracle.structs["SP_Platform"];
    assert_eq!((tf.struct_size, tf.size_of), (35, 40));
    assert_eq!(SP_PLATFORM_STRUCT_SIZE, 35);
    assert_eq!(size_of::<SP_Platform>(), 40);
    assert_eq!(
        SP_PLATFORM_STRUCT_SIZE,
        se_abi::struct_size_of(SP_Platform::MEMBERS)
    );
    // A 35-byte producer has the last bool; a 34-byte one would not.
    let mut platform = SP_Platform::new();
    platform.set(SP_Platform::force_memory_growth, 1);
    assert_eq!(platform.get(SP_Platform::force_memory_growth), Some(1));
    let mut bytes = [0u8; 35];
    bytes[..8].copy_from_slice(&35usize.to_ne_bytes());
    bytes[34] = 1;
    let copy: SP_Platform = se_abi::copy_from_bytes(&bytes, se_abi::Tail::MustBeZero).unwrap();
    assert_eq!(copy.get(SP_Platform::force_memory_growth), Some(1));
    // `sizeof` bytes from a newer producer: the 5 padding bytes are an unknown, zero tail.
    let mut newer = [0u8; 40];
    newer[..8].copy_from_slice(&40usize.to_ne_bytes());
    let copy: SP_Platform = se_abi::copy_from_bytes(&newer, se_abi::Tail::MustBeZero).unwrap();
    assert_eq!(copy.struct_size(), 35);
}

/// TF's registration handshake with the oracle's SE_MAJOR/MINOR/PATCH, read from a real
/// `SE_PlatformRegistrationParams` through the checked accessors.
#[test]
fn registration_check_with_tensorflow_version() {
    let oracle = oracle();
    let tf = oracle.version;
    assert_eq!(tf, ApiVersion::new(0, 0, 1));
    type P = SE_PlatformRegistrationParams;

    unsafe extern "C" fn destroy_platform(_: *mut SP_Platform) {}
    unsafe extern "C" fn destroy_platform_fns(_: *mut SP_PlatformFns) {}

    let params_for = |version: ApiVersion| {
        let mut params = P::new();
        params
            .set(P::major_version, version.major.0 as i32)
            .set(P::minor_version, version.minor.0 as i32)
            .set(P::patch_version, version.patch.0 as i32)
            .set(P::destroy_platform, Some(destroy_platform))
            .set(P::destroy_platform_fns, Some(destroy_platform_fns));
        params
    };
    // The plugin side: read what the host passed, then check it against its own build.
    let plugin_check = |params: &P| -> Result<Agreement, Error> {
        let view = params.view();
        view.require(P::destroy_platform)?;
        view.require(P::destroy_platform_fns)?;
        let read = |value: i32| u32::try_from(value).expect("non-negative version");
        let given = ApiVersion::new(
            read(view.require(P::major_version)?),
            read(view.require(P::minor_version)?),
            read(view.require(P::patch_version)?),
        );
        check_registration(given, tf)
    };

    assert_eq!(plugin_check(&params_for(tf)), Ok(Agreement::SameMinor));
    let newer_minor = ApiVersion::new(tf.major.0, tf.minor.0 + 1, 0);
    assert_eq!(
        plugin_check(&params_for(newer_minor)),
        Ok(Agreement::GivenIsNewer)
    );
    let newer_major = ApiVersion::new(tf.major.0 + 1, 0, 0);
    let err = plugin_check(&params_for(newer_major)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Unsupported major version. Given: {} Expected: {}",
            tf.major.0 + 1,
            tf.major
        )
    );
    // A host that forgot a required member gets TF's VALIDATE_MEMBER wording.
    let mut incomplete = params_for(tf);
    incomplete.set(P::destroy_platform, None);
    assert_eq!(
        plugin_check(&incomplete).unwrap_err().to_string(),
        "'destroy_platform' field in SE_PlatformRegistrationParams must be set."
    );
    // And one that never set struct_size gets TF's TF_VALIDATE_STRUCT_SIZE wording.
    let zeros = [0u8; 64];
    let err = se_abi::copy_from_bytes::<P>(&zeros, se_abi::Tail::Ignore).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Expected initialized `SE_PlatformRegistrationParams` structure with `struct_size` field \
         set to SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE. Found `struct_size` = 0."
    );
    let _ = View::of(&params_for(tf));
}
