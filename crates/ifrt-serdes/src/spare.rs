//! Spare messages kept per thread, so that a warm thread serializes without allocating anything
//! but the bytes it returns.
//!
//! Writing a value means filling its prost message from the crate's own types, which copies
//! every list into one of the message's `Vec`s, and encoding the message into a buffer. Rather
//! than allocate those `Vec`s afresh on every call, a codec takes its thread's spare message
//! ([`Spare::with_spare`]), overwrites every field (reusing the capacity left from the last
//! call) and puts it back. The bytes on the wire are the same: prost encodes the refilled
//! message as it would a new one.
//!
//! A spare is *taken out* of its slot, never borrowed, so a codec that re-enters itself (a
//! nested value of the same type) simply gets a fresh, empty one. A spare that holds more than
//! [`KEEP_BYTES`] after a call is dropped instead of kept, so one huge value does not pin its
//! memory to the thread.

use std::cell::Cell;
use std::thread::LocalKey;

use crate::generated::xla::ifrt::{
    ArraySpecProto, DeviceListProto, ShapeProto, ShardingParamProto, ShardingParamShardingProto,
};

/// The most heap memory a thread keeps in one spare between calls.
pub(crate) const KEEP_BYTES: usize = 64 << 10;

/// A thread's spare `T`, boxed so that taking it out and putting it back moves a pointer.
pub(crate) type Slot<T> = Cell<Option<Box<T>>>;

/// A message worth keeping between calls, with a slot per thread. Implemented by `spares!`.
pub(crate) trait Spare: Default + 'static {
    /// The heap bytes it holds (its capacity, not its length).
    fn held_bytes(&self) -> usize;

    /// The calling thread's slot for a spare of this type.
    fn slot() -> &'static LocalKey<Slot<Self>>;

    /// Runs `f` on the thread's spare (or on a fresh one if the spare is in use or the thread is
    /// shutting down), then keeps it for the next call if it is not too big.
    ///
    /// `f` must overwrite whatever it reads: the spare holds the previous call's contents.
    #[inline(always)]
    fn with_spare<R>(f: impl FnOnce(&mut Self) -> R) -> R {
        let slot = Self::slot();
        let mut spare = slot.try_with(Cell::take).ok().flatten().unwrap_or_default();
        let result = f(&mut spare);
        if spare.held_bytes() <= KEEP_BYTES {
            // Fails only while the thread's locals are being destroyed; the spare is dropped
            // then.
            let _ = slot.try_with(|cell| cell.set(Some(spare)));
        }
        result
    }
}

/// `impl Spare` for each message: its own thread-local slot, and how to count what it holds.
macro_rules! spares {
    ($($message:ty => |$it:ident| $held_bytes:expr;)*) => {$(
        impl Spare for $message {
            fn held_bytes(&self) -> usize {
                let $it = self;
                $held_bytes
            }

            #[inline(always)]
            fn slot() -> &'static LocalKey<Slot<Self>> {
                thread_local! {
                    static SLOT: Slot<$message> = const { Cell::new(None) };
                }
                &SLOT
            }
        }
    )*};
}

spares! {
    ShapeProto => |it| vec_bytes(&it.dims);
    DeviceListProto => |it| vec_bytes(&it.device_ids);
    ShardingParamProto => |it| {
        vec_bytes(&it.dim_shards)
            + vec_bytes(&it.permutation)
            + vec_bytes(&it.axis_sizes)
            + vec_bytes(&it.unreduced_axes)
    };
    ShardingParamShardingProto => |it| {
        it.sharding_param.as_ref().map_or(0, Spare::held_bytes)
            + it.devices.as_ref().map_or(0, |devices| vec_bytes(&devices.device_ids))
            + it.memory_kind.as_ref().map_or(0, String::capacity)
    };
    ArraySpecProto => |it| {
        it.shape.as_ref().map_or(0, Spare::held_bytes)
            + it
                .sharding
                .as_ref()
                .and_then(|sharding| sharding.serialized_sharding.as_ref())
                .map_or(0, |envelope| envelope.type_name.capacity() + envelope.data.capacity())
            + it.layout.as_ref().map_or(0, Vec::capacity)
    };
}

/// Overwrites `to` with `from`, reusing `to`'s capacity.
#[inline]
pub(crate) fn refill<T: Copy>(to: &mut Vec<T>, from: &[T]) {
    to.clear();
    to.extend_from_slice(from);
}

fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * size_of::<T>()
}
