//! Render-state propagation (Eberly's `UpdateRS`, book §3.8): what the user set on nodes
//! (global states, lights, effects) versus what each geometry leaf is drawn with.
//!
//! * **Intent** — set by the user on any node (see [`intent`](crate::graph::intent)): at most one
//!   [`GlobalState`](crate::values::state::GlobalState) per [`StateKind`](crate::values::state::StateKind), a
//!   list of attached lights ([`Scene::attach_light`]) and one [`Effect`]. Read back with
//!   [`Scene::global_states`], [`Scene::attached_lights`], [`Scene::effect`].
//! * **Resolved** — computed by [`Scene::update`] for every geometry leaf under the root and
//!   stored apart from the intent ([`Scene::resolved`]): for each kind, the state of the
//!   **deepest** node on the root→leaf path that has one (the leaf itself included), else the
//!   book default; the lights of every node on the path, **root first**, each node's list in its
//!   own order; and the nearest ancestor group carrying a global texture effect.
//!
//! Setting or removing a state, attaching or detaching a light, setting an effect (the edits
//! are in [`intent`](crate::graph::intent)) and any topology change (attach, detach, reparent) mark
//! the node; the next update re-resolves only
//! marked subtrees (walking down from the root along marked paths, so ancestors' states are
//! always seen — the book's `PropagateStateFromRoot`). Leaves with identical inputs share one
//! resolved record (`Arc`), so a large uniform subtree costs one allocation.
//!
//! States are values here, not shared pointers as in the book: changing a state means setting
//! it again (which marks the node). Lights are shared by id, so editing a light's parameters
//! needs no update.

use std::sync::Arc;

use crate::graph::node::Node;
use crate::graph::{NodeId, Scene};
use crate::values::effect::Effect;
use crate::values::error::SceneError;

pub use crate::graph::node::ResolvedRender;

impl Scene {
    /// What a geometry leaf is drawn with, as of the last update (the defaults before the
    /// first update that reached it).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`].
    pub fn resolved(&self, id: NodeId) -> Result<&ResolvedRender, SceneError> {
        static DEFAULT: std::sync::OnceLock<ResolvedRender> = std::sync::OnceLock::new();
        let n = self.node(id)?;
        if !n.data.kind().is_leaf() {
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
        if self.node(root).map_or(true, |n| !n.render_stale()) {
            return 0;
        }
        let mut count = 0;
        let base = Arc::new(ResolvedRender::default());
        let mut stack: Vec<(u32, Arc<ResolvedRender>, bool)> = vec![(root.index(), base, false)];
        // The last resolved state made from an intent, with what it was made from: siblings
        // with equal states and lights under the same inherited state (every leaf of an
        // imported file carries its material) share one `ResolvedRender` instead of a copy
        // each — a 10⁶-leaf glTF held 10⁶ equal copies. The value is a pure function of
        // (inherited, states, lights), so sharing changes nothing but memory.
        let mut last: Option<(Arc<ResolvedRender>, RenderIntentKey, Arc<ResolvedRender>)> = None;
        while let Some((index, inherited, force)) = stack.pop() {
            let id = self.nodes.id_at(index);
            let Some(node) = self.nodes.at_mut(index) else {
                continue;
            };
            let recompute = force || node.render_changed();
            node.clear_render();
            let is_leaf = node.data.kind().is_leaf();
            let here = match &node.intent {
                Some(intent)
                    if !intent.states.is_empty()
                        || !intent.lights.is_empty()
                        || (!is_leaf
                            && matches!(intent.effect.as_deref(), Some(Effect::Textures(_)))) =>
                {
                    let global =
                        !is_leaf && matches!(intent.effect.as_deref(), Some(Effect::Textures(_)));
                    let reuse = last.as_ref().filter(|(from, key, _)| {
                        !global
                            && Arc::ptr_eq(from, &inherited)
                            && key.states == intent.states
                            && key.lights == intent.lights
                    });
                    match reuse {
                        Some((_, _, r)) => Arc::clone(r),
                        None => {
                            let mut r = (*inherited).clone();
                            for s in &intent.states {
                                r.states.set(*s);
                            }
                            r.lights.extend_from_slice(&intent.lights);
                            if global {
                                r.global_effect = Some(id);
                            }
                            let r = Arc::new(r);
                            if !global {
                                let key = RenderIntentKey {
                                    states: intent.states.clone(),
                                    lights: intent.lights.clone(),
                                };
                                last = Some((Arc::clone(&inherited), key, Arc::clone(&r)));
                            }
                            r
                        }
                    }
                }
                _ => inherited,
            };
            let Some(node) = self.nodes.at_mut(index) else {
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
                let dirty = self.at(c).is_some_and(Node::render_stale);
                if recompute || dirty {
                    stack.push((c, Arc::clone(&here), recompute));
                }
            }
        }
        count
    }
}

/// What a resolved state was made from besides the inherited one (see
/// `resolve_render_state`).
struct RenderIntentKey {
    states: Vec<crate::values::state::GlobalState>,
    lights: Vec<crate::values::id::LightId>,
}
