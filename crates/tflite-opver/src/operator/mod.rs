//! One operator as TensorFlow Lite's version rules see it: its code and version, its tensors,
//! its signature, and its options tables read into [`Params`](crate::params::Params).

pub(crate) mod code;
pub(crate) mod options;
pub(crate) mod signature;
pub(crate) mod tensor;
