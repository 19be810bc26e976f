//! Agreement with TensorFlow 2.21's real StreamExecutor C API structs (x86-64), as recorded in
//! `tests/data/se_layout.txt` (compiled from TF's
//! `tensorflow/c/experimental/stream_executor/stream_executor.h`).
//!
//! The structs are the crate's public `se_abi::tensorflow` module, declared with
//! `versioned_struct!` from TF's header; the test compares every member's offset and size,
//! `sizeof` and `STRUCT_SIZE` with the file.
//! It fails, rather than skips, when the file is missing.

mod common;

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
fn sp_allocator_stats_agrees_with_tensorflow_too() {
    // Not a versioned struct of this scheme (no `ext`), declared plainly; same check by hand.
    let oracle = oracle();
    let tf = &oracle.structs["SP_AllocatorStats"];
    assert_eq!(size_of::<SP_AllocatorStats>(), tf.size_of);
    assert_eq!(SP_ALLOCATORSTATS_STRUCT_SIZE, tf.struct_size);
    let ours = [
        (
            "struct_size",
            std::mem::offset_of!(SP_AllocatorStats, struct_size),
        ),
        (
            "num_allocs",
            std::mem::offset_of!(SP_AllocatorStats, num_allocs),
        ),
        (
            "bytes_in_use",
            std::mem::offset_of!(SP_AllocatorStats, bytes_in_use),
        ),
        (
            "peak_bytes_in_use",
            std::mem::offset_of!(SP_AllocatorStats, peak_bytes_in_use),
        ),
        (
            "largest_alloc_size",
            std::mem::offset_of!(SP_AllocatorStats, largest_alloc_size),
        ),
        (
            "has_bytes_limit",
            std::mem::offset_of!(SP_AllocatorStats, has_bytes_limit),
        ),
        (
            "bytes_limit",
            std::mem::offset_of!(SP_AllocatorStats, bytes_limit),
        ),
        (
            "bytes_reserved",
            std::mem::offset_of!(SP_AllocatorStats, bytes_reserved),
        ),
        (
            "peak_bytes_reserved",
            std::mem::offset_of!(SP_AllocatorStats, peak_bytes_reserved),
        ),
        (
            "has_bytes_reservable_limit",
            std::mem::offset_of!(SP_AllocatorStats, has_bytes_reservable_limit),
        ),
        (
            "bytes_reservable_limit",
            std::mem::offset_of!(SP_AllocatorStats, bytes_reservable_limit),
        ),
        (
            "largest_free_block_bytes",
            std::mem::offset_of!(SP_AllocatorStats, largest_free_block_bytes),
        ),
    ];
    let theirs: Vec<(&str, usize)> = tf
        .members
        .iter()
        .map(|(name, offset, _)| (name.as_str(), *offset))
        .collect();
    assert_eq!(ours.to_vec(), theirs);
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
