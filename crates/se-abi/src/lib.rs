//! C-ABI structs versioned by `struct_size`, as in TensorFlow's StreamExecutor C API: members
//! are only appended, and a reader touches a member only if the producer's struct reaches it.
#![no_std]
#![warn(missing_docs)]
