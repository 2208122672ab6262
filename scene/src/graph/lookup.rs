//! Finding nodes and named objects: pre-order walks, lookup of nodes by name, and the book's
//! `GetObjectByName` / `GetAllObjectsByName` across nodes, lights, effects and controllers
//! (book §3, "Names / IDs"), deterministic when names repeat.
//!
//! Nodes carry their own name ([`Scene::set_name`]); lights, effects and controllers are named
//! in the scene's name table ([`Scene::set_object_name`]). The scene-file loader names lights
//! after the file's light names where it records them. The search order is the book's: each
//! node in pre-order from the root, then that node's transform controllers, mesh controllers,
//! effect and attached lights (in list order); after the walk, lights attached to no node (in
//! table order) and the IK controllers (in the order they were added). A light attached to
//! several nodes is found once, at its first attachment.

use std::collections::BTreeSet;

use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::id::{LightId, ObjectRef};

impl Scene {
    /// A node's path for messages, as the scene-file loader's error contexts write it: `root`
    /// (whatever the root's name), then names joined by `/` (`root/arm/hand`), an unnamed
    /// node as `#index` among its parent's children; `?` for a stale id. A path of more than
    /// 12 nodes shows its first and last 4 (`root/a/b/c/…9 levels…/w/x/y/z`).
    pub(crate) fn path_of(&self, id: NodeId) -> String {
        let mut parts = Vec::new();
        let mut at = Some(id);
        while let Some(n) = at {
            let Ok(node) = self.node(n) else {
                parts.push("?".to_owned());
                break;
            };
            let parent = node.parent;
            parts.push(match parent {
                None => "root".to_owned(),
                Some(_) if !node.name.is_empty() => node.name.clone(),
                Some(p) => {
                    let i = self
                        .node(p)
                        .ok()
                        .and_then(|p| p.children.iter().position(|&c| c == n))
                        .unwrap_or(0);
                    format!("#{i}")
                }
            });
            at = parent;
        }
        parts.reverse();
        // A deep path (an instance tree may be thousands of levels deep) keeps its ends.
        const ENDS: usize = 4;
        if parts.len() > 3 * ENDS {
            let hidden = parts.len() - 2 * ENDS;
            parts.splice(ENDS..parts.len() - ENDS, [format!("…{hidden} levels…")]);
        }
        parts.join("/")
    }

    /// Pre-order walk of the subtree at `from` (itself first, children in order).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn preorder(&self, from: NodeId) -> Result<Vec<NodeId>, SceneError> {
        self.node(from)?;
        let mut out = Vec::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            if let Ok(node) = self.node(n) {
                out.push(n);
                stack.extend(node.children.iter().rev());
            }
        }
        Ok(out)
    }

    /// All attached nodes called `name`, in pre-order from the root (deterministic when names
    /// repeat).
    pub fn find_all(&self, name: &str) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(n) = stack.pop() {
            if let Ok(node) = self.node(n) {
                if node.name == name {
                    out.push(n);
                }
                stack.extend(node.children.iter().rev());
            }
        }
        out
    }

    /// The first attached node called `name` in pre-order from the root.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        let mut stack = vec![self.root()];
        while let Some(n) = stack.pop() {
            if let Ok(node) = self.node(n) {
                if node.name == name {
                    return Some(n);
                }
                stack.extend(node.children.iter().rev());
            }
        }
        None
    }

    /// Names a light, effect or controller (an empty name removes it); a node is renamed as
    /// by [`Scene::set_name`].
    ///
    /// # Errors
    /// [`SceneError::StaleId`] / [`SceneError::UnknownLight`] for an object that does not
    /// exist, and [`SceneError::InvalidArgument`] for a controller index past the end or
    /// [`ObjectRef::Effect`] of a node without an effect.
    pub fn set_object_name(
        &mut self,
        object: ObjectRef,
        name: impl Into<String>,
    ) -> Result<(), SceneError> {
        let name = name.into();
        match object {
            ObjectRef::Node(id) => return self.set_name(id, name),
            ObjectRef::Light(id) => {
                self.light(id)?;
            }
            ObjectRef::Effect(id) => {
                if self.effect(id)?.is_none() {
                    return Err(SceneError::InvalidArgument {
                        what: "object",
                        message: format!("node {id} has no effect to name"),
                    });
                }
            }
            ObjectRef::Controller(i) => check_index(i, self.controllers.len())?,
            ObjectRef::MeshController(i) => check_index(i, self.mesh_controllers.len())?,
            ObjectRef::IkController(i) => check_index(i, self.ik_controllers.len())?,
        }
        if name.is_empty() {
            self.object_names.remove(&object);
        } else {
            self.object_names.insert(object, name);
        }
        Ok(())
    }

    /// The name of an object (`None` when it has none or does not exist; a node's name may be
    /// empty).
    pub fn object_name(&self, object: ObjectRef) -> Option<&str> {
        match object {
            ObjectRef::Node(id) => self.node(id).ok().map(|n| n.name.as_str()),
            ObjectRef::Effect(id) if self.effect(id).ok().flatten().is_none() => None,
            other => self.object_names.get(&other).map(String::as_str),
        }
    }

    /// Every object in the book's search order (see the [module docs](self)).
    pub fn objects(&self) -> Vec<ObjectRef> {
        let mut out = Vec::new();
        let mut seen: BTreeSet<LightId> = BTreeSet::new();
        for id in self.preorder(self.root()).unwrap_or_default() {
            out.push(ObjectRef::Node(id));
            for (i, (n, _)) in self.controllers.iter().enumerate() {
                if *n == id {
                    out.push(ObjectRef::Controller(i));
                }
            }
            for (i, (n, _)) in self.mesh_controllers.iter().enumerate() {
                if *n == id {
                    out.push(ObjectRef::MeshController(i));
                }
            }
            if matches!(self.effect(id), Ok(Some(_))) {
                out.push(ObjectRef::Effect(id));
            }
            for &l in self.attached_lights(id).unwrap_or_default() {
                if seen.insert(l) {
                    out.push(ObjectRef::Light(l));
                }
            }
        }
        for i in 0..self.lights.len() {
            let l = LightId(u32::try_from(i).unwrap_or(u32::MAX));
            if seen.insert(l) {
                out.push(ObjectRef::Light(l));
            }
        }
        out.extend((0..self.ik_controllers.len()).map(ObjectRef::IkController));
        out
    }

    /// The first object called `name` in the book's search order (nodes, controllers,
    /// effects, lights; see the [module docs](self)). An empty name finds nothing.
    pub fn find_object(&self, name: &str) -> Option<ObjectRef> {
        if name.is_empty() {
            return None;
        }
        self.objects()
            .into_iter()
            .find(|o| self.object_name(*o) == Some(name))
    }

    /// Every object called `name`, in the book's search order.
    pub fn find_all_objects(&self, name: &str) -> Vec<ObjectRef> {
        if name.is_empty() {
            return Vec::new();
        }
        self.objects()
            .into_iter()
            .filter(|o| self.object_name(*o) == Some(name))
            .collect()
    }

    /// The first light called `name` (in the search order of [`Scene::find_object`]).
    pub fn find_light(&self, name: &str) -> Option<LightId> {
        self.find_all_objects(name)
            .into_iter()
            .find_map(|o| match o {
                ObjectRef::Light(l) => Some(l),
                _ => None,
            })
    }
}

fn check_index(index: usize, len: usize) -> Result<(), SceneError> {
    if index < len {
        Ok(())
    } else {
        Err(SceneError::InvalidArgument {
            what: "controller index",
            message: format!("{index} is past the {len} controllers of its kind"),
        })
    }
}
