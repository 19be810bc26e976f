//! What a judgement says: how the file was loaded ([`Loader`]), each release's verdict
//! ([`ReleaseVerdict`]) and the error it raises ([`LoadError`]), all of them together
//! ([`ReleaseReport`]).

use std::fmt;

use crate::releases::TfRelease;

/// How TensorFlow is asked to load the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Loader {
    /// `tf.graph_util.import_graph_def(graph_def, name="")` into a fresh graph.
    ImportGraphDef,
    /// `tf.saved_model.load(path)`.
    SavedModelLoad,
}

impl Loader {
    /// `"import_graph_def"` or `"saved_model_load"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Loader::ImportGraphDef => "import_graph_def",
            Loader::SavedModelLoad => "saved_model_load",
        }
    }
}

/// What a release raises when it refuses to load a file: the Python exception's class, and its
/// message to the byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub(super) python_class: &'static str,
    pub(super) message: String,
}

impl LoadError {
    /// The exception's class, as Python names it: `ValueError`, `NotFoundError`,
    /// `UnimplementedError`, `RuntimeError`, `FileNotFoundError`.
    pub fn python_class(&self) -> &'static str {
        self.python_class
    }

    /// `str(e)`: TensorFlow's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// One release's verdict on a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseVerdict {
    pub(super) release: TfRelease,
    pub(super) errors: Vec<LoadError>,
}

impl ReleaseVerdict {
    /// The release judged.
    pub fn release(&self) -> TfRelease {
        self.release
    }

    /// Whether the release loads the file.
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }

    /// Why not: the first is the error the release raises.
    pub fn errors(&self) -> &[LoadError] {
        &self.errors
    }
}

/// Every release's verdict on one file, oldest release first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseReport {
    pub(super) loader: Loader,
    pub(super) verdicts: Vec<ReleaseVerdict>,
}

impl ReleaseReport {
    /// How the file was loaded.
    pub fn loader(&self) -> Loader {
        self.loader
    }

    /// One verdict per release, oldest first.
    pub fn verdicts(&self) -> &[ReleaseVerdict] {
        &self.verdicts
    }

    /// The oldest release that loads the file. Verdicts are not monotone: a newer release may
    /// still refuse it (an op removed from its registry, a `bad_consumers` entry).
    pub fn oldest_release(&self) -> Option<TfRelease> {
        self.verdicts
            .iter()
            .find(|v| v.accepted())
            .map(|v| v.release)
    }
}
