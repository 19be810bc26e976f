//! TensorFlow Lite's op-versioning scheme: each operator in a model carries the lowest version
//! its parameters need, runtimes register kernels for version ranges, and a model records the
//! minimum runtime that can run it.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod delegate;
pub mod error;
pub mod operator;
pub mod params;
pub mod resolver;
pub mod runtime;
pub mod signature;
pub mod version;

pub use version::{OpVersion, op_version};
