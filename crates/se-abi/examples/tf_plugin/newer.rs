//! The TensorFlow PluggableDevice plugin of `plugin.rs`, built with `SP_Platform` and `SP_Device` longer than TensorFlow's: `se_abi::fill` writes only what TensorFlow allocated.
//!
//! ```sh
//! bash crates/se-abi/interop/tensorflow/run.sh   # builds it and loads it into TensorFlow 2.21
//! ```

#[path = "plugin.rs"]
mod plugin;

use se_abi::tensorflow::{SE_PlatformRegistrationParams, TF_Status};

/// The plugin's entry point: TensorFlow looks it up by name and calls it once.
///
/// # Safety
/// `params` and `status` must be TensorFlow's, as it passes them to `SE_InitPlugin`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SE_InitPlugin(
    params: *mut SE_PlatformRegistrationParams,
    status: *mut TF_Status,
) {
    // SAFETY: `plugin::init` requires TensorFlow's registration parameters: the caller's.
    unsafe { plugin::init(params, status, plugin::Build::Newer) };
}
