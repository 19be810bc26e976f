//! A release's refusal before Python raises it ([`Failure`]: TensorFlow's status [`Code`] and
//! message), and the exception each loader turns it into.

use super::report::LoadError;
use crate::policy::ReleaseNumber;
use crate::releases::TfRelease;

/// What `tf.saved_model.load` raises for `failure` in `release`.
pub(super) fn saved_model_error(failure: Failure, release: TfRelease) -> LoadError {
    // load.py turns a NotFoundError into FileNotFoundError with advice about devices. From
    // 2.13 the op lookup in function_def_to_graph raises a RuntimeError instead, which it
    // lets through.
    let (python_class, message) = match failure.code {
        Code::PythonOpLookup if release.number() < ReleaseNumber::new(2, 13, 0) => {
            ("FileNotFoundError", with_device_advice(failure.message))
        }
        Code::PythonOpLookup => ("RuntimeError", failure.message),
        Code::NotFound => ("FileNotFoundError", with_device_advice(failure.message)),
        code => (code.python_class(), failure.message),
    };
    LoadError {
        python_class,
        message,
    }
}

pub(super) fn with_device_advice(message: String) -> String {
    format!(
        "{message}\n You may be trying to load on a different device from the computational \
         device. Consider setting the `experimental_io_device` option in \
         `tf.saved_model.LoadOptions` to the io_device such as '/job:localhost'."
    )
}

/// What importing a graph that protobuf cannot parse raises (`TF_GraphImportGraphDef`, for a
/// graph nested deeper than protobuf's limit once serialized).
pub(super) fn invalid_graph_def() -> Failure {
    Failure::invalid("Invalid GraphDef")
}

/// TensorFlow's status codes that reach the user here, and the Python class each becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Code {
    InvalidArgument,
    NotFound,
    Unimplemented,
    Internal,
    /// The op lookup Python does itself while turning a function into a graph.
    PythonOpLookup,
}

impl Code {
    pub(super) fn python_class(self) -> &'static str {
        match self {
            // import_graph_def re-raises InvalidArgumentError as ValueError.
            Code::InvalidArgument => "ValueError",
            Code::NotFound | Code::PythonOpLookup => "NotFoundError",
            Code::Unimplemented => "UnimplementedError",
            Code::Internal => "InternalError",
        }
    }
}

/// A release's refusal, before the loader turns it into a Python exception.
#[derive(Clone, Debug)]
pub(super) struct Failure {
    pub(super) code: Code,
    pub(super) message: String,
}

impl Failure {
    pub(super) fn invalid(message: impl Into<String>) -> Self {
        Failure {
            code: Code::InvalidArgument,
            message: message.into(),
        }
    }

    /// The exception Python raises for it (`import_graph_def`'s mapping).
    pub(super) fn raised(self) -> LoadError {
        LoadError {
            python_class: self.code.python_class(),
            message: self.message,
        }
    }

    /// `errors::AppendToMessage`: the context on a new line, after a tab.
    pub(super) fn context(mut self, context: &str) -> Self {
        self.message.push_str("\n\t");
        self.message.push_str(context);
        self
    }
}
