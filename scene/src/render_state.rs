//! Render-state propagation (Eberly's `UpdateRS`, book §3.8): what the user set on nodes
//! (global states, lights, effects) versus what each geometry leaf is drawn with.
//!
//! * **Intent** — set by the user on any node: at most one [`GlobalState`] per
//!   [`StateKind`], a list of attached lights ([`Scene::attach_light`]) and one [`Effect`].
//!   Read back with [`Scene::global_states`], [`Scene::attached_lights`], [`Scene::effect`].
//! * **Resolved** — computed by [`Scene::update`] for every geometry leaf under the root and
//!   stored apart from the intent ([`Scene::resolved`]): for each kind, the state of the
//!   **deepest** node on the root→leaf path that has one (the leaf itself included), else the
//!   book default; the lights of every node on the path, **root first**, each node's list in its
//!   own order; and the nearest ancestor group carrying a global texture effect.
//!
//! Setting or removing a state, attaching or detaching a light, setting an effect and any
//! topology change (attach, detach, reparent) mark the node; the next update re-resolves only
//! marked subtrees (walking down from the root along marked paths, so ancestors' states are
//! always seen — the book's `PropagateStateFromRoot`). Leaves with identical inputs share one
//! resolved record (`Arc`), so a large uniform subtree costs one allocation.
//!
//! States are values here, not shared pointers as in the book: changing a state means setting
//! it again (which marks the node). Lights are shared by id, so editing a light's parameters
//! needs no update.

use std::sync::Arc;

use crate::effect::Effect;
use crate::error::SceneError;
use crate::graph::{NodeData, NodeId, Scene};
use crate::light::LightId;
use crate::state::{GlobalState, RenderStates, StateKind};

/// Render-state inputs of this node changed (or it was attached): re-resolve its subtree.
pub(crate) const RS_DIRTY: u8 = 1;
/// Some descendant is marked: walk through this node.
pub(crate) const RS_DESCENDANT: u8 = 2;

/// What the user set on one node.
#[derive(Debug, Clone, Default)]
pub(crate) struct RenderIntent {
    pub(crate) states: Vec<GlobalState>,
    pub(crate) lights: Vec<LightId>,
    pub(crate) effect: Option<Arc<Effect>>,
}

/// What a geometry leaf is drawn with, as resolved by the last update.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedRender {
    /// One state of each kind: the deepest on the path, else the default.
    pub states: RenderStates,
    /// Every light on the path, root first (not truncated; the renderer takes the first
    /// [`MAX_LIGHTS`](crate::light::MAX_LIGHTS)).
    pub lights: Vec<LightId>,
    /// The nearest ancestor group with a global texture effect ([`Effect::Textures`]).
    pub global_effect: Option<NodeId>,
}

impl Default for ResolvedRender {
    fn default() -> Self {
        ResolvedRender {
            states: RenderStates::DEFAULT,
            lights: Vec::new(),
            global_effect: None,
        }
    }
}

impl Scene {
    /// Marks `id` for re-resolution and its ancestors as having a marked descendant.
    pub(crate) fn mark_render(&mut self, id: NodeId) {
        let Ok(node) = self.node_mut(id) else {
            return;
        };
        node.rs_flags |= RS_DIRTY;
        let mut cur = node.parent;
        while let Some(p) = cur {
            let Ok(pn) = self.node_mut(p) else {
                return;
            };
            if pn.rs_flags & RS_DESCENDANT != 0 {
                return;
            }
            pn.rs_flags |= RS_DESCENDANT;
            cur = pn.parent;
        }
    }

    /// Sets a global state on a node, replacing one of the same kind.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NonFinite`].
    pub fn set_global_state(&mut self, id: NodeId, state: GlobalState) -> Result<(), SceneError> {
        if !state.is_finite() {
            return Err(SceneError::NonFinite {
                what: "global state",
            });
        }
        let n = self.node_mut(id)?;
        let intent = n.intent.get_or_insert_with(Default::default);
        match intent.states.iter_mut().find(|s| s.kind() == state.kind()) {
            Some(s) => *s = state,
            None => intent.states.push(state),
        }
        self.mark_render(id);
        Ok(())
    }

    /// Removes the node's state of `kind`; returns it if there was one.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn remove_global_state(
        &mut self,
        id: NodeId,
        kind: StateKind,
    ) -> Result<Option<GlobalState>, SceneError> {
        let n = self.node_mut(id)?;
        let removed = n.intent.as_mut().and_then(|i| {
            let at = i.states.iter().position(|s| s.kind() == kind)?;
            Some(i.states.remove(at))
        });
        if removed.is_some() {
            self.mark_render(id);
        }
        Ok(removed)
    }

    /// The global states set on the node itself (intent), in the order first set.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn global_states(&self, id: NodeId) -> Result<&[GlobalState], SceneError> {
        Ok(self
            .node(id)?
            .intent
            .as_ref()
            .map_or(&[][..], |i| &i.states[..]))
    }

    /// The node's own state of `kind`, if set.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn global_state(
        &self,
        id: NodeId,
        kind: StateKind,
    ) -> Result<Option<GlobalState>, SceneError> {
        Ok(self
            .global_states(id)?
            .iter()
            .find(|s| s.kind() == kind)
            .copied())
    }

    /// Sets (or with `None` removes) the node's effect. Local-only effects (vertex colours,
    /// gloss, bump) need a geometry leaf; scene effects (planar shadow / reflection) need a
    /// group.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::EffectPlacement`].
    pub fn set_effect(&mut self, id: NodeId, effect: Option<Effect>) -> Result<(), SceneError> {
        let n = self.node(id)?;
        if let Some(e) = &effect {
            let leaf = matches!(n.data, NodeData::Geometry(_));
            if (leaf && !e.is_local()) || (!leaf && !e.is_global()) {
                return Err(SceneError::EffectPlacement {
                    effect: e.name(),
                    node: n.name.clone(),
                });
            }
            if matches!(
                e,
                Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. }
            ) {
                self.has_scene_effects = true;
            }
        }
        let n = self.node_mut(id)?;
        n.intent.get_or_insert_with(Default::default).effect = effect.map(Arc::new);
        self.mark_render(id);
        Ok(())
    }

    /// The node's effect, if any.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn effect(&self, id: NodeId) -> Result<Option<&Effect>, SceneError> {
        Ok(self
            .node(id)?
            .intent
            .as_ref()
            .and_then(|i| i.effect.as_deref()))
    }

    /// What a geometry leaf is drawn with, as of the last update (the defaults before the
    /// first update that reached it).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`].
    pub fn resolved(&self, id: NodeId) -> Result<&ResolvedRender, SceneError> {
        static DEFAULT: std::sync::OnceLock<ResolvedRender> = std::sync::OnceLock::new();
        let n = self.node(id)?;
        if !matches!(n.data, NodeData::Geometry(_)) {
            return Err(SceneError::NotAGeometry(n.name.clone()));
        }
        Ok(n.resolved
            .as_deref()
            .unwrap_or_else(|| DEFAULT.get_or_init(ResolvedRender::default)))
    }

    /// Re-resolves every marked subtree under the root (called by `update`). Returns the
    /// number of geometry leaves re-resolved.
    pub(crate) fn resolve_render_state(&mut self) -> usize {
        let root = self.root();
        if self.node(root).map_or(true, |n| n.rs_flags == 0) {
            return 0;
        }
        let mut count = 0;
        let base = Arc::new(ResolvedRender::default());
        let mut stack: Vec<(u32, Arc<ResolvedRender>, bool)> = vec![(root.index(), base, false)];
        while let Some((index, inherited, force)) = stack.pop() {
            let generation = self.slots[index as usize].generation;
            let Some(node) = self.slots[index as usize].node.as_mut() else {
                continue;
            };
            let recompute = force || node.rs_flags & RS_DIRTY != 0;
            node.rs_flags = 0;
            let is_leaf = matches!(node.data, NodeData::Geometry(_));
            let here = match &node.intent {
                Some(intent)
                    if !intent.states.is_empty()
                        || !intent.lights.is_empty()
                        || (!is_leaf
                            && matches!(intent.effect.as_deref(), Some(Effect::Textures(_)))) =>
                {
                    let mut r = (*inherited).clone();
                    for s in &intent.states {
                        r.states.set(*s);
                    }
                    r.lights.extend_from_slice(&intent.lights);
                    if !is_leaf && matches!(intent.effect.as_deref(), Some(Effect::Textures(_))) {
                        r.global_effect = Some(NodeId::from_parts(index, generation));
                    }
                    Arc::new(r)
                }
                _ => inherited,
            };
            let Some(node) = self.slots[index as usize].node.as_mut() else {
                continue;
            };
            if is_leaf {
                if recompute {
                    node.resolved = Some(here);
                    count += 1;
                }
                continue;
            }
            let children: Vec<u32> = node.children.iter().map(|c| c.index()).collect();
            for &c in children.iter().rev() {
                let dirty = self.at(c).is_some_and(|n| n.rs_flags != 0);
                if recompute || dirty {
                    stack.push((c, Arc::clone(&here), recompute));
                }
            }
        }
        count
    }
}
