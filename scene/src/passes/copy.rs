//! Deep copy of a subtree (the book's `Object::Copy`, §3 "Cloning"): the nodes with their
//! kind and the kind's data (each kind's file under [`nodes`](crate::nodes) says how it is
//! copied), name, local transform, culling, global states; the
//! lights attached inside the subtree (copied into the light table, so the copies can be
//! changed alone); the effects, with node and light references that point into the subtree
//! re-targeted to the copies (planar shadow and reflection planes, bump-map and shadow
//! lights); and the names of copied lights and effects. Meshes and textures are **shared**
//! (`Arc`), as the book shares vertex and texture data between copies.
//!
//! Names get [`CopyOptions::name_suffix`] appended (the book's `NameAppend`, `'#'`).
//!
//! The node kinds that came after the book's list are copied with their data:
//!
//! * a **BSP node** ([`bsp`](crate::nodes::bsp)) keeps its plane (as given and normalised) and the
//!   role of each child: a child in the positive, coplanar or negative slot is the copy's
//!   child in the same slot;
//! * a **region manager** ([`region_manager`](crate::nodes::region_manager)) is a BSP node and is copied as one, with
//!   its manager flag; a **convex region** keeps its portals, in order, with their vertices
//!   and open flags. A portal leading to a region inside the copied subtree leads to that
//!   region's copy; one leading outside it keeps its target (as effects keep references to
//!   nodes outside the subtree), so a copied room still opens onto the original's neighbour;
//! * a **layer node** ([`layer`](crate::graph::layer)) keeps its clear region, so the copy is a
//!   layer of its own;
//! * a mesh's **active count** ([`Mesh::with_active_count`](crate::Mesh::with_active_count))
//!   is part of the shared mesh, so the copy draws the same prefix.
//!
//! Refused ([`SceneError::InvalidArgument`], naming the node), before anything is created:
//! subtrees with controllers (transform, mesh, IK) or particle systems — a controller is a
//! trait object that cannot clone itself yet. A copy that runs into the node or depth limit
//! half way is removed again, so the scene is unchanged on error.

use std::collections::BTreeMap;

use crate::graph::{NodeId, Scene};
use crate::nodes::hooks;
use crate::values::effect::Effect;
use crate::values::error::SceneError;
use crate::values::id::{LightId, ObjectRef};

/// How [`Scene::deep_copy_with`] copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyOptions {
    /// Appended to the name of every copied node, light and effect (default `"#"`, the
    /// book's; empty keeps the names).
    pub name_suffix: String,
    /// Copy the lights attached inside the subtree (default `true`); `false` attaches the
    /// same lights to the copies.
    pub copy_lights: bool,
}

impl Default for CopyOptions {
    fn default() -> Self {
        CopyOptions {
            name_suffix: "#".to_owned(),
            copy_lights: true,
        }
    }
}

impl Scene {
    /// Deep-copies the subtree at `node` as the last child of `new_parent` with the default
    /// [`CopyOptions`]; returns the copy of `node`.
    ///
    /// # Errors
    /// As [`Scene::deep_copy_with`].
    pub fn deep_copy(&mut self, node: NodeId, new_parent: NodeId) -> Result<NodeId, SceneError> {
        self.deep_copy_with(node, new_parent, &CopyOptions::default())
    }

    /// Deep-copies the subtree at `node` as the last child of `new_parent` (which may lie
    /// inside the subtree: the subtree is read before anything is added); see the
    /// [module docs](self) for what is copied, shared and refused.
    ///
    /// # Errors
    /// [`SceneError::StaleId`]; [`SceneError::InvalidArgument`] for the root or a subtree with
    /// controllers or particles; [`SceneError::NotAGroup`] when `new_parent` is a geometry
    /// leaf; the node and depth limits.
    pub fn deep_copy_with(
        &mut self,
        node: NodeId,
        new_parent: NodeId,
        options: &CopyOptions,
    ) -> Result<NodeId, SceneError> {
        self.node(new_parent)?;
        let nodes = self.preorder(node)?;
        if node == self.root() {
            return Err(refuse("the root cannot be copied (copy its children)"));
        }
        for &id in &nodes {
            let name = &self.node(id)?.name;
            if self.controllers.iter().any(|(n, _)| *n == id)
                || self.mesh_controllers.iter().any(|(n, _)| *n == id)
            {
                return Err(refuse(&format!(
                    "node '{name}' has a controller; controllers cannot be copied yet"
                )));
            }
            if self.is_particles(id) {
                return Err(refuse(&format!(
                    "node '{name}' is a particle system; particles cannot be copied yet"
                )));
            }
        }
        let in_ik = self.ik_controllers.iter().any(|ik| {
            ik.joints().iter().any(|j| nodes.contains(&j.node()))
                || ik
                    .goals()
                    .iter()
                    .any(|g| nodes.contains(&g.target()) || nodes.contains(&g.effector()))
        });
        if in_ik {
            return Err(refuse(
                "the subtree holds IK joints or goals; IK controllers cannot be copied yet",
            ));
        }
        let mut map: BTreeMap<NodeId, NodeId> = BTreeMap::new();
        let result = self.copy_nodes(&nodes, new_parent, options, &mut map);
        match result {
            Ok(()) => map
                .get(&node)
                .copied()
                .ok_or_else(|| refuse("the copy of the subtree's root is missing")),
            Err(e) => {
                if let Some(&copy) = map.get(&node) {
                    // Undo: the copy is one subtree under `new_parent`.
                    let _ = self.remove(copy);
                }
                Err(e)
            }
        }
    }

    fn copy_nodes(
        &mut self,
        nodes: &[NodeId],
        new_parent: NodeId,
        options: &CopyOptions,
        map: &mut BTreeMap<NodeId, NodeId>,
    ) -> Result<(), SceneError> {
        let suffix = &options.name_suffix;
        // 1. The nodes, parents before children (pre-order).
        for (k, &id) in nodes.iter().enumerate() {
            let n = self.node(id)?.clone();
            let parent = if k == 0 {
                new_parent
            } else {
                n.parent
                    .and_then(|p| map.get(&p).copied())
                    .unwrap_or(new_parent)
            };
            let name = format!("{}{suffix}", n.name);
            // The kind's own data; links to other nodes come in step 3.
            let copy = hooks(&n.data).copy_node(self, parent, name)?;
            if let Some(clear) = self.clears.get(&id).copied() {
                self.set_clear(copy, Some(clear))?;
            }
            if !n.local.is_identity() {
                self.set_local_transform(copy, n.local)?;
            }
            self.set_culling(copy, n.cull)?;
            map.insert(id, copy);
        }
        // 2. Lights attached inside the subtree.
        let mut lights: BTreeMap<LightId, LightId> = BTreeMap::new();
        if options.copy_lights {
            for &id in nodes {
                for &l in self.attached_lights(id)?.to_vec().iter() {
                    if let std::collections::btree_map::Entry::Vacant(slot) = lights.entry(l) {
                        let copy = self.add_light(*self.light(l)?)?;
                        slot.insert(copy);
                        if let Some(name) = self.object_names.get(&ObjectRef::Light(l)).cloned() {
                            self.object_names
                                .insert(ObjectRef::Light(copy), format!("{name}{suffix}"));
                        }
                    }
                }
            }
        }
        let light = |l: LightId| lights.get(&l).copied().unwrap_or(l);
        let node_ref = |n: NodeId| map.get(&n).copied().unwrap_or(n);
        // 3. States, lights, effects, switch and LOD data.
        for &id in nodes {
            let copy = node_ref(id);
            for s in self.global_states(id)?.to_vec() {
                self.set_global_state(copy, s)?;
            }
            // `attach_light` puts each light in front: attach last first.
            for l in self.attached_lights(id)?.to_vec().into_iter().rev() {
                self.attach_light(copy, light(l))?;
            }
            if let Some(effect) = self.effect(id)?.cloned() {
                let effect = match effect {
                    Effect::BumpMap {
                        base,
                        normal_map,
                        light: l,
                        extra,
                    } => Effect::BumpMap {
                        base,
                        normal_map,
                        light: light(l),
                        extra,
                    },
                    Effect::PlanarShadow {
                        planes,
                        light: l,
                        color,
                    } => Effect::PlanarShadow {
                        planes: planes.into_iter().map(node_ref).collect(),
                        light: light(l),
                        color,
                    },
                    Effect::PlanarReflection { planes } => Effect::PlanarReflection {
                        planes: planes.into_iter().map(|(p, r)| (node_ref(p), r)).collect(),
                    },
                    other => other,
                };
                self.set_effect(copy, Some(effect))?;
                if let Some(name) = self.object_names.get(&ObjectRef::Effect(id)).cloned() {
                    self.object_names
                        .insert(ObjectRef::Effect(copy), format!("{name}{suffix}"));
                }
            }
            let data = self.node(id)?.data.clone();
            hooks(&data).copy_links(self, id, copy, &node_ref)?;
        }
        Ok(())
    }
}

fn refuse(message: &str) -> SceneError {
    SceneError::InvalidArgument {
        what: "deep copy",
        message: message.to_owned(),
    }
}
