//! The worked example's numbers, the member tables and the size-per-version answers.

use crate::common::seed::{v1, v2, v3, v4, v5};
use se_abi::{MemberKind, ProducerVersion, Version, Versioned};

fn v(n: u16) -> Version {
    Version::new(n).unwrap()
}

#[test]
fn seed_sizes_are_the_issue_numbers() {
    assert_eq!(v1::SE_DEVICE_STRUCT_SIZE, 32);
    assert_eq!(v2::SE_DEVICE_STRUCT_SIZE, 40);
    assert_eq!(v3::SE_DEVICE_STRUCT_SIZE, 48);
    assert_eq!(v4::SE_DEVICE_STRUCT_SIZE, 48);
    assert_eq!(v5::SE_DEVICE_STRUCT_SIZE, 56);
    assert_eq!(size_of::<v5::SE_Device>(), 56);
    assert_eq!(v5::SE_Device::VERSION, v(5));
    assert_eq!(v4::SE_Device::VERSION, v(4));
}

#[test]
fn size_at_every_earlier_version() {
    let expected = [32, 40, 48, 48, 56];
    for (i, size) in expected.iter().enumerate() {
        let version = v(u16::try_from(i + 1).unwrap());
        assert_eq!(v5::SE_Device::struct_size_at(version), Some(*size));
        assert_eq!(
            se_abi::struct_size_at(v5::SE_Device::MEMBERS, version),
            *size
        );
    }
    assert_eq!(v5::SE_Device::struct_size_at(v(6)), None);
    assert_eq!(v3::SE_Device::struct_size_at(v(4)), None);
}

#[test]
fn producer_version_from_size() {
    type D = v5::SE_Device;
    assert_eq!(D::producer_version(32), Some(ProducerVersion::Known(v(1))));
    assert_eq!(D::producer_version(40), Some(ProducerVersion::Known(v(2))));
    // v4 only deprecates: a 48-byte producer is reported as the oldest version of that size.
    assert_eq!(D::producer_version(48), Some(ProducerVersion::Known(v(3))));
    assert_eq!(D::producer_version(56), Some(ProducerVersion::Known(v(5))));
    assert_eq!(D::producer_version(64), Some(ProducerVersion::Newer));
    assert_eq!(D::producer_version(36), None);
}

#[test]
fn member_table_records_versions_and_kinds() {
    let names: Vec<_> = v5::SE_Device::MEMBERS.iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        [
            "struct_size",
            "next",
            "name",
            "name_len",
            "device_handle",
            "data",
            "data2"
        ]
    );
    let data = v5::SE_Device::member("data").unwrap();
    assert_eq!((data.offset, data.size, data.end()), (40, 8, 48));
    assert_eq!(data.since, v(3));
    assert_eq!(data.deprecated, Some(v(4)));
    assert_eq!(data.kind, MemberKind::NonZero);
    assert_eq!(data.ty, "*mut c_void");
    assert_eq!(v5::SE_Device::member("name").unwrap().ty, "*const c_char");
    assert_eq!(v5::SE_Device::member("name_len").unwrap().ty, "usize");
    assert_eq!(v5::SE_Device::member("struct_size").unwrap().ty, "usize");
    assert_eq!(
        v5::SE_Device::member("name_len").unwrap().kind,
        MemberKind::Value
    );
    assert_eq!(
        v5::SE_Device::member("next").unwrap().kind,
        MemberKind::Reserved
    );
    assert_eq!(
        v5::SE_Device::member("struct_size").unwrap().kind,
        MemberKind::Header
    );
    // Every member's shape, resolved through aliases.
    assert_eq!(data.shape.to_string(), "*mut void");
    assert_eq!(
        v5::SE_Device::member("name").unwrap().shape.to_string(),
        "*const i8"
    );
    assert_eq!(
        v5::SE_Device::member("name_len").unwrap().shape.to_string(),
        "u64"
    );
    assert!(data.reached_by(41));
    assert!(!data.reached_by(40));
    assert_eq!(v5::SE_Device::NAME, "SE_Device");
    assert_eq!(v5::SE_Device::SIZE_NAME, "SE_DEVICE_STRUCT_SIZE");
}

#[test]
fn offset_of_end_is_const() {
    // The C v5 header as a plain struct: the constant is the end of the last member.
    #[repr(C)]
    struct CDevice {
        struct_size: usize,
        next: *mut core::ffi::c_void,
        name: *const core::ffi::c_char,
        name_len: usize,
        device_handle: *mut core::ffi::c_void,
        data: *mut core::ffi::c_void,
        data2: *mut core::ffi::c_void,
        flag: u8,
    }
    const V1: usize = se_abi::offset_of_end!(CDevice, name_len);
    const V5: usize = se_abi::offset_of_end!(CDevice, data2);
    const WITH_FLAG: usize = se_abi::offset_of_end!(CDevice, flag);
    assert_eq!((V1, V5, WITH_FLAG), (32, 56, 57));
    assert_eq!(size_of::<CDevice>(), 64);
}

#[test]
fn new_zero_fills_and_sets_struct_size() {
    let device = v5::SE_Device::new();
    assert_eq!(device.struct_size(), 56);
    assert_eq!(device.get(v5::SE_Device::name), None);
    assert_eq!(device.get(v5::SE_Device::name_len), Some(0));
    assert_eq!(device.get(v5::SE_Device::data2), None);
    assert_eq!(v1::SE_Device::default().struct_size(), 32);
}
