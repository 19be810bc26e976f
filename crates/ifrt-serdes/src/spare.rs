//! Spare messages and buffers kept per thread, so that a warm thread serializes without
//! allocating anything but the bytes it returns.
//!
//! Writing a value means filling its prost message from the crate's own types, which copies
//! every list into one of the message's `Vec`s, and encoding the message into a buffer. Rather
//! than allocate those `Vec`s afresh on every call, a codec takes its thread's spare message,
//! overwrites every field (reusing the capacity left from the last call) and puts it back. The
//! bytes on the wire are the same: prost encodes the refilled message as it would a new one.
//!
//! A spare is *taken out* of its cell, never borrowed, so a codec that re-enters itself (a
//! nested value of the same type) simply gets a fresh, empty one. A spare that holds more than
//! [`KEEP_BYTES`] after a call is dropped instead of kept, so one huge value does not pin its
//! memory to the thread.

use std::cell::Cell;
use std::thread::LocalKey;

use crate::generated::xla::ifrt::{
    ArraySpecProto, ShapeProto, ShardingParamProto, ShardingParamShardingProto,
};

/// The most heap memory a thread keeps in one spare between calls.
pub(crate) const KEEP_BYTES: usize = 64 << 10;

/// A message or buffer worth keeping between calls.
pub(crate) trait Spare: Default + 'static {
    /// The heap bytes it holds (its capacity, not its length).
    fn held_bytes(&self) -> usize;
}

/// A thread's spare `T`, boxed so that taking it out and putting it back moves a pointer.
pub(crate) type Slot<T> = Cell<Option<Box<T>>>;

/// Runs `f` on the thread's spare in `slot` (or on a fresh one if the spare is in use or the
/// thread is shutting down), then keeps it for the next call if it is not too big.
///
/// `f` must overwrite whatever it reads: the spare holds the previous call's contents.
#[inline(always)]
pub(crate) fn with_spare<T: Spare, R>(
    slot: &'static LocalKey<Slot<T>>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let mut spare = slot.try_with(Cell::take).ok().flatten().unwrap_or_default();
    let result = f(&mut spare);
    if spare.held_bytes() <= KEEP_BYTES {
        // Fails only while the thread's locals are being destroyed; the spare is dropped then.
        let _ = slot.try_with(|cell| cell.set(Some(spare)));
    }
    result
}

/// Overwrites `to` with `from`, reusing `to`'s capacity.
pub(crate) fn refill<T: Copy>(to: &mut Vec<T>, from: &[T]) {
    to.clear();
    to.extend_from_slice(from);
}

fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * size_of::<T>()
}

impl Spare for ShapeProto {
    fn held_bytes(&self) -> usize {
        vec_bytes(&self.dims)
    }
}

impl Spare for ShardingParamProto {
    fn held_bytes(&self) -> usize {
        vec_bytes(&self.dim_shards)
            + vec_bytes(&self.permutation)
            + vec_bytes(&self.axis_sizes)
            + vec_bytes(&self.unreduced_axes)
    }
}

impl Spare for ShardingParamShardingProto {
    fn held_bytes(&self) -> usize {
        self.sharding_param.as_ref().map_or(0, Spare::held_bytes)
            + self
                .devices
                .as_ref()
                .map_or(0, |devices| vec_bytes(&devices.device_ids))
            + self.memory_kind.as_ref().map_or(0, String::capacity)
    }
}

impl Spare for ArraySpecProto {
    fn held_bytes(&self) -> usize {
        self.shape.as_ref().map_or(0, Spare::held_bytes)
            + self
                .sharding
                .as_ref()
                .and_then(|sharding| sharding.serialized_sharding.as_ref())
                .map_or(0, |envelope| {
                    envelope.type_name.capacity() + envelope.data.capacity()
                })
    }
}
