//! The `struct_size` scheme end to end, with the seed's `SE_Device` at versions 1 to 5.
//!
//! Each "build" below is a module declaring `SE_Device` as its header version had it. A producer
//! (plugin) writes its struct; a consumer (host) of another version reads it.
//!
//! Run with `cargo run -p se-abi --example se-abi-tour` (or `cargo xtask demo`).

use std::ffi::{c_char, c_void};

use se_abi::{
    ApiVersion, Error, ProducerVersion, Tail, Versioned, View, check_registration, copy_from_bytes,
    versioned_struct, write_new_bytes,
};

mod v1 {
    use super::*;
    versioned_struct! {
        /// Version 1: a name.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
        }
    }
}

mod v3 {
    use super::*;
    versioned_struct! {
        /// Version 3: + device_handle (v2), + data (v3).
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
            data: *mut c_void = nonzero(since 3, at 40..48),
        }
    }
}

mod v5 {
    use super::*;
    versioned_struct! {
        /// Version 5: `data` deprecated in v4 (kept in place, no longer read), + data2.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48, 48, 56])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
            data: *mut c_void = nonzero(since 3, deprecated 4, at 40..48),
            data2: *mut c_void = nonzero(since 5, at 48..56),
        }
    }
}

/// A fake, never dereferenced, handle.
fn handle(n: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(n)
}

fn main() -> Result<(), Error> {
    println!("1. Sizes: each version's struct_size is the end of its last member.");
    for (version, size) in v5::SE_Device::SIZES.iter().enumerate() {
        println!("   SE_Device v{} = {size} bytes", version + 1);
    }
    for member in v5::SE_Device::MEMBERS {
        let deprecated = member
            .deprecated
            .map(|v| format!(", deprecated {v}"))
            .unwrap_or_default();
        println!(
            "   {:>13} at {:>2}..{:<2} since {}{deprecated}",
            member.name,
            member.offset,
            member.end(),
            member.since
        );
    }

    // A buffer standing for the memory a plugin hands over.
    let mut wire = [0u8; 64];
    let name = c"gpu";

    println!("\n2. An old plugin (v1, 32 bytes) meets a new host (v5).");
    let mut old = v1::SE_Device::new();
    old.set(v1::SE_Device::name, name.as_ptr())
        .set(v1::SE_Device::name_len, name.count_bytes());
    let n = write_new_bytes(&old, &mut wire)?;
    // SAFETY: `View::from_ptr` (see its `# Safety`) requires the pointer to be valid for reads
    // of the `struct_size` bytes it claims, all initialized but for padding, and unchanged while
    // the view lives. `wire` is a local array of 64 initialized bytes whose first `n` hold the
    // plugin's struct, `n` being the `struct_size` written there; it is not written while `view`
    // is used.
    let view = unsafe { View::<v5::SE_Device>::from_ptr(wire.as_ptr().cast()) }?;
    if let Some(version) = view.producer_version() {
        println!("   struct_size {n}: the producer was built with {version}");
    }
    println!(
        "   name_len      -> {:?}",
        view.get(v5::SE_Device::name_len)
    );
    println!(
        "   device_handle -> {:?}  (struct_size 32 does not reach offset 32: not read)",
        view.get(v5::SE_Device::device_handle)
    );
    println!("   data2         -> {:?}", view.get(v5::SE_Device::data2));

    println!("\n3. A new plugin (v5, 56 bytes) meets an old host (v1): extra members are ignored.");
    let mut new = v5::SE_Device::new();
    new.set(v5::SE_Device::name, name.as_ptr())
        .set(v5::SE_Device::name_len, name.count_bytes())
        .set(v5::SE_Device::device_handle, handle(0xd0))
        .set(v5::SE_Device::data2, handle(0xd2));
    let n = write_new_bytes(&new, &mut wire)?;
    // SAFETY: as above: `wire`'s first `n` bytes are the new plugin's whole struct.
    let view = unsafe { View::<v1::SE_Device>::from_ptr(wire.as_ptr().cast()) }?;
    assert_eq!(view.producer_version(), Some(ProducerVersion::Newer));
    println!(
        "   struct_size {n}: v1 host reads name_len {:?}",
        view.get(v1::SE_Device::name_len)
    );
    println!("   A versioned copy into the v1 type (Linux copy_struct_from_user rules):");
    match copy_from_bytes::<v1::SE_Device>(&wire[..n], Tail::MustBeZero) {
        Err(err) => println!("   strict:  {err}"),
        Ok(_) => unreachable!("the newer members are set"),
    }
    let lenient = copy_from_bytes::<v1::SE_Device>(&wire[..n], Tail::Ignore)?;
    println!(
        "   lenient: ok, struct_size {} (TF ignores a newer plugin's extras)",
        lenient.struct_size()
    );

    println!(
        "\n4. Deprecation in place (v4): `data` keeps bytes 40..48 but is no longer read, nor set."
    );
    let mut v3_plugin = v3::SE_Device::new();
    v3_plugin.set(v3::SE_Device::data, handle(0xda));
    let n = write_new_bytes(&v3_plugin, &mut wire)?;
    let v5_host: v5::SE_Device = copy_from_bytes(&wire[..n], Tail::MustBeZero)?;
    println!(
        "   v5 host from a v3 plugin: {} bytes; the v5 type has no `data` read handle at all",
        v5_host.struct_size()
    );
    let n = write_new_bytes(&new, &mut wire)?;
    let v3_host: v3::SE_Device = copy_from_bytes(&wire[..n], Tail::Ignore)?;
    println!(
        "   v3 host from a v5 plugin: data -> {:?} (NULL is no-op: a validating host ignores it)",
        v3_host.get(v3::SE_Device::data)
    );
    println!("   A v3 host that did not validate would take that NULL and crash on it: the hazard");
    println!("   the C-interop matrix of the tests shows as a detected case.");
    println!("   A v5 plugin that still serves such hosts keeps setting it, explicitly:");
    let mut keeping = new;
    keeping.set_deprecated(v5::SE_Device::data, handle(0xda));
    let n = write_new_bytes(&keeping, &mut wire)?;
    let v3_host: v3::SE_Device = copy_from_bytes(&wire[..n], Tail::Ignore)?;
    println!(
        "   v3 host from a keeping v5 plugin: data -> {:?}, until no supported host reads it",
        v3_host.get(v3::SE_Device::data)
    );
    println!("   without validating it.");

    println!("\n5. A struct whose producer never set struct_size, in TensorFlow's words:");
    let zeros = [0u8; 56];
    if let Err(err) = copy_from_bytes::<v5::SE_Device>(&zeros, Tail::Ignore) {
        println!("   {err}");
    }

    println!("\n6. Registration: only SE_MAJOR must match; minor versions differ freely.");
    let plugin = ApiVersion::new(0, 0, 1);
    for host in [
        ApiVersion::new(0, 0, 1),
        ApiVersion::new(0, 2, 0),
        ApiVersion::new(1, 0, 0),
    ] {
        match check_registration(host, plugin) {
            Ok(agreement) => println!("   host {host} / plugin {plugin}: {agreement:?}"),
            Err(err) => println!("   host {host} / plugin {plugin}: {err}"),
        }
    }
    Ok(())
}
