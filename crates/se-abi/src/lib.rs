//! C-ABI structs versioned by `struct_size`, as in TensorFlow's StreamExecutor C API.
#![no_std]
#![warn(missing_docs)]

mod copy;
mod declare;
mod error;
mod layout;
mod member;
mod registration;
mod version;
mod view;

pub use copy::{Tail, copy_from_bytes, copy_from_ptr, write_to};
pub use error::Error;
#[doc(hidden)]
pub use layout::__private;
pub use layout::{MAX_STRUCT_SIZE, ProducerVersion, Versioned, struct_size_at, struct_size_of};
pub use member::{AbiMember, Field, Kind, Member, MemberKind, NonZero, NonZeroMember, Value};
pub use registration::{Agreement, check_registration};
pub use version::{ApiVersion, Major, Minor, Patch, Version};
pub use view::View;
