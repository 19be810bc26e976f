//! What a type *is* at the ABI, through every alias: [`Shape`], and the [`CType`] trait that
//! gives it.
//!
//! The layout lock sees offsets and sizes only, so an edit that keeps every byte in place but
//! changes what the bytes mean passes it: `TF_Bool` re-aliased from `u8` to `i8`, an enum's
//! underlying `c_int` made `c_uint`, a pointer to one struct made a pointer to another. Every
//! member records its type's [`Shape`] (`Member::shape`), and `cargo xtask abi-check` compares
//! shapes, so those edits are caught even when the member's declared type text is unchanged.

use core::fmt;

/// A type's ABI shape, resolved through every alias: what C code on the other side must agree
/// on for a member, or for a function pointer's parameter, to mean the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `void` (`c_void`, or a function's `()` return).
    Void,
    /// An integer of `size` bytes.
    Int {
        /// Size in bytes.
        size: u8,
        /// Whether it is signed.
        signed: bool,
    },
    /// A floating-point number of `size` bytes.
    Float {
        /// Size in bytes.
        size: u8,
    },
    /// A pointer.
    Pointer {
        /// Whether what it points to is `const` (`*const T`).
        constant: bool,
        /// What it points to.
        to: &'static Shape,
    },
    /// A (nullable) pointer to a C function.
    Function {
        /// Its return type (`Void` for none).
        ret: &'static Shape,
        /// Its parameters.
        params: &'static [Shape],
    },
    /// A struct, by name: its own layout is checked on its own.
    Struct {
        /// Its C name.
        name: &'static str,
    },
    /// A C enum, by name, with its underlying integer.
    Enum {
        /// Its C name.
        name: &'static str,
        /// Its underlying integer type.
        repr: &'static Shape,
    },
}

impl fmt::Display for Shape {
    /// The notation of the layout snapshots: `u8`, `i32`, `f64`, `void`, `*const T`, `*mut T`,
    /// `fn(A, B) -> R`, `struct NAME`, `enum NAME: u32`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Void => f.write_str("void"),
            Shape::Int { size, signed } => {
                write!(
                    f,
                    "{}{}",
                    if *signed { "i" } else { "u" },
                    u16::from(*size) * 8
                )
            }
            Shape::Float { size } => write!(f, "f{}", u16::from(*size) * 8),
            Shape::Pointer { constant, to } => {
                write!(f, "*{} {to}", if *constant { "const" } else { "mut" })
            }
            Shape::Function { ret, params } => {
                f.write_str("fn(")?;
                for (i, param) in params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{param}")?;
                }
                f.write_str(")")?;
                if **ret != Shape::Void {
                    write!(f, " -> {ret}")?;
                }
                Ok(())
            }
            Shape::Struct { name } => write!(f, "struct {name}"),
            Shape::Enum { name, repr } => write!(f, "enum {name}: {repr}"),
        }
    }
}

/// A type that can cross the C ABI, with its [`Shape`].
///
/// Implemented for the integers, `f32` and `f64`, `c_void`, `()`, raw pointers to a `CType`,
/// and `Option<unsafe extern "C" fn(..) -> R>` whose parameters and return are `CType`s; every
/// struct declared with [`versioned_struct!`](crate::versioned_struct) implements it as
/// `struct NAME`. Implement it for your own types that members point to or that a function
/// pointer member takes:
///
/// ```
/// use se_abi::{CType, Shape};
///
/// /// An opaque handle type, only ever behind a pointer.
/// #[repr(C)]
/// pub struct MyHandle {
///     _opaque: [u8; 0],
/// }
/// impl CType for MyHandle {
///     const SHAPE: Shape = Shape::Struct { name: "MyHandle" };
/// }
///
/// /// A C enum whose values are all non-negative: GCC gives it `unsigned int`.
/// #[repr(transparent)]
/// #[derive(Clone, Copy)]
/// pub struct MyStatus(pub u32);
/// impl CType for MyStatus {
///     const SHAPE: Shape = Shape::Enum { name: "MyStatus", repr: &u32::SHAPE };
/// }
///
/// assert_eq!(<*mut MyHandle as CType>::SHAPE.to_string(), "*mut struct MyHandle");
/// assert_eq!(MyStatus::SHAPE.to_string(), "enum MyStatus: u32");
/// ```
pub trait CType: 'static {
    /// The type's shape.
    const SHAPE: Shape;
}

macro_rules! c_ints {
    ($($t:ty => $size:expr, $signed:literal;)*) => {$(
        impl CType for $t {
            const SHAPE: Shape = Shape::Int { size: $size, signed: $signed };
        }
    )*};
}
c_ints! {
    u8 => 1, false; u16 => 2, false; u32 => 4, false; u64 => 8, false;
    i8 => 1, true; i16 => 2, true; i32 => 4, true; i64 => 8, true;
    usize => size_of::<usize>() as u8, false;
    isize => size_of::<isize>() as u8, true;
}

impl CType for f32 {
    const SHAPE: Shape = Shape::Float { size: 4 };
}
impl CType for f64 {
    const SHAPE: Shape = Shape::Float { size: 8 };
}
impl CType for core::ffi::c_void {
    const SHAPE: Shape = Shape::Void;
}
impl CType for () {
    const SHAPE: Shape = Shape::Void;
}
impl<T: CType> CType for *const T {
    const SHAPE: Shape = Shape::Pointer {
        constant: true,
        to: &T::SHAPE,
    };
}
impl<T: CType> CType for *mut T {
    const SHAPE: Shape = Shape::Pointer {
        constant: false,
        to: &T::SHAPE,
    };
}

macro_rules! c_fns {
    ($(($($arg:ident),*)),*) => {$(
        impl<R: CType, $($arg: CType),*> CType for Option<unsafe extern "C" fn($($arg),*) -> R> {
            const SHAPE: Shape = Shape::Function {
                ret: &R::SHAPE,
                params: &[$($arg::SHAPE),*],
            };
        }
    )*};
}
c_fns!(
    (),
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, G),
    (A, B, C, D, E, G, H),
    (A, B, C, D, E, G, H, I)
);
