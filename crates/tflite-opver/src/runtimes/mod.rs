//! TensorFlow Lite runtimes: the minimum-runtime table of releases, the real runtimes a user
//! installs, and what each checks when it loads a model (its verifier, its interpreter
//! builder, its op resolver) and at `allocate_tensors()`.

pub(crate) mod allocation;
pub(crate) mod installed;
pub(crate) mod interpreter;
pub(crate) mod kernels;
pub(crate) mod min_runtime;
pub(crate) mod resolver;
pub(crate) mod verifier;
