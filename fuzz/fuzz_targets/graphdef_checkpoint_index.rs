//! Reading arbitrary bytes as a checkpoint's `.index` file: the table walk, the header decode and
//! the version check return a value or a typed error, never panic, and agree with each other.
#![no_main]

use graphdef_versions::{
    Consumer, Error, bundle_header, check_checkpoint_index, looks_like_index,
    read_checkpoint_header,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let found = bundle_header(data);
    if let Ok(header) = found {
        // The header is borrowed from the input, and only a table (magic last) has one.
        let start = header.as_ptr() as usize - data.as_ptr() as usize;
        assert!(start + header.len() <= data.len());
        assert!(looks_like_index(data));
    }
    let read = read_checkpoint_header(data);
    assert_eq!(found.is_ok(), !matches!(read, Err(Error::Index(_))));
    match check_checkpoint_index(data, &Consumer::tensorflow_checkpoint()) {
        // A header that passes the check is the header that was read.
        Ok(checked) => assert_eq!(Ok(checked), read),
        // A refusal comes only after a header was read.
        Err(Error::Refused(_)) => assert!(read.is_ok()),
        Err(error) => assert_eq!(Err(error), read),
    }
});
