//! IFRT's serialization-version scheme: one global, dated version number, raised whenever any
//! type gets a new format; serialized data records the version it was written in.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
