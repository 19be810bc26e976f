//! Checkpoints: real `.index` files written by `tf.train.Checkpoint`, tables built here around
//! chosen headers, and hostile bytes.

use graphdef_versions::schema::{BundleHeaderProto, VersionDef, bundle_header_proto::Endianness};
use graphdef_versions::{Consumer, Error, IndexError, bundle_header, check_checkpoint_index};
use proptest::prelude::*;
use prost::Message;

use crate::common::data_bytes;

/// The real `.index` files in `tests/data/checkpoint/` (see its README).
const REAL: [&str; 3] = [
    "checkpoint/small_2.21.0/ckpt.index",
    "checkpoint/keras_2.21.0/ckpt-1.index",
    "checkpoint/many_2.21.0/ckpt.index",
];

fn tf() -> Consumer {
    Consumer::tensorflow_checkpoint()
}

#[test]
fn real_checkpoints_are_read_and_accepted() {
    for name in REAL {
        let header = check_checkpoint_index(&data_bytes(name), &tf())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // What TensorFlow 2.21's BundleWriter writes: one shard, little endian, and the
        // checkpoint scheme's VersionDef {producer: kTensorBundleVersion = 1}.
        assert_eq!(header.num_shards, 1, "{name}");
        assert_eq!(header.endianness(), Endianness::Little, "{name}");
        assert_eq!(
            header.version,
            Some(VersionDef {
                producer: 1,
                min_consumer: 0,
                bad_consumers: vec![]
            }),
            "{name}"
        );
    }
}

#[test]
fn the_header_is_found_in_a_table_of_several_blocks() {
    // 6000 variables: the index block points at two data blocks.
    let bytes = data_bytes("checkpoint/many_2.21.0/ckpt.index");
    assert!(bytes.len() > 262_144, "one block would hold it all");
    let header = BundleHeaderProto::decode(bundle_header(&bytes).unwrap()).unwrap();
    assert_eq!(header.num_shards, 1);
}

// --- tables built here ------------------------------------------------------------------------

/// CRC-32C, bit by bit: an independent reference for the crate's table-driven one.
fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A block of whole keys (no prefix sharing), one restart point per entry.
fn block(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut restarts = Vec::new();
    for (key, value) in entries {
        restarts.push(out.len() as u32);
        varint(0, &mut out);
        varint(key.len() as u64, &mut out);
        varint(value.len() as u64, &mut out);
        out.extend_from_slice(key);
        out.extend_from_slice(value);
    }
    for restart in &restarts {
        out.extend_from_slice(&restart.to_le_bytes());
    }
    out.extend_from_slice(&(restarts.len() as u32).to_le_bytes());
    out
}

/// Appends `contents` with a trailer of compression `kind`; returns its handle bytes.
fn put_block(file: &mut Vec<u8>, contents: &[u8], kind: u8) -> Vec<u8> {
    let mut handle = Vec::new();
    varint(file.len() as u64, &mut handle);
    varint(contents.len() as u64, &mut handle);
    file.extend_from_slice(contents);
    file.push(kind);
    let crc = crc32c(&file[file.len() - contents.len() - 1..]);
    file.extend_from_slice(&crc.rotate_right(15).wrapping_add(0xa282_ead8).to_le_bytes());
    handle
}

/// A table whose data blocks hold `blocks` (each a list of entries), as TensorFlow lays it out.
fn table(blocks: &[Vec<(&[u8], &[u8])>], kind: u8) -> Vec<u8> {
    let mut file = Vec::new();
    let mut index = Vec::new();
    for (i, entries) in blocks.iter().enumerate() {
        let handle = put_block(&mut file, &block(entries), kind);
        index.push((format!("k{i}").into_bytes(), handle));
    }
    let metaindex = put_block(&mut file, &block(&[]), 0);
    let index_entries: Vec<(&[u8], &[u8])> = index.iter().map(|(k, v)| (&k[..], &v[..])).collect();
    let index_handle = put_block(&mut file, &block(&index_entries), 0);
    let mut footer = metaindex;
    footer.extend_from_slice(&index_handle);
    footer.resize(40, 0);
    footer.extend_from_slice(&0xdb47_7524_8b80_fb57u64.to_le_bytes());
    file.extend_from_slice(&footer);
    file
}

fn header(producer: i32, min_consumer: i32, bad_consumers: &[i32]) -> Vec<u8> {
    BundleHeaderProto {
        num_shards: 3,
        endianness: 0,
        version: Some(VersionDef {
            producer,
            min_consumer,
            bad_consumers: bad_consumers.to_vec(),
        }),
    }
    .encode_to_vec()
}

#[test]
fn a_built_table_reads_like_a_real_one() {
    let bytes = table(&[vec![(b"", &header(1, 0, &[])), (b"w", b"entry")]], 0);
    let read = check_checkpoint_index(&bytes, &tf()).unwrap();
    assert_eq!(read.num_shards, 3);
}

#[test]
fn every_version_refusal_is_tensorflows() {
    // Tables built here, loaded with `tf.train.load_checkpoint` by TensorFlow 2.21.0: its
    // messages, byte for byte, for each header VersionDef.
    let cases: [(i32, i32, &[i32], Option<&str>); 4] = [
        (1, 0, &[], None),
        (
            -1,
            0,
            &[],
            Some(
                "Checkpoint producer version -1 below min producer 0 supported by TensorFlow \
                 2.21.0.  Please regenerate your checkpoint.",
            ),
        ),
        (
            5,
            2,
            &[],
            Some(
                "Checkpoint min consumer version 2 above current version 1 for TensorFlow \
                 2.21.0.  Please upgrade TensorFlow.",
            ),
        ),
        (
            1,
            0,
            &[1],
            Some(
                "Checkpoint disallows consumer version 1.  Please upgrade TensorFlow: this \
                 version is likely buggy.",
            ),
        ),
    ];
    for (producer, min_consumer, bad, expected) in cases {
        let bytes = table(&[vec![(b"", &header(producer, min_consumer, bad))]], 0);
        match (check_checkpoint_index(&bytes, &tf()), expected) {
            (Ok(_), None) => {}
            (Err(Error::Refused(refusal)), Some(text)) => assert_eq!(refusal.to_string(), text),
            (other, _) => panic!("({producer}, {min_consumer}, {bad:?}): {other:?}"),
        }
    }
}

#[test]
fn the_first_entry_is_the_header_whatever_its_key() {
    // BundleReader seeks to "" and parses what it finds; empty data blocks are skipped.
    let bytes = table(&[vec![], vec![(b"a", &header(1, 0, &[]))]], 0);
    assert_eq!(check_checkpoint_index(&bytes, &tf()).unwrap().num_shards, 3);
}

#[test]
fn structural_faults_are_named_in_tensorflows_words() {
    // TensorFlow 2.21.0 on the same tables: "(failed to seek to header entry)" with nothing
    // after it for the empty table; "... : bad block type"; "... (unable to parse header):
    // Entry for key  not parseable." for the garbage header; and, for the snappy block, whose
    // one byte is no valid snappy stream, "corrupted compressed block contents".
    let empty = table(&[], 0);
    assert_eq!(bundle_header(&empty), Err(IndexError::NoHeader));
    let snappy = table(&[vec![(b"", b"x")]], 1);
    assert_eq!(
        bundle_header(&snappy),
        Err(IndexError::Compressed { offset: 0 })
    );
    let odd = table(&[vec![(b"", b"x")]], 7);
    assert_eq!(
        bundle_header(&odd),
        Err(IndexError::BadBlockType { offset: 0, kind: 7 })
    );
    // A header that is not a BundleHeaderProto: TensorFlow says "Entry for key  not parseable".
    let garbage = table(&[vec![(b"", b"\xff\xff\xff")]], 0);
    assert!(matches!(
        check_checkpoint_index(&garbage, &tf()),
        Err(Error::Decode(_))
    ));
}

#[test]
fn damaged_real_files_fail_as_tensorflow_2_21_says() {
    // What `tf.train.load_checkpoint` (2.21.0) said of the same damage to small_2.21.0: "file is
    // too short to be an sstable", "not an sstable (bad magic number)", and, for one flipped bit
    // in the data block, "... (failed to seek to header entry): block checksum mismatch".
    let real = data_bytes("checkpoint/small_2.21.0/ckpt.index");
    let short = bundle_header(&real[..20]).unwrap_err();
    assert!(
        short
            .to_string()
            .starts_with("file is too short to be an sstable")
    );
    let mut magic = real.clone();
    *magic.last_mut().unwrap() = 0;
    let bad_magic = bundle_header(&magic).unwrap_err();
    assert!(
        bad_magic
            .to_string()
            .starts_with("not an sstable (bad magic number)")
    );
    let mut flipped = real.clone();
    flipped[5] ^= 1;
    let crc = bundle_header(&flipped).unwrap_err();
    assert_eq!(crc, IndexError::ChecksumMismatch { offset: 0 });
    assert!(crc.to_string().starts_with("block checksum mismatch"));
}

#[test]
fn every_cut_and_every_flipped_bit_of_a_real_file_is_handled() {
    let real = data_bytes("checkpoint/small_2.21.0/ckpt.index");
    let expected = bundle_header(&real).unwrap().to_vec();
    for len in 0..real.len() {
        assert!(
            bundle_header(&real[..len]).is_err(),
            "cut at {len} was read"
        );
    }
    let footer_at = real.len() - 48;
    // The metaindex block (and its trailer), which TensorFlow never reads in a bundle.
    let (metaindex_at, metaindex_len) = {
        let mut values = Vec::new();
        let mut value = 0u64;
        let mut shift = 0;
        for &byte in &real[footer_at..] {
            value |= u64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte < 0x80 {
                values.push(value);
                (value, shift) = (0, 0);
            }
            if values.len() == 2 {
                break;
            }
        }
        (values[0] as usize, values[1] as usize + 5)
    };
    let unread =
        |at: usize| at >= footer_at || (metaindex_at..metaindex_at + metaindex_len).contains(&at);
    for at in 0..real.len() {
        for bit in 0..8 {
            let mut bytes = real.clone();
            bytes[at] ^= 1 << bit;
            // A flip inside a block that is read, or its trailer, is caught by the checksum;
            // only the footer's padding, the metaindex handle and the metaindex block itself
            // (which TensorFlow never reads in a bundle) may change silently.
            if let Ok(found) = bundle_header(&bytes) {
                assert!(unread(at), "flip at byte {at} bit {bit} was not caught");
                assert_eq!(found, &expected[..]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = check_checkpoint_index(&bytes, &tf());
    }

    #[test]
    fn arbitrary_bytes_ending_in_the_magic_never_panic(
        mut bytes in proptest::collection::vec(any::<u8>(), 40..400),
    ) {
        bytes.extend_from_slice(&0xdb47_7524_8b80_fb57u64.to_le_bytes());
        let _ = check_checkpoint_index(&bytes, &tf());
    }
}
