//! The buffers' data lengths, read once: what makes a tensor constant.

use crate::error::Error;
use crate::raw::Data;

/// The length of each buffer's `data`, read by hand in one walk over the buffers: a constant
/// tensor then costs a lookup, not a visit to its buffer. Four bytes per buffer.
#[derive(Default)]
pub(super) struct BufferLens(pub(super) Vec<u32>);

impl BufferLens {
    const ABSENT: u32 = u32::MAX;
    const UNREADABLE: u32 = u32::MAX - 1;

    pub(super) fn push(&mut self, data: Data) {
        self.0.push(match data {
            Data::Absent => Self::ABSENT,
            // A length this table cannot hold (a file past 4 GiB) is read by planus again.
            Data::Bytes(len) => u32::try_from(len)
                .ok()
                .filter(|&len| len < Self::UNREADABLE)
                .unwrap_or(Self::UNREADABLE),
            Data::Unreadable => Self::UNREADABLE,
        });
    }

    /// Buffer `index`'s data; a buffer out of range has none, as planus reads it.
    #[inline(always)]
    pub(super) fn get(&self, index: u32) -> Data {
        match self.0.get(index as usize) {
            None | Some(&Self::ABSENT) => Data::Absent,
            Some(&Self::UNREADABLE) => Data::Unreadable,
            Some(&len) => Data::Bytes(len as usize),
        }
    }
}

/// A buffer's data length (`None` without data): by hand, else by planus.
pub(super) struct BufferLen<'f, H, P> {
    pub(super) by_hand: &'f H,
    pub(super) by_planus: &'f P,
    /// How many buffers the model has.
    pub(super) count: usize,
}

impl<H: Fn(u32) -> Data, P: Fn(u32) -> Result<Option<usize>, Error>> BufferLen<'_, H, P> {
    /// Buffer `index`'s data length; the sentinel buffer 0 holds none.
    ///
    /// The hand reader's answer comes back in registers; only where it gave up is planus'
    /// `Result` (an error of several words, returned through memory) read, out of line: on
    /// every tensor of a large model, reading the `Result` cost a store and a stalled load.
    #[inline(always)]
    pub(super) fn of(&self, index: u32) -> Result<Option<usize>, Error> {
        match self.by_hand(index) {
            Data::Absent => Ok(None),
            Data::Bytes(len) => Ok(Some(len)),
            Data::Unreadable => self.planus(index),
        }
    }

    #[inline(always)]
    pub(super) fn by_hand(&self, index: u32) -> Data {
        if index == 0 {
            Data::Absent
        } else {
            (self.by_hand)(index)
        }
    }

    /// Read by planus, whose error reports what is wrong.
    #[cold]
    #[inline(never)]
    pub(super) fn planus(&self, index: u32) -> Result<Option<usize>, Error> {
        (self.by_planus)(index)
    }
}
