//! The buffers' data lengths, read once: what makes a tensor constant.

use crate::error::Error;
use crate::model::wire::Data;

/// The length of each buffer's `data`, read by hand in one walk over the buffers: a constant
/// tensor then costs a lookup, not a visit to its buffer. Four bytes per buffer, as `i32`s
/// so that the allocation can become an index pool once the tensors are read
/// ([`BufferLens::into_pool`]).
#[derive(Default)]
pub(super) struct BufferLens(Vec<i32>);

impl BufferLens {
    const ABSENT: i32 = -1;
    const UNREADABLE: i32 = -2;

    pub(super) fn with_capacity(buffers: usize) -> Self {
        Self(Vec::with_capacity(buffers))
    }

    pub(super) fn push(&mut self, data: Data) {
        self.0.push(match data {
            Data::Absent => Self::ABSENT,
            // A length this table cannot hold (past 2 GiB, which only a file with data kept
            // outside the FlatBuffer can claim) is read by planus again.
            Data::Bytes(len) => i32::try_from(len).unwrap_or(Self::UNREADABLE),
            Data::Unreadable => Self::UNREADABLE,
        });
    }

    /// Buffer `index`'s data; a buffer out of range has none, as planus reads it.
    #[inline(always)]
    pub(super) fn get(&self, index: u32) -> Data {
        match self.0.get(index as usize) {
            None | Some(&Self::ABSENT) => Data::Absent,
            Some(&len) => usize::try_from(len).map_or(Data::Unreadable, Data::Bytes),
        }
    }

    /// The lengths' allocation, emptied, for a subgraph's tensor index pool: on a large model
    /// its pages are already in memory, where a fresh pool of about the same size would take a
    /// page fault per 4 KiB (about 3,000 on the bench model, 6 ms of the whole process).
    pub(super) fn into_pool(self) -> Vec<i32> {
        let mut pool = self.0;
        pool.clear();
        pool
    }
}

/// A buffer's data length (`None` without data): by hand, else by planus.
pub(super) struct BufferLen<'f, P> {
    /// The lengths read by hand; `None` when the buffers vector was not found by hand.
    pub(super) lens: Option<&'f BufferLens>,
    pub(super) by_planus: &'f P,
    /// How many buffers the model has.
    pub(super) count: usize,
}

impl<P: Fn(u32) -> Result<Option<usize>, Error>> BufferLen<'_, P> {
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
        match self.lens {
            _ if index == 0 => Data::Absent,
            Some(lens) => lens.get(index),
            None => Data::Unreadable,
        }
    }

    /// Read by planus, whose error reports what is wrong.
    #[cold]
    #[inline(never)]
    pub(super) fn planus(&self, index: u32) -> Result<Option<usize>, Error> {
        (self.by_planus)(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_read_back_and_their_allocation_becomes_an_empty_pool() {
        let mut lens = BufferLens::with_capacity(4);
        for data in [
            Data::Absent,
            Data::Bytes(0),
            Data::Bytes(16),
            Data::Unreadable,
        ] {
            lens.push(data);
        }
        // A length past what an `i32` holds is read by planus again.
        lens.push(Data::Bytes(1 << 31));
        let read: Vec<Data> = (0..6).map(|i| lens.get(i)).collect();
        assert_eq!(
            read,
            [
                Data::Absent,
                Data::Bytes(0),
                Data::Bytes(16),
                Data::Unreadable,
                Data::Unreadable,
                // Out of range: no data, as planus reads it.
                Data::Absent,
            ]
        );
        let pool = lens.into_pool();
        assert!(pool.is_empty());
        assert!(pool.capacity() >= 5);
    }
}
