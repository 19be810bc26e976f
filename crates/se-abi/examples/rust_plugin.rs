//! A StreamExecutor-style plugin written in Rust: a `cdylib` that a C (or Rust) host loads with
//! `dlopen`, exporting per header version of the seed's `SE_Device` a create/destroy pair (the
//! plugin allocates the struct) and a fill function (the host allocates it, as TensorFlow does),
//! and, for versions 4 and 5, the same with a `_keep` suffix that keep setting the deprecated
//! `data`.
//!
//! ```sh
//! cargo build -p se-abi --example rust_plugin   # target/debug/examples/librust_plugin.so
//! ```
//!
//! Each create function fills `SE_Device::new()` of its version through the member handles and
//! writes it, with `se_abi::write_new`, into a fresh allocation of exactly `struct_size` bytes
//! (not `sizeof`): a host that reads past what the plugin's header had reads outside the block.
//! Each fill function writes the same value into the host's struct with `se_abi::fill`, which
//! reads the host's `struct_size` first: a plugin newer than its host writes no byte past the
//! host's allocation. The crate's C-interop matrix test loads this library next to the C plugins.

use std::alloc::{Layout, alloc, dealloc};
use std::ffi::{CStr, c_void};
use std::ptr::NonNull;

use se_abi::Versioned;

// `v3_unvalidated` in it is the tests' alone.
#[allow(dead_code)]
#[path = "se_device/versions.rs"]
mod versions;
use versions::{v1, v2, v3, v4, v5};

/// Fake handles, never dereferenced: the values the C plugins set (`tests/c/se_device.h`).
fn handle(version: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(0x1000 * version + 0x2)
}
fn data(version: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(0x3000 * version + 0x4)
}
fn data2(version: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(0x5000 * version + 0x6)
}

/// Writes `value` into exactly `struct_size` freshly allocated bytes; NULL if allocation fails.
fn export<T: Versioned>(value: &T) -> *mut c_void {
    let Ok(layout) = Layout::from_size_align(T::STRUCT_SIZE, 8) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `GlobalAlloc::alloc`, which `alloc` forwards to, requires a layout of non-zero size
    // (see <https://doc.rust-lang.org/std/alloc/trait.GlobalAlloc.html#tymethod.alloc>): the size
    // is a struct size, at least version 1's 32 bytes.
    let Some(dst) = NonNull::new(unsafe { alloc(layout) }) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `se_abi::write_new` (see its `# Safety`) requires `dst` valid for writes of
    // `value`'s `struct_size` bytes and disjoint from `value`. `dst` is a fresh allocation of
    // `T::STRUCT_SIZE` bytes, the `struct_size` of a value built by `T::new()`, and a fresh
    // allocation cannot overlap the borrowed `value`.
    unsafe { se_abi::write_new(value, dst) };
    dst.as_ptr().cast()
}

/// Frees what `export::<T>` allocated; NULL is ignored.
///
/// # Safety
/// `ptr` must be NULL or come from `export::<T>`, and is not used afterwards.
unsafe fn release<T: Versioned>(ptr: *mut c_void) {
    let Ok(layout) = Layout::from_size_align(T::STRUCT_SIZE, 8) else {
        return;
    };
    if !ptr.is_null() {
        // SAFETY: `GlobalAlloc::dealloc`, which `dealloc` forwards to, requires a block
        // currently allocated by this allocator with this very layout (see
        // <https://doc.rust-lang.org/std/alloc/trait.GlobalAlloc.html#tymethod.dealloc>):
        // `export::<T>` allocated it with the same layout, and it is freed once (caller).
        unsafe { dealloc(ptr.cast(), layout) };
    }
}

/// Fills the host's struct at `device` with `value`: 0 on success, 1 if the host's
/// `struct_size` is refused (0, or no size of `T`), in which case nothing was written.
///
/// # Safety
/// `device` must be NULL or the host's struct, allocated by the host with its `struct_size` set.
unsafe fn fill_host<T: Versioned>(value: &T, device: *mut c_void) -> i32 {
    // SAFETY: `se_abi::fill` (see its `# Safety`) requires NULL or the other side's struct with
    // its `struct_size` initialized, writable for that many bytes, not overlapping `value`: the
    // caller's contract, and `value` is a local of the calling plugin function.
    match unsafe { se_abi::fill(value, device.cast::<T>()) } {
        Ok(_) => 0,
        Err(_) => 1,
    }
}

macro_rules! plugin_version {
    (
        $value:ident, $create:ident, $destroy:ident, $fill_fn:ident, $m:ident, $name:literal,
        |$d:ident| $fill:block
    ) => {
        #[doc = concat!("The `SE_Device` this plugin makes at header ", stringify!($m), ".")]
        fn $value() -> $m::SE_Device {
            type D = $m::SE_Device;
            const NAME: &CStr = $name;
            let mut $d = D::new();
            $d.set(D::name, NAME.as_ptr())
                .set(D::name_len, NAME.count_bytes());
            $fill
            $d
        }

        #[doc = concat!("Creates an `SE_Device` of header ", stringify!($m), ".")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $create() -> *mut c_void {
            export(&$value())
        }

        #[doc = concat!(
            "Fills the host's `SE_Device` with what `", stringify!($create), "` creates, never ",
            "past the host's `struct_size`: 0 on success, 1 if the host's size is refused."
        )]
        ///
        /// # Safety
        /// `device` must be NULL or the host's `SE_Device`, allocated by the host, `struct_size` set.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $fill_fn(device: *mut c_void) -> i32 {
            // SAFETY: `fill_host` requires NULL or the host's struct with `struct_size` set:
            // this function's contract.
            unsafe { fill_host(&$value(), device) }
        }

        #[doc = concat!("Destroys what `", stringify!($create), "` created.")]
        ///
        /// # Safety
        /// `device` must be NULL or come from the matching create function, used only once.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $destroy(device: *mut c_void) {
            // SAFETY: `release` requires NULL or a pointer from `export` of the same type, not
            // used afterwards: this function's contract, since the matching create function
            // exported a `$m::SE_Device`.
            unsafe { release::<$m::SE_Device>(device) }
        }
    };
}

plugin_version!(
    value_v1,
    se_rust_plugin_create_v1,
    se_rust_plugin_destroy_v1,
    se_rust_plugin_fill_v1,
    v1,
    c"rust-plugin-v1",
    |_d| {}
);
plugin_version!(
    value_v2,
    se_rust_plugin_create_v2,
    se_rust_plugin_destroy_v2,
    se_rust_plugin_fill_v2,
    v2,
    c"rust-plugin-v2",
    |d| {
        d.set(D::device_handle, handle(2));
    }
);
plugin_version!(
    value_v3,
    se_rust_plugin_create_v3,
    se_rust_plugin_destroy_v3,
    se_rust_plugin_fill_v3,
    v3,
    c"rust-plugin-v3",
    |d| {
        d.set(D::device_handle, handle(3)).set(D::data, data(3));
    }
);
// From v4 on `data` is deprecated: `D::data` is a write-only handle that no read accepts, and a
// plugin leaves it zero ...
plugin_version!(
    value_v4,
    se_rust_plugin_create_v4,
    se_rust_plugin_destroy_v4,
    se_rust_plugin_fill_v4,
    v4,
    c"rust-plugin-v4",
    |d| {
        d.set(D::device_handle, handle(4));
    }
);
plugin_version!(
    value_v5,
    se_rust_plugin_create_v5,
    se_rust_plugin_destroy_v5,
    se_rust_plugin_fill_v5,
    v5,
    c"rust-plugin-v5",
    |d| {
        d.set(D::device_handle, handle(5)).set(D::data2, data2(5));
    }
);
// ... unless it still serves hosts older than v4 that read `data` without validating it: then it
// keeps setting it, explicitly, until it drops support for those hosts (the seed's
// forward-compatibility rule; see `se_abi::Deprecated`).
plugin_version!(
    value_v4_keep,
    se_rust_plugin_create_v4_keep,
    se_rust_plugin_destroy_v4_keep,
    se_rust_plugin_fill_v4_keep,
    v4,
    c"rust-plugin-v4",
    |d| {
        d.set(D::device_handle, handle(4))
            .set_deprecated(D::data, data(4));
    }
);
plugin_version!(
    value_v5_keep,
    se_rust_plugin_create_v5_keep,
    se_rust_plugin_destroy_v5_keep,
    se_rust_plugin_fill_v5_keep,
    v5,
    c"rust-plugin-v5",
    |d| {
        d.set(D::device_handle, handle(5))
            .set_deprecated(D::data, data(5))
            .set(D::data2, data2(5));
    }
);
