//! glTF skins and morph targets → [`SkinController`]s and [`MorphController`]s on the
//! imported geometry leaves.
//!
//! * **Skins.** A node with a `skin` and a `mesh` gets, for each primitive's leaf, a skin
//!   controller whose bones are the skin's `joints` (each must be a node of the imported
//!   scene). The offset of vertex `j` for joint `k` is `IBM_k · v_j` with the joint's inverse
//!   bind matrix (`inverseBindMatrices`, identity when absent; its count must equal the joint
//!   count and its matrices must be affine and finite), so the skinned vertex is
//!   `Σ_k w_jk · W_k · IBM_k · v_j` with `W_k` the joint's world transform — glTF's joint
//!   matrices. The result is in world space and the leaf's world transform is the identity:
//!   **the skinned mesh ignores its node's and its parents' transforms**, as glTF requires.
//!   Normals from the file are skinned with the inverse transposes (see
//!   [`crate::values::skin`]); generated flat normals are regenerated from the posed triangles. A joint
//!   index at or past the joint count is [`IoError::Invalid`].
//! * **Morph targets.** A node whose mesh has targets gets, for each primitive's leaf, a morph
//!   controller: target 0 is the primitive's attributes, the others its `POSITION`/`NORMAL`
//!   deltas. The weights are the node's `weights`, else the mesh's, else zeros; a `weights`
//!   animation channel on the node replaces them by its keys (STEP, LINEAR or CUBICSPLINE, as
//!   the other channels). Where several animations (clips) drive the same node's weights,
//!   the **last playing one in the file wins** — the whole weight vector, not blended, as
//!   transform tracks in [`merge_animations`](crate::io::animation::merge_animations); the
//!   controller follows each animation's [`ClipSwitch`], so switching clips
//!   ([`play_only`](crate::io::animation::play_only)) changes the weights from the next
//!   update on, and with no playing clip the static weights apply. Within one animation, of
//!   two channels on the same node the later wins. A leaf with all-zero static weights and
//!   no `weights` channel gets no controller (it would not move).
//! * **Both.** A skinned node whose mesh has targets gets one controller per leaf,
//!   [`MorphedSkin`]: each update morphs the primitive's bind-pose attributes (the morph
//!   controller above, unchanged) and skins the result with the skin's joint matrices, so
//!   the vertex is `Σ_k w_jk · W_k · IBM_k · (v_j + Σ_i c_i·d_ij)` — morph first, then skin,
//!   as glTF orders them. One controller, not two in a row, so the skin never sees its own
//!   previous output (a morph with no playing weights still gives the bind pose). Such a
//!   leaf cannot be saved as a scene file (`plumb convert` refuses it by name).

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::sync::Arc;

use ::gltf::accessor::Dimensions;
use ::gltf::Document;
use glam::{Mat3, Mat4};

use super::channels::WeightsChannel;
use super::ctx::{node_label, Ctx};
use super::primitive::Converted;
use crate::graph::{NodeId, Scene};
use crate::io::animation::ClipSwitch;
use crate::io::error::IoError;
use crate::values::controller::{ControllerTiming, MeshController};
use crate::values::error::SceneError;
use crate::values::keyframe::Interpolation;
use crate::values::morph::MorphController;
use crate::values::skin::{normal_matrix, SkinController, SkinInfluence};

/// A geometry leaf that a skin or morph targets deform.
pub(crate) struct Leaf {
    /// The glTF node index.
    pub(crate) node: usize,
    pub(crate) geom: NodeId,
    /// `node 2 'x' mesh 0 primitive 1`, for messages.
    pub(crate) label: String,
    pub(crate) converted: Arc<Converted>,
}

/// The joints' node ids and inverse bind matrices of a skin.
struct Skin {
    joints: Vec<NodeId>,
    ibm: Vec<Mat4>,
    normal: Vec<Mat3>,
}

fn read_skin(
    ctx: &Ctx<'_>,
    skin: &::gltf::Skin<'_>,
    ids: &[Option<NodeId>],
) -> Result<Skin, IoError> {
    let label = match skin.name() {
        Some(n) => format!("skin {} '{n}'", skin.index()),
        None => format!("skin {}", skin.index()),
    };
    let mut joints = Vec::new();
    for j in skin.joints() {
        let id = ids.get(j.index()).copied().flatten().ok_or_else(|| {
            ctx.invalid(
                &label,
                format!("joint {} is not in the imported scene", node_label(&j)),
            )
        })?;
        joints.push(id);
    }
    if joints.is_empty() {
        return Err(ctx.invalid(&label, "has no joints".to_owned()));
    }
    let ibm = match skin.inverse_bind_matrices() {
        None => vec![Mat4::IDENTITY; joints.len()],
        Some(a) => {
            let what = format!("{label} inverseBindMatrices");
            let (v, _) = ctx.read_f32(&what, &a, &[Dimensions::Mat4])?;
            if v.len() / 16 != joints.len() {
                return Err(ctx.invalid(
                    &what,
                    format!("has {} matrices for {} joints", v.len() / 16, joints.len()),
                ));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&what, "inverse bind matrices"));
            }
            let mats: Vec<Mat4> = v.chunks_exact(16).map(Mat4::from_cols_slice).collect();
            if let Some(k) = mats.iter().position(|m| {
                let r = m.row(3);
                r.x.abs() > 1e-5 || r.y.abs() > 1e-5 || r.z.abs() > 1e-5 || (r.w - 1.0).abs() > 1e-5
            }) {
                return Err(ctx.invalid(
                    &what,
                    format!("matrix {k} is not affine (last row is not 0 0 0 1)"),
                ));
            }
            mats
        }
    };
    let normal = ibm
        .iter()
        .map(|m| normal_matrix(Mat3::from_mat4(*m)))
        .collect();
    Ok(Skin {
        joints,
        ibm,
        normal,
    })
}

/// The skin controller of one leaf.
fn skin_controller(ctx: &Ctx<'_>, leaf: &Leaf, skin: &Skin) -> Result<SkinController, IoError> {
    let c = &leaf.converted;
    let Some(influences) = &c.influences else {
        return Err(ctx.invalid(
            &leaf.label,
            "is skinned but has no JOINTS_0/WEIGHTS_0".to_owned(),
        ));
    };
    let joint_count = skin.joints.len();
    if let Some(max) = c.max_joint.filter(|&m| m as usize >= joint_count) {
        return Err(ctx.invalid(
            &leaf.label,
            format!("joint index {max} is out of range for a skin of {joint_count} joints"),
        ));
    }
    let total: usize = influences.iter().map(Vec::len).sum();
    ctx.charge_geometry(&leaf.label, total, 8)?;
    let positions = c.mesh.positions();
    let normals = c.mesh.normals().filter(|_| c.file_normals);
    let rows = influences
        .iter()
        .enumerate()
        .map(|(v, row)| {
            row.iter()
                .map(|&(joint, weight)| {
                    let k = joint as usize;
                    SkinInfluence {
                        bone: k,
                        weight,
                        offset: skin.ibm[k].transform_point3(positions[v]),
                        normal: normals.map(|n| skin.normal[k] * n[v]),
                    }
                })
                .collect()
        })
        .collect();
    SkinController::from_influences(skin.joints.clone(), rows)
        .map_err(|e| ctx.scene_err(&leaf.label, e))
}

/// A leaf both morphed and skinned (see the module docs): the morph runs on the bind-pose
/// mesh, then the skin's influences (joints and weights of `skin`) are applied to the morphed
/// vertices with the joints' inverse bind matrices.
pub(crate) struct MorphedSkin {
    morph: Box<dyn MeshController>,
    /// The primitive as converted: the bind pose the morph deforms.
    base: Arc<crate::values::mesh::Mesh>,
    /// Bones, activity and whether normals are skinned (its offsets, made from the unmorphed
    /// bind pose, are not used).
    skin: SkinController,
    /// Per vertex, `(joint, weight)`: the skin's influences.
    rows: Vec<Vec<(usize, f32)>>,
    ibm: Vec<Mat4>,
    /// `normal_matrix` of each inverse bind matrix.
    normal: Vec<Mat3>,
}

impl MeshController for MorphedSkin {
    fn bones(&self) -> &[NodeId] {
        self.skin.bones()
    }

    fn describe(&self) -> String {
        format!("glTF morph then {}", self.skin.describe())
    }

    fn world_is_identity(&self) -> bool {
        true
    }

    fn check(&self, mesh: &crate::values::mesh::Mesh) -> Result<(), SceneError> {
        self.skin.check(mesh)?;
        self.morph.check(mesh)
    }

    /// `None` when the skin is inactive, the mesh no longer has the bind pose's vertex
    /// count, or the bone count differs.
    fn update(
        &mut self,
        time: f64,
        mesh: &crate::values::mesh::Mesh,
        bones: &[crate::values::transform::Transform],
    ) -> Option<crate::values::mesh::Mesh> {
        let n = self.base.positions().len();
        if !self.skin.active() || mesh.positions().len() != n || bones.len() != self.ibm.len() {
            return None;
        }
        let morphed = self.morph.update(time, &self.base, &[]);
        let m = morphed.as_ref().unwrap_or(&self.base);
        let (pos, nrm) = (m.positions(), m.normals());
        let influences = &self.rows;
        // The same sums, in the same order, as `SkinController::positions` and `normals`,
        // with each offset made from the morphed vertex.
        let positions = influences
            .iter()
            .enumerate()
            .map(|(j, row)| {
                let mut v = glam::Vec3::ZERO;
                for (i, &(k, w)) in row.iter().enumerate() {
                    let p = w * bones[k].apply_point(self.ibm[k].transform_point3(pos[j]));
                    v = if i == 0 { p } else { v + p };
                }
                v
            })
            .collect();
        let skinned_normals = self.skin.skins_normals().then_some(nrm).flatten();
        match skinned_normals {
            Some(nrm) if mesh.normals().is_some() => {
                let mats: Vec<Mat3> = bones.iter().map(|t| normal_matrix(t.matrix())).collect();
                let normals = influences
                    .iter()
                    .enumerate()
                    .map(|(j, row)| {
                        let mut s = glam::Vec3::ZERO;
                        for &(k, w) in row {
                            s += w * (mats[k] * (self.normal[k] * nrm[j]));
                        }
                        s.normalize_or_zero()
                    })
                    .collect();
                mesh.with_deformed_vertices(positions, normals).ok()
            }
            _ => mesh.with_deformed_positions(positions).ok(),
        }
    }
}

/// The keys one clip (glTF animation) gives a leaf's morph weights.
struct ClipKeys {
    /// The clip's switch.
    switch: ClipSwitch,
    interpolation: Interpolation,
    times: Vec<f32>,
    rows: Vec<Vec<f32>>,
    timing: ControllerTiming,
}

/// The morph controller of a glTF leaf: one [`MorphController`] whose weight keys are those
/// of the **last playing clip** that animates the node's weights (see [`ClipSwitch`]), else
/// the node's static weights. The keys are swapped when the choice changes, at the next
/// update; the targets are stored once.
pub(crate) struct ClipMorph {
    /// `None` only if swapping keys failed (they were all checked at import, so never).
    morph: Option<MorphController>,
    statics: Vec<f32>,
    clips: Vec<ClipKeys>,
    /// The clip whose keys `morph` holds (`None`: the static weights).
    current: Option<usize>,
}

impl ClipMorph {
    /// Puts the keys of clip `choice` (or the static weights) into the controller.
    fn select(&mut self, choice: Option<usize>) {
        let Some(m) = self.morph.take() else { return };
        let (m, timing) = match choice.and_then(|c| self.clips.get(c)) {
            Some(k) => (
                m.with_keys(k.interpolation, k.times.clone(), k.rows.clone()),
                k.timing,
            ),
            None => (
                m.with_keys(Interpolation::Linear, vec![0.0], vec![self.statics.clone()]),
                ControllerTiming::DEFAULT,
            ),
        };
        self.morph = m.ok().map(|mut m| {
            m.set_timing(timing);
            m
        });
        self.current = choice;
    }
}

impl ClipMorph {
    /// The morph controller as the next update will run it: with the keys of the last
    /// playing clip (or the static weights), whatever was selected before (what the scene
    /// saver writes).
    pub(crate) fn playing(&self) -> Option<MorphController> {
        let mut c = ClipMorph {
            morph: self.morph.clone(),
            statics: self.statics.clone(),
            clips: Vec::new(),
            current: None,
        };
        let choice = self.clips.iter().rposition(|k| k.switch.is_playing());
        let keys = choice.and_then(|i| self.clips.get(i));
        let m = c.morph.take()?;
        let (m, timing) = match keys {
            Some(k) => (
                m.with_keys(k.interpolation, k.times.clone(), k.rows.clone()),
                k.timing,
            ),
            None => (
                m.with_keys(Interpolation::Linear, vec![0.0], vec![c.statics.clone()]),
                ControllerTiming::DEFAULT,
            ),
        };
        let mut m = m.ok()?;
        m.set_timing(timing);
        Some(m)
    }
}

impl MeshController for ClipMorph {
    fn check(&self, mesh: &crate::values::mesh::Mesh) -> Result<(), SceneError> {
        match &self.morph {
            Some(m) => m.check(mesh),
            None => Ok(()),
        }
    }

    fn update(
        &mut self,
        time: f64,
        mesh: &crate::values::mesh::Mesh,
        bones: &[crate::values::transform::Transform],
    ) -> Option<crate::values::mesh::Mesh> {
        let choice = self.clips.iter().rposition(|k| k.switch.is_playing());
        if choice != self.current {
            self.select(choice);
        }
        // A repeating clip's weights at its own time, wrapped as its node tracks are
        // (`ClipSwitch::clip_time`, in f32 as `apply_animations` samples them).
        let time = match choice.and_then(|c| self.clips.get(c)) {
            Some(k) if k.switch.period().is_some() => f64::from(k.switch.clip_time(time as f32)),
            _ => time,
        };
        self.morph.as_mut()?.update(time, mesh, bones)
    }

    fn describe(&self) -> String {
        "glTF morph weights of a clip".to_owned()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// The morph controller of one leaf, or `None` when it would never move the mesh (all-zero
/// static weights and no `weights` channel). `channels` are the node's `weights` channels
/// in file order, each with its clip's switch.
fn morph_controller(
    ctx: &Ctx<'_>,
    doc: &Document,
    leaf: &Leaf,
    channels: &[(&WeightsChannel, ClipSwitch)],
) -> Result<Option<ClipMorph>, IoError> {
    let c = &leaf.converted;
    let n = c.targets.len();
    let node = doc.nodes().nth(leaf.node);
    let statics: Vec<f32> = node
        .as_ref()
        .and_then(|nd| {
            nd.weights()
                .or_else(|| nd.mesh().and_then(|m| m.weights()))
                .map(<[f32]>::to_vec)
        })
        .unwrap_or_else(|| vec![0.0; n]);
    if channels.is_empty() && statics.iter().all(|&w| w == 0.0) {
        return Ok(None);
    }
    let err = |e| ctx.scene_err(&leaf.label, e);
    let base = c.mesh.positions().to_vec();
    let diffs = c.targets.iter().map(|t| t.positions.clone()).collect();
    let mut m = MorphController::new(
        ControllerTiming::DEFAULT,
        base,
        diffs,
        vec![0.0],
        vec![statics.clone()],
    )
    .map_err(err)?;
    if let (true, Some(normals)) = (c.file_normals, c.mesh.normals()) {
        let nd = c.targets.iter().map(|t| t.normals.clone()).collect();
        m = m.with_normals(normals.to_vec(), nd).map_err(err)?;
    }
    // One set of keys per clip: of two channels of one clip on this node, the later wins.
    let mut clips: Vec<(usize, ClipKeys)> = Vec::new();
    for (ch, switch) in channels {
        let per_key = if ch.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let want = ch.times.len() * per_key * n;
        if ch.values.len() != want || n == 0 {
            return Err(ctx.invalid(
                &ch.label,
                format!(
                    "has {} output values; {} keys of {n} morph weights need {want}",
                    ch.values.len(),
                    ch.times.len()
                ),
            ));
        }
        let rows: Vec<Vec<f32>> = ch.values.chunks_exact(n).map(<[f32]>::to_vec).collect();
        // Checks the keys (times finite and increasing, weights finite) now, so that
        // swapping them in later cannot fail.
        m = m
            .with_keys(ch.interpolation, ch.times.clone(), rows.clone())
            .map_err(|e| ctx.scene_err(&ch.label, e))?;
        let (first, last) = (ch.times[0], ch.times[ch.times.len() - 1]);
        let timing = ControllerTiming::over(f64::from(first.min(0.0)), f64::from(last.max(0.0)))
            .map_err(|e| ctx.scene_err(&ch.label, e))?;
        let keys = ClipKeys {
            switch: switch.clone(),
            interpolation: ch.interpolation,
            times: ch.times.clone(),
            rows,
            timing,
        };
        match clips.iter_mut().find(|(c, _)| *c == ch.clip) {
            Some(slot) => slot.1 = keys,
            None => clips.push((ch.clip, keys)),
        }
    }
    let mut morph = ClipMorph {
        morph: Some(m),
        statics,
        clips: clips.into_iter().map(|(_, k)| k).collect(),
        current: None,
    };
    morph.select(morph.clips.iter().rposition(|k| k.switch.is_playing()));
    if morph.morph.is_none() {
        return Err(ctx.invalid(&leaf.label, "morph weights keys refused".to_owned()));
    }
    Ok(Some(morph))
}

/// Attaches the skin and morph controllers of `leaves`.
///
/// # Errors
/// See the [module docs](self).
pub(crate) fn attach(
    ctx: &Ctx<'_>,
    doc: &Document,
    scene: &mut Scene,
    ids: &[Option<NodeId>],
    leaves: &[Leaf],
    weights: &[WeightsChannel],
    switches: &[ClipSwitch],
) -> Result<(), IoError> {
    // Each node's channels in file order, with their clip's switch.
    let mut by_node: BTreeMap<usize, Vec<(&WeightsChannel, ClipSwitch)>> = BTreeMap::new();
    for ch in weights {
        let switch = switches.get(ch.clip).cloned().unwrap_or_default();
        by_node.entry(ch.node).or_default().push((ch, switch));
    }
    for (&node, chs) in &by_node {
        let Some((ch, _)) = chs.first() else { continue };
        let morphed = doc
            .nodes()
            .nth(node)
            .and_then(|n| n.mesh())
            .is_some_and(|m| m.primitives().any(|p| p.morph_targets().len() > 0));
        if !morphed {
            return Err(ctx.invalid(
                &ch.label,
                format!(
                    "animates the morph weights of node {node}, whose mesh has no morph targets"
                ),
            ));
        }
    }
    let mut skins: BTreeMap<usize, Skin> = BTreeMap::new();
    for leaf in leaves {
        let Some(gnode) = doc.nodes().nth(leaf.node) else {
            continue;
        };
        let c = &leaf.converted;
        if let Some(skin) = gnode.skin() {
            let s = match skins.entry(skin.index()) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(read_skin(ctx, &skin, ids)?),
            };
            let controller = skin_controller(ctx, leaf, s)?;
            let channels = by_node.get(&leaf.node).map_or(&[][..], Vec::as_slice);
            let morph = if c.targets.is_empty() {
                None
            } else {
                morph_controller(ctx, doc, leaf, channels)?
            };
            let controller: Box<dyn MeshController> = match morph {
                None => Box::new(controller),
                Some(morph) => Box::new(MorphedSkin {
                    morph: Box::new(morph),
                    base: c.mesh.clone(),
                    rows: controller
                        .influences()
                        .iter()
                        .map(|r| r.iter().map(|i| (i.bone, i.weight)).collect())
                        .collect(),
                    skin: controller,
                    ibm: s.ibm.clone(),
                    normal: s.normal.clone(),
                }),
            };
            scene
                .add_mesh_controller(leaf.geom, controller)
                .map_err(|e| ctx.scene_err(&leaf.label, e))?;
        } else if !c.targets.is_empty() {
            let channels = by_node.get(&leaf.node).map_or(&[][..], Vec::as_slice);
            if let Some(m) = morph_controller(ctx, doc, leaf, channels)? {
                scene
                    .add_mesh_controller(leaf.geom, Box::new(m))
                    .map_err(|e| ctx.scene_err(&leaf.label, e))?;
            }
        }
    }
    Ok(())
}
