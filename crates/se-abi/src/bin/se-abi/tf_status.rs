//! TensorFlow's status functions (`tensorflow/c/tf_status.h`), exported by this binary so that
//! a plugin run in an emulated host finds them as it would in TensorFlow: linked against them
//! (from 2.19, where TensorFlow's libraries are in the global scope), or looked up at run time
//! (`dlsym`). Each calls `se_abi::plugin::status`, which emulates a status, or calls a real
//! TensorFlow's when the host loaded one. The build script exports them
//! (`--export-dynamic-symbol`): an executable exports nothing by default.

use std::ffi::{c_char, c_int};

use se_abi::plugin::status;
use se_abi::tensorflow::TF_Status;

/// `TF_NewStatus`.
#[unsafe(no_mangle)]
pub extern "C" fn TF_NewStatus() -> *mut TF_Status {
    status::new()
}

/// `TF_DeleteStatus`.
///
/// # Safety
/// As TensorFlow's: a status from `TF_NewStatus`, not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn TF_DeleteStatus(s: *mut TF_Status) {
    // SAFETY: the caller's contract is `status::delete`'s.
    unsafe { status::delete(s) }
}

/// `TF_SetStatus`.
///
/// # Safety
/// As TensorFlow's: a status from `TF_NewStatus`, a NUL-terminated message.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn TF_SetStatus(s: *mut TF_Status, code: c_int, message: *const c_char) {
    // SAFETY: the caller's contract is `status::set`'s.
    unsafe { status::set(s, code, message) }
}

/// `TF_SetPayload`.
///
/// # Safety
/// As TensorFlow's: a status from `TF_NewStatus`, NUL-terminated key and value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn TF_SetPayload(
    s: *mut TF_Status,
    key: *const c_char,
    value: *const c_char,
) {
    // SAFETY: the caller's contract is `status::set_payload`'s.
    unsafe { status::set_payload(s, key, value) }
}

/// `TF_GetCode`.
///
/// # Safety
/// As TensorFlow's: a status from `TF_NewStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn TF_GetCode(s: *const TF_Status) -> c_int {
    // SAFETY: the caller's contract is `status::code`'s.
    unsafe { status::code(s) }
}

/// `TF_Message`.
///
/// # Safety
/// As TensorFlow's: a status from `TF_NewStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn TF_Message(s: *const TF_Status) -> *const c_char {
    // SAFETY: the caller's contract is `status::message`'s.
    unsafe { status::message(s) }
}
