//! The state of one glTF import (the file, its folder, the options, the loaded buffers and
//! the decoded images) and its error helpers, shared by the importer and its readers
//! (accessors, primitives, materials, animation channels), which import it and not the
//! importer.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use plumb_raster::texture::Texture;

use crate::io::error::IoError;
use crate::io::texture_image::TextureBudget;
use crate::io::ImportOptions;
use crate::values::error::SceneError;

/// Shared state of one import: the file, its folder, the options and the loaded buffers,
/// plus caches of decoded textures.
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a Path,
    pub(crate) base: &'a Path,
    pub(crate) options: &'a ImportOptions,
    pub(crate) buffers: Vec<Vec<u8>>,
    pub(crate) images: BTreeMap<usize, Arc<Texture>>,
    /// Decoded texture bytes of this import, against the options' limit.
    pub(crate) texture_budget: TextureBudget,
    /// Bytes of decoded accessor data this import may still produce
    /// ([`ImportOptions::max_geometry_bytes`]); a `Cell` because readers take `&self`.
    pub(crate) geometry_left: std::cell::Cell<u64>,
    /// Buffer views decoded from `EXT_meshopt_compression` streams, by view index: their
    /// bytes, in place of the parent buffer's.
    pub(crate) views: BTreeMap<usize, Vec<u8>>,
}

impl Ctx<'_> {
    /// The bytes of buffer `view`: its decoded stream when it is compressed, else its range
    /// of its buffer; `None` when that range lies outside the loaded buffer.
    pub(crate) fn view_bytes(&self, view: &::gltf::buffer::View<'_>) -> Option<&[u8]> {
        if let Some(bytes) = self.views.get(&view.index()) {
            return Some(bytes);
        }
        let buffer = self.buffers.get(view.buffer().index())?;
        let end = view.offset().checked_add(view.length())?;
        buffer.get(view.offset()..end)
    }

    pub(crate) fn invalid(&self, context: &str, message: String) -> IoError {
        IoError::Invalid {
            file: self.file.to_owned(),
            location: None,
            context: context.to_owned(),
            message,
        }
    }

    pub(crate) fn non_finite(&self, context: &str, what: &'static str) -> IoError {
        IoError::NonFinite {
            file: self.file.to_owned(),
            location: None,
            context: context.to_owned(),
            what,
        }
    }

    pub(crate) fn scene_err(&self, context: &str, source: SceneError) -> IoError {
        match source {
            SceneError::NonFinite { what } => self.non_finite(context, what),
            source => IoError::Scene {
                file: self.file.to_owned(),
                context: context.to_owned(),
                source,
            },
        }
    }
}

/// `node 3 'wheel'` or `node 3`.
pub(super) fn node_label(n: &::gltf::Node<'_>) -> String {
    match n.name() {
        Some(name) => format!("node {} '{name}'", n.index()),
        None => format!("node {}", n.index()),
    }
}
