//! Geometry leaves (Eberly's `Geometry`): a leaf drawing a shared [`Mesh`]. Its local
//! transform applies to the mesh, so a per-mesh "model scale" is a scaled leaf under its
//! joint. A leaf whose mesh a controller computes in world space (a skin) has its world
//! transform pinned to the identity ([`Scene::add_mesh_controller`]).

use std::sync::Arc;

use crate::graph::node::{Dirty, Geometry, NodeData};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::mesh::{Mesh, MeshTopology};

use super::kind::KindHooks;

impl KindHooks for Geometry {
    fn describe(&self, _: &Scene, _: NodeId) -> String {
        let m = &self.mesh;
        let topo = match m.topology() {
            MeshTopology::Points => "points",
            MeshTopology::Lines => "lines",
            MeshTopology::LineStrip => "line strip",
            MeshTopology::LineLoop => "line loop",
            MeshTopology::Triangles => "triangles",
        };
        let active = m
            .active_count()
            .map_or(String::new(), |a| format!(" active={a}"));
        let world = if self.world_identity {
            " world=identity"
        } else {
            ""
        };
        format!(
            "geometry {topo} vertices={} indices={}{active}{world}",
            m.positions().len(),
            m.indices().len()
        )
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        let copy = scene.add_geometry(parent, name, self.mesh.clone())?;
        if let NodeData::Geometry(g) = &mut scene.node_mut(copy)?.data {
            g.world_identity = self.world_identity;
            g.levels.clone_from(&self.levels);
        }
        if self.levels.is_some() {
            scene.level_leaves.push(copy);
        }
        Ok(copy)
    }
}

fn leaf(mesh: Arc<Mesh>) -> NodeData {
    NodeData::Geometry(Geometry {
        mesh,
        world_identity: false,
        rest: None,
        levels: None,
    })
}

impl Scene {
    /// Creates a detached geometry leaf drawing `mesh`.
    ///
    /// # Errors
    /// [`SceneError::NodeLimit`].
    pub fn create_geometry(
        &mut self,
        name: impl Into<String>,
        mesh: Arc<Mesh>,
    ) -> Result<NodeId, SceneError> {
        self.create(name.into(), leaf(mesh))
    }

    /// Creates a geometry leaf as the last child of `parent`.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_geometry(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        mesh: Arc<Mesh>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), leaf(mesh))
    }

    /// Creates a geometry leaf whose level of detail each view chooses
    /// ([`levels`](crate::values::levels)); it starts at `levels`' current index.
    ///
    /// # Errors
    /// As [`Scene::add_group`]; what building the level returns.
    pub fn add_level_geometry(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        mut levels: crate::values::levels::LevelMesh,
    ) -> Result<NodeId, SceneError> {
        let mesh = Arc::new(levels.mesh_at(levels.current())?);
        let id = self.create_under(parent, name.into(), leaf(mesh))?;
        if let NodeData::Geometry(g) = &mut self.node_mut(id)?.data {
            g.levels = Some(Box::new(levels));
        }
        self.level_leaves.push(id);
        Ok(id)
    }

    /// The levels of a level-selecting geometry leaf (`None` for any other node).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn level_mesh(
        &self,
        id: NodeId,
    ) -> Result<Option<&crate::values::levels::LevelMesh>, SceneError> {
        Ok(match &self.node(id)?.data {
            NodeData::Geometry(g) => g.levels.as_deref(),
            _ => None,
        })
    }

    /// Each level leaf's index for `camera` (world space): from the depth of its level centre
    /// along the view direction.
    pub(crate) fn choose_levels(
        &self,
        camera: &crate::values::camera::Camera,
    ) -> std::collections::BTreeMap<NodeId, usize> {
        let (eye, dir) = (camera.location(), camera.direction());
        let mut out = std::collections::BTreeMap::new();
        for &id in &self.level_leaves {
            let Some(node) = self.nodes.get(id) else {
                continue;
            };
            let NodeData::Geometry(g) = &node.data else {
                continue;
            };
            if let Some(l) = &g.levels {
                let depth = (node.world.apply_point(l.center()) - eye).dot(dir);
                out.insert(id, l.index_for_depth(depth));
            }
        }
        out
    }

    /// Shows each chosen level (rebuilding only the meshes whose index changed); returns
    /// whether any mesh changed.
    pub(crate) fn apply_levels(
        &mut self,
        chosen: &std::collections::BTreeMap<NodeId, usize>,
    ) -> bool {
        self.level_leaves.retain(|&d| self.nodes.get(d).is_some());
        let mut changed = false;
        for (&id, &i) in chosen {
            let Some(node) = self.nodes.get_mut(id) else {
                continue;
            };
            let NodeData::Geometry(g) = &mut node.data else {
                continue;
            };
            let Some(l) = &mut g.levels else {
                continue;
            };
            if l.current() == i {
                continue;
            }
            // A level that cannot be built keeps the mesh shown.
            if let Ok(m) = l.mesh_at(i) {
                let _ = self.set_controlled_mesh(id, Arc::new(m));
                changed = true;
            }
        }
        changed
    }

    /// The mesh of a geometry leaf.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`].
    pub fn mesh(&self, id: NodeId) -> Result<&Arc<Mesh>, SceneError> {
        let n = self.node(id)?;
        n.data
            .mesh()
            .ok_or_else(|| SceneError::NotAGeometry(n.name.clone()))
    }

    /// Replaces the mesh of a geometry leaf (its bound is recomputed at the next update). A
    /// skinned leaf's recorded rest mesh (what a save writes) becomes this mesh too.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`].
    pub fn set_mesh(&mut self, id: NodeId, mesh: Arc<Mesh>) -> Result<(), SceneError> {
        self.replace_mesh(id, mesh, true)
    }

    /// [`Scene::set_mesh`] for a mesh controller's result: the rest mesh is kept.
    pub(crate) fn set_controlled_mesh(
        &mut self,
        id: NodeId,
        mesh: Arc<Mesh>,
    ) -> Result<(), SceneError> {
        self.replace_mesh(id, mesh, false)
    }

    fn replace_mesh(&mut self, id: NodeId, mesh: Arc<Mesh>, rest: bool) -> Result<(), SceneError> {
        let n = self.node_mut(id)?;
        match &mut n.data {
            NodeData::Geometry(g) => {
                if rest && g.rest.is_some() {
                    g.rest = Some(Arc::clone(&mesh));
                }
                g.mesh = mesh;
            }
            _ => return Err(SceneError::NotAGeometry(n.name.clone())),
        }
        self.nodes.mark(id, Dirty::BOUND);
        Ok(())
    }

    /// Pins the world transform of the geometry leaf `id` to the identity from the next
    /// update on (a mesh controller that works in world space; see
    /// [`Scene::add_mesh_controller`]).
    pub(crate) fn pin_world_identity(&mut self, id: NodeId) -> Result<(), SceneError> {
        let n = self.node_mut(id)?;
        match &mut n.data {
            NodeData::Geometry(g) => {
                g.world_identity = true;
                g.rest.get_or_insert_with(|| Arc::clone(&g.mesh));
            }
            _ => return Err(SceneError::NotAGeometry(n.name.clone())),
        }
        self.nodes.mark(id, Dirty::TRANSFORM);
        Ok(())
    }
}
