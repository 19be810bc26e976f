//! The table format of a checkpoint's `.index` file, read far enough to find its header.
//!
//! A TensorFlow checkpoint (a *tensor bundle*) is a `.index` file plus data shards. The `.index`
//! file is a sorted string table in LevelDB's format, as TensorFlow's own copy of it writes and
//! reads it (`tensorflow/core/lib/io/{format,block,table,two_level_iterator}.cc`):
//!
//! ```text
//! [data block][trailer] ... [data block][trailer] [metaindex block][trailer] [index block][trailer] [footer]
//! trailer: 1 byte compression type (0 none, 1 snappy) + 4 bytes masked CRC-32C of block and type
//! footer:  varint64 pair (metaindex offset, size) + varint64 pair (index offset, size),
//!          zero-padded to 40 bytes, then the magic number 0xdb4775248b80fb57 (little endian)
//! block:   entries (varint32 shared key bytes, varint32 unshared, varint32 value length,
//!          unshared key bytes, value), then one fixed32 offset per restart point, then their count
//! ```
//!
//! The index block maps the last key of each data block to that block's handle. The bundle
//! header is stored under the empty key, which sorts first, so it is the table's first entry
//! (`kHeaderEntryKey` in `tensorflow/core/util/tensor_bundle/tensor_bundle.cc`).
//!
//! [`bundle_header`] finds that entry as `BundleReader` does: it seeks the empty key through the
//! index block and into the data blocks, skipping empty ones, verifying every block's checksum on
//! the way. Every length and offset is checked against the file before it is used, nothing is
//! allocated from a length in the input, and the header bytes are borrowed from the input.
//! Errors use TensorFlow's own words (all of them are `DATA_LOSS` errors in TensorFlow).
//!
//! Snappy-compressed blocks are refused with [`IndexError::Compressed`]: TensorFlow's bundle
//! writer has written uncompressed tables since release 1.2 (`TableBuilderOptions` in
//! `tensor_bundle.cc`), so no checkpoint of a supported release holds one.

use crate::error::IndexError;

/// The table's last 48 bytes: two block handles of at most 10 + 10 bytes each, padded to 40,
/// then the 8-byte magic number (`Footer::kEncodedLength`, `tensorflow/core/lib/io/format.h`).
const FOOTER_LEN: usize = 48;
/// The magic number that ends every table (`kTableMagicNumber`, `tensorflow/core/lib/io/format.h`).
pub(crate) const TABLE_MAGIC: u64 = 0xdb47_7524_8b80_fb57;
/// The compression byte and masked CRC-32C after every block (`kBlockTrailerSize`).
const TRAILER_LEN: usize = 5;
/// Trailer compression types (`CompressionType`, `tensorflow/core/lib/io/table_options.h`).
const NO_COMPRESSION: u8 = 0;
const SNAPPY_COMPRESSION: u8 = 1;

/// Whether `bytes` end like a table: at least a footer's length, and the table magic number last.
///
/// The cheap test for "this is a checkpoint `.index` file, not a GraphDef": the tool uses it to
/// tell the two apart. It reads 8 bytes; [`bundle_header`] checks the rest.
pub fn looks_like_index(bytes: &[u8]) -> bool {
    bytes.len() >= FOOTER_LEN && read_fixed64(&bytes[bytes.len() - 8..]) == TABLE_MAGIC
}

/// Finds the checkpoint header in the bytes of a `.index` file: the value of the table's first
/// entry, which a bundle writer always stores under the empty key.
///
/// The bytes returned are a serialized `BundleHeaderProto`, borrowed from `index`;
/// [`check_checkpoint_index`](crate::check_checkpoint_index) decodes and judges them in one step.
///
/// As in TensorFlow, the first entry is taken whatever its key (`BundleReader` seeks to the
/// empty key and parses what it finds), and every block read on the way must pass its checksum.
pub fn bundle_header(index: &[u8]) -> Result<&[u8], IndexError> {
    let index_block = Block::read(index, index_handle(index)?)?;
    let mut entries = index_block.seek_first()?;
    // The first error met in a data block, kept while later blocks are tried: TensorFlow's
    // two-level iterator skips a data block that yields no entry (`SaveError`).
    let mut first_error = None;
    let mut seek = true;
    while let Some(entry) = entries.next_entry()? {
        // The first data block is entered by a seek, the later ones from their start.
        let found = first_entry_of_data_block(index, entry.value, entry.value_at, seek);
        seek = false;
        match found {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    Err(first_error.unwrap_or(IndexError::NoHeader))
}

/// Where the table's index block is, read from its footer: the file must be long enough for
/// one and end with the table magic. The footer holds the metaindex handle, then the index
/// handle; TensorFlow never reads the metaindex block of a bundle, but decodes its handle all
/// the same.
fn index_handle(index: &[u8]) -> Result<BlockHandle, IndexError> {
    let len = index.len();
    if len < FOOTER_LEN {
        return Err(IndexError::TooShort { len });
    }
    let footer_at = len - FOOTER_LEN;
    let footer = &index[footer_at..];
    if read_fixed64(&footer[FOOTER_LEN - 8..]) != TABLE_MAGIC {
        return Err(IndexError::BadMagic);
    }
    let mut cursor = Cursor::new(footer);
    let bad_footer = || IndexError::BadBlockHandle { at: footer_at };
    BlockHandle::decode(&mut cursor).ok_or_else(bad_footer)?;
    BlockHandle::decode(&mut cursor).ok_or_else(bad_footer)
}

/// Calls `visit` with every entry of the table after the header, in key order: its key (a
/// tensor's name) and its value (a serialized `BundleEntryProto`), as `BundleReader` finds them.
/// Every block is read from its start and must pass its checksum; the header (the empty key)
/// is left out. Keys are rebuilt in one buffer, so the work is linear in the file's size.
pub(crate) fn for_each_entry(
    index: &[u8],
    mut visit: impl FnMut(&[u8], &[u8]),
) -> Result<(), IndexError> {
    let mut blocks = Block::read(index, index_handle(index)?)?.first()?;
    while let Some(block_entry) = blocks.next_entry()? {
        let mut handle = Cursor::new(block_entry.value);
        let handle = BlockHandle::decode(&mut handle).ok_or(IndexError::BadBlockHandle {
            at: block_entry.value_at,
        })?;
        let mut entries = Block::read(index, handle)?.first()?;
        while let Some(entry) = entries.next_entry()? {
            if !entries.key.is_empty() {
                visit(&entries.key, entry.value);
            }
        }
    }
    Ok(())
}

/// The value of the first entry of the data block that an index entry's value points to, or
/// `None` if that block is empty.
fn first_entry_of_data_block<'a>(
    index: &'a [u8],
    handle_bytes: &[u8],
    handle_at: usize,
    seek: bool,
) -> Result<Option<&'a [u8]>, IndexError> {
    // Bytes after the handle are allowed: "extra stuff in index_value" (`Table::BlockReader`).
    let mut cursor = Cursor::new(handle_bytes);
    let handle =
        BlockHandle::decode(&mut cursor).ok_or(IndexError::BadBlockHandle { at: handle_at })?;
    let block = Block::read(index, handle)?;
    let mut entries = if seek {
        block.seek_first()?
    } else {
        block.first()?
    };
    Ok(entries.next_entry()?.map(|entry| entry.value))
}

/// Where a block is: its offset and its size without the trailer.
#[derive(Clone, Copy, Debug)]
struct BlockHandle {
    offset: u64,
    size: u64,
}

impl BlockHandle {
    /// Two varint64s (`BlockHandle::DecodeFrom`); `None` is TensorFlow's "bad block handle".
    fn decode(cursor: &mut Cursor<'_>) -> Option<BlockHandle> {
        let offset = cursor.varint64()?;
        let size = cursor.varint64()?;
        Some(BlockHandle { offset, size })
    }
}

/// A block's contents, checked and uncompressed, with its restart array located.
struct Block<'a> {
    /// The contents, trailer excluded.
    data: &'a [u8],
    /// Where `data` starts in the file, for messages.
    at: usize,
}

impl<'a> Block<'a> {
    /// Reads the block at `handle` and verifies its trailer (`ReadBlock`).
    fn read(file: &'a [u8], handle: BlockHandle) -> Result<Block<'a>, IndexError> {
        let short = IndexError::ShortRead {
            offset: handle.offset,
            needed: handle.size.saturating_add(TRAILER_LEN as u64),
            len: file.len(),
        };
        let start = usize::try_from(handle.offset).map_err(|_| short.clone())?;
        let size = usize::try_from(handle.size).map_err(|_| short.clone())?;
        let end = start
            .checked_add(size)
            .and_then(|end| end.checked_add(TRAILER_LEN))
            .filter(|&end| end <= file.len())
            .ok_or(short)?;
        let with_type = &file[start..end - 4];
        let stored = unmask_crc(read_fixed32(&file[end - 4..end]));
        if crc32c(with_type) != stored {
            return Err(IndexError::ChecksumMismatch { offset: start });
        }
        match with_type[size] {
            NO_COMPRESSION => Ok(Block {
                data: &with_type[..size],
                at: start,
            }),
            SNAPPY_COMPRESSION => Err(IndexError::Compressed { offset: start }),
            kind => Err(IndexError::BadBlockType {
                offset: start,
                kind,
            }),
        }
    }

    /// An iterator positioned before the block's first entry, found as `Block::Iter::Seek` finds
    /// the empty key: a binary search over the restart points (each of which must decode, with
    /// no shared key bytes), then restart point 0.
    fn seek_first(&self) -> Result<Entries<'a>, IndexError> {
        self.entries(true)
    }

    /// An iterator positioned at restart point 0, without a search (`SeekToFirst`).
    fn first(&self) -> Result<Entries<'a>, IndexError> {
        self.entries(false)
    }

    fn entries(&self, search: bool) -> Result<Entries<'a>, IndexError> {
        let data = self.data;
        let bad_contents = IndexError::BadBlockContents { offset: self.at };
        if data.len() < 4 {
            return Err(bad_contents);
        }
        let restarts_count = read_fixed32(&data[data.len() - 4..]) as usize;
        let max_restarts = (data.len() - 4) / 4;
        if restarts_count > max_restarts {
            return Err(bad_contents);
        }
        let limit = data.len() - 4 * (1 + restarts_count);
        let mut entries = Entries {
            data,
            limit,
            next: limit,
            at: self.at,
            key: Vec::new(),
        };
        if restarts_count == 0 {
            // An empty iterator: no entries, no error.
            return Ok(entries);
        }
        let restart = |i: usize| read_fixed32(&data[limit + 4 * i..]) as usize;
        // The binary search for the first key >= "" (`Block::Iter::Seek`): every restart point
        // it visits must hold a decodable entry that shares no key bytes. No key sorts below the
        // empty key, so the search always moves left and ends at restart point 0.
        let mut right = if search { restarts_count - 1 } else { 0 };
        while right > 0 {
            let mid = right.div_ceil(2);
            match decode_entry(data, restart(mid), limit) {
                Some(entry) if entry.shared == 0 => {}
                _ => return Err(IndexError::BadEntry { offset: self.at }),
            }
            right = mid - 1;
        }
        entries.next = restart(0);
        Ok(entries)
    }
}

/// One decoded entry header: how many key bytes it shares with the previous key, and where its
/// unshared key bytes and its value are.
struct EntryHeader {
    shared: usize,
    unshared: usize,
    key_end: usize,
    value_end: usize,
}

/// Decodes the entry at `at` (`DecodeEntry` in `block.cc`): three varint32s, then the unshared
/// key bytes and the value, all before `limit`. `None` for anything that does not fit.
fn decode_entry(data: &[u8], at: usize, limit: usize) -> Option<EntryHeader> {
    let region = data.get(at..limit)?;
    let mut cursor = Cursor::new(region);
    let shared = cursor.varint32()? as usize;
    let unshared = cursor.varint32()? as usize;
    let value_len = cursor.varint32()? as usize;
    let key_start = at + cursor.pos;
    if limit - key_start < unshared + value_len {
        return None;
    }
    let key_end = key_start + unshared;
    Some(EntryHeader {
        shared,
        unshared,
        key_end,
        value_end: key_end + value_len,
    })
}

/// A value found in a block, and where it starts in the file.
struct Entry<'a> {
    value: &'a [u8],
    value_at: usize,
}

/// Walks a block's entries in order (`Block::Iter::ParseNextKey`), rebuilding each key from the
/// bytes it shares with the previous one.
struct Entries<'a> {
    data: &'a [u8],
    /// Where the restart array starts: entries end there.
    limit: usize,
    /// Where the next entry starts.
    next: usize,
    /// Where the block starts in the file, for messages.
    at: usize,
    /// The key of the entry read last.
    key: Vec<u8>,
}

impl<'a> Entries<'a> {
    fn next_entry(&mut self) -> Result<Option<Entry<'a>>, IndexError> {
        if self.next >= self.limit {
            return Ok(None);
        }
        let header = decode_entry(self.data, self.next, self.limit)
            .filter(|header| header.shared <= self.key.len())
            .ok_or(IndexError::BadEntry { offset: self.at })?;
        self.key.truncate(header.shared);
        self.key
            .extend_from_slice(&self.data[header.key_end - header.unshared..header.key_end]);
        let value = &self.data[header.key_end..header.value_end];
        let value_at = self.at + header.key_end;
        self.next = header.value_end;
        Ok(Some(Entry { value, value_at }))
    }
}

/// A reading position in some bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// A varint of at most `max_bytes` bytes; bits beyond `u64` are dropped, as
    /// `GetVarint64Ptr`/`GetVarint32Ptr` (`tensorflow/core/lib/core/coding.cc`) drop them.
    fn varint(&mut self, max_bytes: usize) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..max_bytes {
            let byte = *self.bytes.get(self.pos)?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f)
                .checked_shl(7 * i as u32)
                .unwrap_or(0);
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn varint64(&mut self) -> Option<u64> {
        self.varint(10)
    }

    fn varint32(&mut self) -> Option<u32> {
        // Five bytes at most; the high bits of the fifth byte fall outside 32 bits.
        self.varint(5).map(|value| value as u32)
    }
}

fn read_fixed32(bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[..4]);
    u32::from_le_bytes(word)
}

fn read_fixed64(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

/// The constant added to a rotated CRC when it is stored (`kMaskDelta`,
/// `tensorflow/core/lib/hash/crc32c.h`): a CRC of data that holds CRCs is not itself a CRC.
const CRC_MASK_DELTA: u32 = 0xa282_ead8;

fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(CRC_MASK_DELTA).rotate_left(15)
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), one table lookup per byte. Index
/// blocks are small and read once, so the simple form is fast enough.
fn crc32c(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut crc = i as u32;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82f6_3b78
                } else {
                    crc >> 1
                };
                bit += 1;
            }
            table[i] = crc;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &byte in bytes {
        crc = TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_standard_check_values() {
        // RFC 3720 (iSCSI), appendix B.4.
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62a8_ab43);
    }

    #[test]
    fn masking_round_trips() {
        // `crc32c::Mask` rotates right by 15 and adds the delta.
        for crc in [0u32, 1, 0xe306_9283, u32::MAX] {
            let masked = crc.rotate_right(15).wrapping_add(CRC_MASK_DELTA);
            assert_eq!(unmask_crc(masked), crc);
        }
    }

    #[test]
    fn varints_stop_at_their_byte_limit() {
        let mut cursor = Cursor::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert_eq!(cursor.varint32(), None);
        let mut cursor = Cursor::new(&[0xac, 0x02]);
        assert_eq!(cursor.varint32(), Some(300));
        let mut cursor = Cursor::new(&[0x80]);
        assert_eq!(cursor.varint64(), None);
    }
}
