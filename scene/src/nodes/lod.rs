//! Discrete level of detail (Eberly's `DlodNode`, book-advanced §1.3): a switch node that
//! picks its active child by the distance from a **LOD centre** to the eye.
//!
//! The centre is given in the switch's local space and each child gets a local distance
//! interval `[min, max)`. Selection ([`Scene::select_levels_of_detail`], run by
//! [`Scene::draw`](crate::Scene::draw) after the update and before culling) takes the world
//! centre `W·c` and the world intervals `[s·min, s·max)` with `s` the largest scale factor of
//! the switch's world transform ([`Transform::norm`](crate::Transform::norm), Eberly's
//! `GetUniformScale`), measures `d = |W·c − E|`, and activates the **first child, in child
//! order,** whose interval holds `d` — or none, when no interval does (then nothing is drawn
//! or picked). Intervals should be disjoint; overlapping ones resolve to the earlier child.
//!
//! Like any switch, a LOD switch updates all its children and its bound covers all of them, so
//! switching costs no update; drawing and picking see only the active child. Picking uses the
//! child chosen by the last selection.

use std::collections::BTreeMap;

use glam::Vec3;

use crate::graph::node::{Lod, NodeData};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;

use super::kind::{display_name, fmt_v3, KindHooks};

impl KindHooks for Lod {
    fn describe(&self, scene: &Scene, _: NodeId) -> String {
        let active = match self.active {
            Some(a) => display_name(scene, a),
            None => "none",
        };
        let ranges: Vec<String> = self
            .ranges
            .iter()
            .map(|(c, lo, hi)| format!("{} [{lo}, {hi})", display_name(scene, *c)))
            .collect();
        format!(
            "lod centre={} ranges=[{}] active={active}",
            fmt_v3(self.center),
            ranges.join(", ")
        )
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        scene.add_dlod(parent, name, self.center)
    }

    fn copy_links(
        &self,
        scene: &mut Scene,
        _: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        for &(child, min, max) in &self.ranges {
            scene.set_lod_range(copy, map(child), min, max)?;
        }
        scene.set_active_child(copy, self.active.map(map))
    }
}

impl Scene {
    /// Creates a discrete-LOD switch as the last child of `parent`, with its LOD centre
    /// `center` in its own local space. Children get their distance intervals from
    /// [`Scene::set_lod_range`]; a child without one is never selected.
    ///
    /// # Errors
    /// As [`Scene::add_group`]; [`SceneError::NonFinite`] for the centre.
    pub fn add_dlod(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        center: Vec3,
    ) -> Result<NodeId, SceneError> {
        if !center.is_finite() {
            return Err(SceneError::NonFinite { what: "LOD centre" });
        }
        let id = self.create_under(
            parent,
            name.into(),
            NodeData::Lod(Box::new(Lod {
                active: None,
                center,
                ranges: Vec::new(),
            })),
        )?;
        self.dlods.push(id);
        Ok(id)
    }

    /// Sets the local distance interval `[min, max)` in which `child` of the LOD switch `dlod`
    /// is selected (replacing its previous one).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotASwitch`] (also for a plain switch),
    /// [`SceneError::NotAChild`], [`SceneError::NonFinite`] for a NaN bound (`max` may be
    /// `+∞`), [`SceneError::InvalidArgument`] for `min < 0` or `max < min`.
    pub fn set_lod_range(
        &mut self,
        dlod: NodeId,
        child: NodeId,
        min: f32,
        max: f32,
    ) -> Result<(), SceneError> {
        if min.is_nan() || max.is_nan() || min.is_infinite() {
            return Err(SceneError::NonFinite { what: "LOD range" });
        }
        if min < 0.0 || max < min {
            return Err(SceneError::InvalidArgument {
                what: "LOD range",
                message: format!("[{min}, {max}) is not an interval of distances"),
            });
        }
        let node = self.node(dlod)?;
        if !matches!(node.data, NodeData::Lod(_)) {
            return Err(SceneError::NotASwitch(node.name.clone()));
        }
        if !node.children.contains(&child) {
            return Err(SceneError::NotAChild {
                parent: node.name.clone(),
                child: self.name(child).unwrap_or("<stale>").to_owned(),
            });
        }
        if let NodeData::Lod(lod) = &mut self.node_mut(dlod)?.data {
            match lod.ranges.iter_mut().find(|r| r.0 == child) {
                Some(r) => *r = (child, min, max),
                None => lod.ranges.push((child, min, max)),
            }
        }
        Ok(())
    }

    /// The LOD centre (local space) of a LOD switch.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotASwitch`] (also for a plain switch).
    pub fn lod_center(&self, dlod: NodeId) -> Result<Vec3, SceneError> {
        let node = self.node(dlod)?;
        match &node.data {
            NodeData::Lod(lod) => Ok(lod.center),
            _ => Err(SceneError::NotASwitch(node.name.clone())),
        }
    }

    /// The world LOD centre as of the last update (`W·c`).
    ///
    /// # Errors
    /// As [`Scene::lod_center`].
    pub fn world_lod_center(&self, dlod: NodeId) -> Result<Vec3, SceneError> {
        let c = self.lod_center(dlod)?;
        Ok(self.node(dlod)?.world.apply_point(c))
    }

    /// Activates, in every LOD switch, the child whose world distance interval holds
    /// the distance from the world LOD centre to `eye` (see the [module docs](self)). Uses the
    /// world transforms of the last update; [`Scene::draw`](crate::Scene::draw) makes the same
    /// choice through its [`View`](crate::View) ([`Scene::prepare_view`]).
    pub fn select_levels_of_detail(&mut self, eye: Vec3) {
        let lods = self.choose_levels_of_detail(eye);
        self.record_levels_of_detail(&lods);
    }

    /// Each LOD switch and the child whose world distance interval holds the distance from
    /// its world LOD centre to `eye`.
    pub(crate) fn choose_levels_of_detail(&self, eye: Vec3) -> BTreeMap<NodeId, Option<NodeId>> {
        let mut lods = BTreeMap::new();
        for &id in &self.dlods {
            let Some(node) = self.nodes.get(id) else {
                continue;
            };
            let NodeData::Lod(lod) = &node.data else {
                continue;
            };
            let center = node.world.apply_point(lod.center);
            let scale = node.world.norm();
            let d = (center - eye).length();
            let chosen = node.children.iter().copied().find(|c| {
                lod.ranges
                    .iter()
                    .find(|r| r.0 == *c)
                    .is_some_and(|&(_, min, max)| scale * min <= d && d < scale * max)
            });
            lods.insert(id, chosen);
        }
        lods
    }

    /// Shows, in every LOD switch of `lods`, the chosen child.
    pub(crate) fn record_levels_of_detail(&mut self, lods: &BTreeMap<NodeId, Option<NodeId>>) {
        self.dlods.retain(|&d| self.nodes.get(d).is_some());
        for (&id, &chosen) in lods {
            if let Some(node) = self.nodes.get_mut(id) {
                if let NodeData::Lod(lod) = &mut node.data {
                    lod.active = chosen;
                }
            }
        }
    }
}
