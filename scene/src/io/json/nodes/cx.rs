//! What a node kind's save needs of the saver (the saver sits above the kind files).

use std::collections::BTreeMap;
use std::path::Path;

use crate::graph::Scene;
use crate::io::error::IoError;

/// What saving a node's kind needs: the scene, the file named in errors, and how many nodes
/// carry each name (a link by name needs a unique one).
pub(in crate::io::json) struct SaveCx<'a> {
    pub(in crate::io::json) scene: &'a Scene,
    pub(in crate::io::json) file: &'a Path,
    pub(in crate::io::json) names: &'a BTreeMap<String, usize>,
}

impl SaveCx<'_> {
    /// The format cannot hold `feature` (the node at `context` uses it).
    pub(in crate::io::json) fn unsupported(&self, context: &str, feature: &'static str) -> IoError {
        IoError::Unsupported {
            file: self.file.to_owned(),
            context: context.to_owned(),
            feature,
        }
    }

    /// A scene error at `context`.
    pub(in crate::io::json) fn scene_err<'c>(
        &self,
        context: &'c str,
    ) -> impl Fn(crate::SceneError) -> IoError + 'c {
        let file = self.file.to_owned();
        move |source| IoError::Scene {
            file: file.clone(),
            context: context.to_owned(),
            source,
        }
    }
}
