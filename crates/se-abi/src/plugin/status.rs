//! `TF_Status`, for the emulated host: the object TensorFlow passes to every plugin callback,
//! which the plugin fills with TensorFlow's `TF_SetStatus` to report an error.
//!
//! A plugin finds `TF_SetStatus` in TensorFlow's libraries: by linking them, or by looking it up
//! when it runs. In the emulated host there is no TensorFlow unless the user names one, so the
//! `se-abi` binary exports the functions of `tensorflow/c/tf_status.h` itself (`TF_NewStatus`,
//! `TF_DeleteStatus`, `TF_SetStatus`, `TF_SetPayload`, `TF_GetCode`, `TF_Message`), each calling
//! the function of the same name here. When the host has loaded a real TensorFlow's library
//! ([`use_tensorflow`]), these call TensorFlow's own instead, so that every status, however
//! the plugin reaches it, is one kind of object.
//!
//! What TensorFlow makes of a failed status is `Status::ToString()`: the code's name, `": "`, and
//! the message ([`text`]).

use std::borrow::ToOwned;
use std::boxed::Box;
use std::ffi::{CStr, CString, c_char, c_int};
use std::string::String;
use std::sync::OnceLock;

use crate::tensorflow::TF_Status;

/// The status functions of a real TensorFlow library, when the host loaded one.
#[derive(Debug, Clone, Copy)]
pub struct RealStatus {
    /// `TF_NewStatus`.
    pub new: unsafe extern "C" fn() -> *mut TF_Status,
    /// `TF_DeleteStatus`.
    pub delete: unsafe extern "C" fn(*mut TF_Status),
    /// `TF_SetStatus`.
    pub set: unsafe extern "C" fn(*mut TF_Status, c_int, *const c_char),
    /// `TF_SetPayload`.
    pub set_payload: unsafe extern "C" fn(*mut TF_Status, *const c_char, *const c_char),
    /// `TF_GetCode`.
    pub code: unsafe extern "C" fn(*const TF_Status) -> c_int,
    /// `TF_Message`.
    pub message: unsafe extern "C" fn(*const TF_Status) -> *const c_char,
}

static REAL: OnceLock<RealStatus> = OnceLock::new();

/// From now on, every status is a real TensorFlow's (call it before any status is made).
pub fn use_tensorflow(real: RealStatus) {
    let _ = REAL.set(real);
}

/// The emulated status object.
struct Emulated {
    code: c_int,
    message: CString,
}

/// `TF_NewStatus`: a status with code `TF_OK`.
pub extern "C" fn new() -> *mut TF_Status {
    if let Some(real) = REAL.get() {
        // SAFETY: TensorFlow's own `TF_NewStatus`, which takes nothing.
        return unsafe { (real.new)() };
    }
    Box::into_raw(Box::new(Emulated {
        code: 0,
        message: CString::default(),
    }))
    .cast()
}

/// `TF_DeleteStatus`.
///
/// # Safety
/// `status` must come from [`new`] and not be used again.
pub unsafe extern "C" fn delete(status: *mut TF_Status) {
    if let Some(real) = REAL.get() {
        // SAFETY: a real status (caller), given back to TensorFlow.
        return unsafe { (real.delete)(status) };
    }
    if !status.is_null() {
        // SAFETY: an emulated status made by `new` with `Box::into_raw` (caller).
        drop(unsafe { Box::from_raw(status.cast::<Emulated>()) });
    }
}

/// `TF_SetStatus`: `TF_OK` (0) clears the status; any other code sets it, with `message`.
///
/// # Safety
/// `status` must come from [`new`]; `message` must be NULL or a NUL-terminated string.
pub unsafe extern "C" fn set(status: *mut TF_Status, code: c_int, message: *const c_char) {
    if let Some(real) = REAL.get() {
        // SAFETY: the caller's arguments, as TensorFlow's own `TF_SetStatus` takes them.
        return unsafe { (real.set)(status, code, message) };
    }
    if status.is_null() {
        return;
    }
    // SAFETY: an emulated status made by `new` (caller), not aliased during the call.
    let emulated = unsafe { &mut *status.cast::<Emulated>() };
    emulated.code = code;
    emulated.message = if code == 0 || message.is_null() {
        CString::default()
    } else {
        // SAFETY: a NUL-terminated string (caller).
        unsafe { CStr::from_ptr(message) }.to_owned()
    };
}

/// `TF_SetPayload`: payloads are kept by TensorFlow's statuses only.
///
/// # Safety
/// As for TensorFlow's `TF_SetPayload`.
pub unsafe extern "C" fn set_payload(
    status: *mut TF_Status,
    key: *const c_char,
    value: *const c_char,
) {
    if let Some(real) = REAL.get() {
        // SAFETY: the caller's arguments, as TensorFlow's own `TF_SetPayload` takes them.
        unsafe { (real.set_payload)(status, key, value) };
    }
}

/// `TF_GetCode`.
///
/// # Safety
/// `status` must come from [`new`].
pub unsafe extern "C" fn code(status: *const TF_Status) -> c_int {
    if let Some(real) = REAL.get() {
        // SAFETY: a real status (caller).
        return unsafe { (real.code)(status) };
    }
    if status.is_null() {
        return 0;
    }
    // SAFETY: an emulated status made by `new` (caller).
    unsafe { &*status.cast::<Emulated>() }.code
}

/// `TF_Message`: valid until the status changes.
///
/// # Safety
/// `status` must come from [`new`].
pub unsafe extern "C" fn message(status: *const TF_Status) -> *const c_char {
    if let Some(real) = REAL.get() {
        // SAFETY: a real status (caller).
        return unsafe { (real.message)(status) };
    }
    if status.is_null() {
        return c"".as_ptr();
    }
    // SAFETY: an emulated status made by `new` (caller).
    unsafe { &*status.cast::<Emulated>() }.message.as_ptr()
}

/// The names of TensorFlow's status codes (`TF_Code`, `tensorflow/c/tf_status.h`; absl's
/// `StatusCodeToString`).
const CODES: &[&str] = &[
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// What TensorFlow prints of a failed status (`Status::ToString()`: `CODE: message`), or `None`
/// when it is `TF_OK`.
///
/// # Safety
/// `status` must come from [`new`].
pub unsafe fn text(status: *const TF_Status) -> Option<String> {
    // SAFETY: the caller's status.
    let code = unsafe { self::code(status) };
    if code == 0 {
        return None;
    }
    // SAFETY: the caller's status.
    let message = unsafe { self::message(status) };
    // SAFETY: `TF_Message` gives a NUL-terminated string, valid while the status is unchanged.
    let message = unsafe { CStr::from_ptr(message) }.to_string_lossy();
    let name = usize::try_from(code)
        .ok()
        .and_then(|c| CODES.get(c))
        .copied()
        .unwrap_or("");
    Some(std::format!("{name}: {message}"))
}
