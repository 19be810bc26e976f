//! Prints the layout of every versioned struct this repository declares, one line per member:
//! what `cargo xtask abi-check` compares with the committed snapshots in `abi/`.
//!
//! ```sh
//! cargo run -p se-abi --example se-abi-layouts
//! ```
//!
//! Each line is tab-separated: the declaration's group (which header build declares it), the
//! struct's name, then per member its name, type (as declared), offset, size, the version that
//! added it, and the version that deprecated it (empty if none). A struct declared with
//! `versioned_struct!` that the repository publishes belongs in [`DECLARATIONS`]: `abi-check`
//! then fails on any edit of it other than appending members or deprecating one.

use std::io::{self, Write};

use se_abi::Versioned;
use se_abi::tensorflow as tf;

#[path = "se_device/versions.rs"]
mod versions;

/// One declared struct: its group and how to print it.
struct Declaration {
    group: &'static str,
    print: fn(&'static str, &mut dyn Write) -> io::Result<()>,
}

const fn declaration<T: Versioned>(group: &'static str) -> Declaration {
    Declaration {
        group,
        print: print::<T>,
    }
}

/// Every struct under the lock of `cargo xtask abi-check`.
const DECLARATIONS: &[Declaration] = &[
    // The seed's `SE_Device`, as each header version 1 to 5 declares it (`examples/se_device/`,
    // the structs of the `rust_plugin` example and of the C-interop matrix).
    declaration::<versions::v1::SE_Device>("seed-v1"),
    declaration::<versions::v2::SE_Device>("seed-v2"),
    declaration::<versions::v3::SE_Device>("seed-v3"),
    declaration::<versions::v4::SE_Device>("seed-v4"),
    declaration::<versions::v5::SE_Device>("seed-v5"),
    // TensorFlow's StreamExecutor C API structs, as `se_abi::tensorflow` publishes them
    // (TensorFlow 2.12 to 2.21 share one header).
    declaration::<tf::SP_TimerFns>("tensorflow"),
    declaration::<tf::SP_DeviceMemoryBase>("tensorflow"),
    declaration::<tf::SP_Device>("tensorflow"),
    declaration::<tf::SE_CreateDeviceParams>("tensorflow"),
    declaration::<tf::SP_DeviceFns>("tensorflow"),
    declaration::<tf::SE_CreateDeviceFnsParams>("tensorflow"),
    declaration::<tf::SP_StreamExecutor>("tensorflow"),
    declaration::<tf::SE_CreateStreamExecutorParams>("tensorflow"),
    declaration::<tf::SP_Platform>("tensorflow"),
    declaration::<tf::SP_PlatformFns>("tensorflow"),
    declaration::<tf::SE_PlatformRegistrationParams>("tensorflow"),
];

fn print<T: Versioned>(group: &'static str, out: &mut dyn Write) -> io::Result<()> {
    for member in T::MEMBERS {
        let deprecated = member
            .deprecated
            .map(|v| v.get().to_string())
            .unwrap_or_default();
        // `stringify!` may break a long type over lines: one space between tokens, always.
        let ty = member.ty.split_whitespace().collect::<Vec<_>>().join(" ");
        writeln!(
            out,
            "{group}\t{}\t{}\t{ty}\t{}\t{}\t{}\t{deprecated}",
            T::NAME,
            member.name,
            member.offset,
            member.size,
            member.since.get(),
        )?;
    }
    Ok(())
}

fn main() -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for declaration in DECLARATIONS {
        (declaration.print)(declaration.group, &mut out)?;
    }
    out.flush()
}
