//! Agreement with TensorFlow 2.21's real StreamExecutor C API structs (x86-64), as recorded in
//! `tests/data/se_layout.txt` (compiled from TF's
//! `tensorflow/c/experimental/stream_executor/stream_executor.h`).
//!
//! The structs are the crate's public `se_abi::tensorflow` module, declared with
//! `versioned_struct!` from TF's header; the test compares every member's offset and size,
//! `sizeof` and `STRUCT_SIZE` with the file.
//! It fails, rather than skips, when the file is missing.

use se_abi::tensorflow::*;
use se_abi::{Agreement, ApiVersion, Error, Versioned, View, check_registration};
use std::collections::BTreeMap;

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
    let path = crate::common::data("se_layout.txt");
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
        // TF calls the pointer after `struct_size` `ext`; where it is reserved, this scheme calls
        // it `next`.
        let tf_name = if name == "ext" && ours.name == "next" {
            "next"
        } else {
            name.as_str()
        };
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
        + agree::<SP_AllocatorStats>(&oracle)
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
    assert_eq!(oracle.structs.len(), 12);
    let expected: usize = oracle.structs.values().map(|tf| tf.members.len()).sum();
    // 12 structs, 105 members: offsets and sizes all equal.
    assert_eq!((members, expected), (105, 105));
}

/// `SP_AllocatorStats` has no pointer after `struct_size`: declared with `header = none`.
#[test]
fn sp_allocator_stats_starts_with_num_allocs() {
    let oracle = oracle();
    assert_eq!(
        oracle.structs["SP_AllocatorStats"].members[1].0,
        "num_allocs"
    );
    assert_eq!(SP_AllocatorStats::MEMBERS[1].name, "num_allocs");
    assert_eq!(SP_AllocatorStats::MEMBERS[1].offset, 8);
    let mut stats = SP_AllocatorStats::new();
    stats.set(SP_AllocatorStats::bytes_in_use, 1 << 20);
    assert_eq!(stats.struct_size(), 96);
    assert_eq!(stats.get(SP_AllocatorStats::bytes_in_use), Some(1 << 20));
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

/// What the release facts say each struct measured, release by release, is what the declarations
/// accept: every `struct_size` a release shipped reads back (`SP_Platform` 34 from 2.5 to 2.8),
/// except the one layout TensorFlow broke (`SP_StreamExecutor` of 2.5 and 2.6), which is
/// refused as incompatible and read by its own declaration instead.
#[test]
fn every_size_a_release_shipped_is_read_as_that_release_laid_it_out() {
    fn accepts<T: Versioned>(size: usize) -> Result<usize, Error> {
        let mut bytes = vec![0u8; size];
        bytes[..8].copy_from_slice(&size.to_ne_bytes());
        se_abi::copy_from_bytes::<T>(&bytes, se_abi::Tail::Ignore)
            .map(|t| View::of(&t).struct_size())
    }
    let mut checked = 0;
    for &(release, sizes) in RELEASE_STRUCT_SIZES {
        for &(name, size) in sizes {
            let result = match name {
                "SP_TimerFns" => accepts::<SP_TimerFns>(size),
                "SP_AllocatorStats" => accepts::<SP_AllocatorStats>(size),
                "SP_DeviceMemoryBase" => accepts::<SP_DeviceMemoryBase>(size),
                "SP_Device" => accepts::<SP_Device>(size),
                "SE_CreateDeviceParams" => accepts::<SE_CreateDeviceParams>(size),
                "SP_DeviceFns" => accepts::<SP_DeviceFns>(size),
                "SE_CreateDeviceFnsParams" => accepts::<SE_CreateDeviceFnsParams>(size),
                "SP_StreamExecutor" => accepts::<SP_StreamExecutor>(size),
                "SE_CreateStreamExecutorParams" => accepts::<SE_CreateStreamExecutorParams>(size),
                "SP_Platform" => accepts::<SP_Platform>(size),
                "SP_PlatformFns" => accepts::<SP_PlatformFns>(size),
                "SE_PlatformRegistrationParams" => accepts::<SE_PlatformRegistrationParams>(size),
                other => panic!("{release}: unknown struct {other}"),
            };
            let old_executor = name == "SP_StreamExecutor" && ["2.5.3", "2.6.5"].contains(&release);
            if old_executor {
                assert_eq!(
                    result,
                    Err(Error::IncompatibleLayout {
                        name: "SP_StreamExecutor",
                        found: 264
                    }),
                    "{release}"
                );
                assert_eq!(accepts::<tf_2_5_to_2_6::SP_StreamExecutor>(size), Ok(264));
            } else {
                assert_eq!(result, Ok(size), "{release} {name}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 17 * 12);
    // 2.5's SP_Platform: 34 bytes, no `force_memory_growth` yet.
    assert_eq!(SP_Platform::SIZES, &[34, 35]);
    assert_eq!(
        SP_Platform::member("force_memory_growth")
            .unwrap()
            .since
            .get(),
        2
    );
    assert_eq!(APPEND_ONLY_BREAKS.len(), 1);
    assert_eq!(APPEND_ONLY_BREAKS[0].0, "SP_StreamExecutor");
    assert_eq!(APPEND_ONLY_BREAKS[0].1, "2.7.4");
    // Where the old layout had `host_callback`, the new one has `mem_zero`.
    let old = tf_2_5_to_2_6::SP_StreamExecutor::member("host_callback").unwrap();
    let new = SP_StreamExecutor::member("host_callback").unwrap();
    assert_eq!((old.offset, new.offset), (256, 280));
    assert_eq!(SP_StreamExecutor::member("mem_zero").unwrap().offset, 256);
}

/// `ext` is the plugin's free-form data in `SP_Platform` and `SP_Device`: set, read, copied and
/// written; in the other structs it is reserved and never relayed.
#[test]
fn ext_is_free_form_in_platform_and_device_only() {
    let data = std::ptr::without_provenance_mut::<std::ffi::c_void>(0x1234);
    let mut platform = SP_Platform::new();
    platform.set(SP_Platform::ext, data);
    let mut out = [0u8; 40];
    let n = se_abi::write_new_bytes(&platform, &mut out).unwrap();
    assert_eq!(n, 35);
    assert_eq!(&out[8..16], &0x1234usize.to_ne_bytes());
    let copy: SP_Platform = se_abi::copy_from_bytes(&out[..n], se_abi::Tail::Ignore).unwrap();
    assert_eq!(copy.get(SP_Platform::ext).map(|p| p.addr()), Some(0x1234));
    let mut device = SP_Device::new();
    device.set(SP_Device::ext, data);
    assert_eq!(device.get(SP_Device::ext).map(|p| p.addr()), Some(0x1234));
    // A reserved `next` from a producer is not carried over.
    let mut fns = [0u8; 40];
    fns[..8].copy_from_slice(&40usize.to_ne_bytes());
    fns[8..16].copy_from_slice(&0x99usize.to_ne_bytes());
    let copy: SP_DeviceFns = se_abi::copy_from_bytes(&fns, se_abi::Tail::Ignore).unwrap();
    let mut written = [0u8; 40];
    se_abi::write_new_bytes(&copy, &mut written).unwrap();
    assert_eq!(&written[8..16], &[0; 8]);
    assert_eq!(SP_DeviceFns::MEMBERS[1].name, "next");
}
