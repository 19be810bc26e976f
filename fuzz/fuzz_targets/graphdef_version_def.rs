//! Decoding a `VersionDef` from arbitrary bytes returns a value or an error, never panics.
#![no_main]

use graphdef_versions::VersionDef;
use libfuzzer_sys::fuzz_target;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let _ = VersionDef::decode(data);
});
