//! Version rules: the lowest version of an operator whose kernel can run it, by TensorFlow's
//! rules or by a user's.

pub(crate) mod tensorflow;
pub(crate) mod user;
