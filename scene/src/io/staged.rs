//! All-or-nothing imports: an importer builds under a detached staging group, and only a
//! complete result is moved under its parent.

use super::error::IoError;
use super::imported::Imported;
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;

/// Runs an importer's `build` under a detached staging group, then moves the nodes it made
/// under `parent`: all or nothing — on any error the scene is left as it was. Sets
/// `Imported::roots` to the moved nodes.
pub(crate) fn build_staged(
    scene: &mut Scene,
    parent: NodeId,
    label: &str,
    scene_err: impl Fn(&str, SceneError) -> IoError,
    build: impl FnOnce(&mut Scene, NodeId) -> Result<Imported, IoError>,
) -> Result<Imported, IoError> {
    let staging = scene
        .create_group(label)
        .map_err(|e| scene_err("scene", e))?;
    let mut imported = match build(scene, staging) {
        Ok(imported) => imported,
        Err(e) => {
            let _ = scene.remove(staging);
            return Err(e);
        }
    };
    // One bulk move (linear): moving the nodes one by one scans the staging group's child
    // list each time, which made 10^5 top-level nodes quadratic.
    let top = match scene.move_children(staging, parent) {
        Ok(top) => top,
        Err(e) => {
            let _ = scene.remove(staging);
            return Err(scene_err("attaching the imported nodes", e));
        }
    };
    let _ = scene.remove(staging);
    imported.roots = top;
    Ok(imported)
}
