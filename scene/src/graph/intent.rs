//! What the user sets on nodes besides transforms (the **intent** of STYLE's "intent vs
//! computed vs per-view"): global states, attached lights and effects, plus the scene's light
//! table. Every edit marks the node for render-state resolution ([`node`](crate::graph::node)); the
//! next update resolves what each geometry leaf is drawn with
//! ([`render_state`](crate::passes::render_state)).
//!
//! Lights live in the scene's light table ([`Scene::add_light`] → [`LightId`]) and are
//! **attached** to nodes with [`Scene::attach_light`]: a light lights every geometry leaf in
//! that node's subtree (rules in [`light`](crate::values::light)). Because lights are referenced by id,
//! editing one ([`Scene::set_light`]) shows up at the next draw without any update.

use std::sync::Arc;

use crate::graph::node::Dirty;
use crate::graph::{NodeId, Scene};
use crate::values::effect::Effect;
use crate::values::error::SceneError;
use crate::values::id::LightId;
use crate::values::light::SceneLight;
use crate::values::state::{GlobalState, StateKind};

impl Scene {
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
        self.nodes.mark(id, Dirty::RENDER);
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
            self.nodes.mark(id, Dirty::RENDER);
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
            let leaf = n.data.kind().is_leaf();
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
        self.nodes.mark(id, Dirty::RENDER);
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

    // ----- lights -----

    /// Adds a light to the scene's light table (not attached anywhere yet).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn add_light(&mut self, light: SceneLight) -> Result<LightId, SceneError> {
        if !light.is_finite() {
            return Err(SceneError::NonFinite { what: "light" });
        }
        let id = u32::try_from(self.lights.len()).map_err(|_| SceneError::NodeLimit {
            max: u32::MAX as usize,
        })?;
        self.lights.push(light);
        Ok(LightId(id))
    }

    /// A light by id.
    ///
    /// # Errors
    /// [`SceneError::UnknownLight`].
    pub fn light(&self, id: LightId) -> Result<&SceneLight, SceneError> {
        self.lights
            .get(id.0 as usize)
            .ok_or(SceneError::UnknownLight(id.0))
    }

    /// Replaces a light's parameters. Takes effect at the next draw; no update is needed.
    ///
    /// # Errors
    /// [`SceneError::UnknownLight`], [`SceneError::NonFinite`].
    pub fn set_light(&mut self, id: LightId, light: SceneLight) -> Result<(), SceneError> {
        if !light.is_finite() {
            return Err(SceneError::NonFinite { what: "light" });
        }
        let slot = self
            .lights
            .get_mut(id.0 as usize)
            .ok_or(SceneError::UnknownLight(id.0))?;
        *slot = light;
        Ok(())
    }

    /// Attaches `light` to `node`: it lights `node`'s whole subtree. A light already attached
    /// to `node` is ignored; otherwise it goes to the front of the node's list.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::UnknownLight`].
    pub fn attach_light(&mut self, node: NodeId, light: LightId) -> Result<(), SceneError> {
        self.light(light)?;
        let n = self.node_mut(node)?;
        let intent = n.intent.get_or_insert_with(Default::default);
        if !intent.lights.contains(&light) {
            intent.lights.insert(0, light);
            self.nodes.mark(node, Dirty::RENDER);
        }
        Ok(())
    }

    /// Detaches `light` from `node` (no-op if it was not attached there).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn detach_light(&mut self, node: NodeId, light: LightId) -> Result<(), SceneError> {
        let n = self.node_mut(node)?;
        if let Some(intent) = n.intent.as_mut() {
            let before = intent.lights.len();
            intent.lights.retain(|&l| l != light);
            if intent.lights.len() != before {
                self.nodes.mark(node, Dirty::RENDER);
            }
        }
        Ok(())
    }

    /// The lights attached to `node` itself, in list order (most recent first).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn attached_lights(&self, node: NodeId) -> Result<&[LightId], SceneError> {
        Ok(self
            .node(node)?
            .intent
            .as_ref()
            .map_or(&[][..], |i| &i.lights[..]))
    }
}
