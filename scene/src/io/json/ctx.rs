//! The build context of a scene file: what building needs besides the scene (the file, its
//! folder, the options, the names defined so far, the imported record) and the error helpers
//! that give every error its file, context and, when known, line and column. Shared by
//! [`build`](super::build) and the effect builder, which import it and not each other.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb_raster::texture::Texture;

use super::doc::{CameraDoc, EffectDoc, IkDoc, Real3, Real4, SkinDoc};
use super::locate::Locations;
use crate::graph::NodeId;
use crate::io::budget::{Budget, Over, Spent};
use crate::io::error::{BudgetError, IoError, Location};
use crate::io::imported::Imported;
use crate::io::texture_image::TextureBudget;
use crate::io::ImportOptions;
use crate::values::camera::Camera;
use crate::values::error::SceneError;
use crate::values::id::LightId;

/// A document vector as a `glam` one.
pub(super) fn v3(r: &Real3) -> Vec3 {
    Vec3::new(r[0].get(), r[1].get(), r[2].get())
}

/// A document colour or quaternion as a `glam` vector.
pub(super) fn v4(r: &Real4) -> Vec4 {
    Vec4::new(r[0].get(), r[1].get(), r[2].get(), r[3].get())
}

/// Everything the build needs besides the scene.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a Path,
    pub(super) dir: &'a Path,
    pub(super) options: &'a ImportOptions,
    pub(super) textures: BTreeMap<&'a str, Arc<Texture>>,
    pub(super) lights: BTreeMap<&'a str, LightId>,
    pub(super) cameras: BTreeMap<&'a str, (&'a CameraDoc, Camera)>,
    /// Every node by name (pre-order), for effect references.
    pub(super) names: BTreeMap<String, Vec<NodeId>>,
    /// Effects to set once all nodes exist: node, its path, the effect.
    pub(super) effects: Vec<(NodeId, String, &'a EffectDoc)>,
    pub(super) imported: Imported,
    /// IK controllers to build once all nodes exist: error context, the document.
    pub(super) iks: Vec<(String, IkDoc)>,
    /// Skin controllers to build once all nodes exist (their bones are named): the skinned
    /// node, error context, the document.
    pub(super) skins: Vec<(NodeId, String, SkinDoc)>,
    /// Where objects start in the file (empty for documents made in code).
    pub(super) locations: &'a Locations,
    /// Error context (node path, `texture 't'`, …) → JSON pointer of its object.
    pub(super) pointers: BTreeMap<String, String>,
    /// Decoded texture bytes of the whole load (this file's textures and its imports').
    pub(super) texture_budget: TextureBudget,
    /// Geometry bytes the imports may still decode
    /// ([`ImportOptions::max_geometry_bytes`], for the whole load, not per imported file).
    pub(super) geometry_left: u64,
    /// Scene nodes the imports may still create ([`ImportOptions::max_nodes`], for the whole
    /// load: importing one file many times cannot multiply it).
    pub(super) import_nodes_left: usize,
    /// The work charged so far against [`ImportOptions::budget`] (a cell: meshes are built
    /// through a shared `&Ctx`).
    pub(super) spent: Cell<Spent>,
}

impl Ctx<'_> {
    /// Charges `amount` of `budget` for the object `context` before its work is done;
    /// `item` says what it asks for (`a sphere of 2097152 triangles`).
    ///
    /// # Errors
    /// [`IoError::Budget`] when the load's total would pass [`ImportOptions::budget`].
    pub(super) fn charge(
        &self,
        context: &str,
        budget: Budget,
        amount: u64,
        item: impl FnOnce() -> String,
    ) -> Result<(), IoError> {
        let mut spent = self.spent.get();
        match spent.charge(&self.options.budget, budget, amount) {
            Ok(()) => {
                self.spent.set(spent);
                Ok(())
            }
            Err(over) => Err(self.over(context, item(), over)),
        }
    }

    /// The [`IoError::Budget`] of a charge that does not fit.
    pub(super) fn over(&self, context: &str, item: String, over: Over) -> IoError {
        IoError::Budget(Box::new(BudgetError {
            file: self.file.to_owned(),
            location: self.location(context),
            context: context.to_owned(),
            item,
            budget: over.budget,
            amount: over.amount,
            total: over.total,
            max: over.max,
        }))
    }

    /// The one node called `name`, for an IK or skin controller.
    pub(super) fn named(&self, context: &str, name: &str) -> Result<NodeId, IoError> {
        match self.names.get(name).map(Vec::as_slice) {
            Some([id]) => Ok(*id),
            Some(_) => Err(self.invalid(context, format!("more than one node is called '{name}'"))),
            None => Err(self.invalid(context, format!("unknown node '{name}'"))),
        }
    }

    pub(super) fn location(&self, context: &str) -> Option<Location> {
        self.pointers
            .get(context)
            .and_then(|p| self.locations.get(p))
    }

    /// Records the JSON pointer of an error context (the first one of a path wins).
    pub(super) fn point(&mut self, context: &str, pointer: String) {
        self.pointers.entry(context.to_owned()).or_insert(pointer);
    }

    pub(super) fn invalid(&self, context: &str, message: impl Into<String>) -> IoError {
        IoError::Invalid {
            file: self.file.to_owned(),
            location: self.location(context),
            context: context.to_owned(),
            message: message.into(),
        }
    }

    pub(super) fn scene_err(&self, context: &str) -> impl Fn(SceneError) -> IoError + '_ {
        let context = match self.location(context) {
            Some(l) => format!("{context} (at {l})"),
            None => context.to_owned(),
        };
        move |source| IoError::Scene {
            file: self.file.to_owned(),
            context: context.clone(),
            source,
        }
    }
}
