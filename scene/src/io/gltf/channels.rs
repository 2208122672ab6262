//! glTF animations → [`Animation`]s of the imported nodes (see [`crate::io::animation`] for
//! the sampling rules), one per glTF animation, in file order (so an animation's index is
//! its glTF index). Channels of nodes outside the imported scene are dropped; `weights`
//! channels (morph targets) are described in [`Animation::weights`] and returned apart, as
//! [`WeightsChannel`]s, for the importer to turn into
//! [`MorphController`](crate::MorphController) keys; a translation, rotation or
//! scale channel on a node given by `matrix` is invalid (the glTF specification allows only
//! TRS on animated nodes).

use ::gltf::accessor::Dimensions;
use ::gltf::animation::{Interpolation as GInterp, Property};
use ::gltf::Document;
use glam::{Quat, Vec3, Vec4};

use super::ctx::{node_label, Ctx};
use crate::graph::NodeId;
use crate::io::animation::{Animation, Interpolation, NodeAnimation, Track, WeightsAnimation};
use crate::io::error::IoError;

/// A `weights` channel: the morph weights of a node's mesh over time, unchecked against the
/// mesh (the importer checks the counts).
#[derive(Debug, Clone)]
pub(crate) struct WeightsChannel {
    /// The index of the animation (clip) in the file.
    pub(crate) clip: usize,
    /// The glTF node index.
    pub(crate) node: usize,
    /// `animation 0 'x' channel 2`, for messages.
    pub(crate) label: String,
    pub(crate) interpolation: Interpolation,
    pub(crate) times: Vec<f32>,
    /// All output values, flat (keys × targets, × 3 for cubic splines).
    pub(crate) values: Vec<f32>,
}

/// Reads every animation of the document: the transform animations, and the `weights`
/// channels of nodes in the imported scene in file order.
///
/// # Errors
/// [`IoError::Invalid`] for bad accessors or keyframes.
pub(crate) fn read_animations(
    ctx: &Ctx<'_>,
    doc: &Document,
    ids: &[Option<NodeId>],
) -> Result<(Vec<Animation>, Vec<WeightsChannel>), IoError> {
    let mut out = Vec::new();
    let mut weights = Vec::new();
    for anim in doc.animations() {
        let alabel = match anim.name() {
            Some(n) => format!("animation {} '{n}'", anim.index()),
            None => format!("animation {}", anim.index()),
        };
        let mut nodes: Vec<NodeAnimation> = Vec::new();
        let mut described: Vec<WeightsAnimation> = Vec::new();
        for ch in anim.channels() {
            let clabel = format!("{alabel} channel {}", ch.index());
            let target = ch.target();
            let node = target.node();
            let Some(id) = ids.get(node.index()).copied().flatten() else {
                continue;
            };
            let sampler = ch.sampler();
            let interpolation = match sampler.interpolation() {
                GInterp::Step => Interpolation::Step,
                GInterp::Linear => Interpolation::Linear,
                GInterp::CubicSpline => Interpolation::CubicSpline,
            };
            if target.property() == Property::MorphTargetWeights {
                let (times, _) = ctx.read_f32(
                    &format!("{clabel} input"),
                    &sampler.input(),
                    &[Dimensions::Scalar],
                )?;
                let (values, _) = ctx.read_f32(
                    &format!("{clabel} output"),
                    &sampler.output(),
                    &[Dimensions::Scalar],
                )?;
                described.push(WeightsAnimation {
                    node: id,
                    interpolation,
                    times: times.clone(),
                });
                weights.push(WeightsChannel {
                    clip: anim.index(),
                    node: node.index(),
                    label: clabel,
                    interpolation,
                    times,
                    values,
                });
                continue;
            }
            let ::gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } = node.transform()
            else {
                return Err(ctx.invalid(
                    &clabel,
                    format!(
                        "animates {} which has a matrix (only TRS nodes may be animated)",
                        node_label(&node)
                    ),
                ));
            };
            let (times, _) = ctx.read_f32(
                &format!("{clabel} input"),
                &sampler.input(),
                &[Dimensions::Scalar],
            )?;
            let out_what = format!("{clabel} output");
            let entry = match nodes.iter().position(|n| n.node == id) {
                Some(i) => i,
                None => {
                    nodes.push(NodeAnimation {
                        node: id,
                        rest_translation: Vec3::from_array(translation),
                        rest_rotation: Quat::from_array(rotation),
                        rest_scale: Vec3::from_array(scale),
                        translation: None,
                        rotation: None,
                        scale: None,
                    });
                    nodes.len() - 1
                }
            };
            let bad = |m: String| ctx.invalid(&clabel, m);
            match target.property() {
                Property::Rotation => {
                    let (v, _) = ctx.read_f32(&out_what, &sampler.output(), &[Dimensions::Vec4])?;
                    let q = v
                        .chunks_exact(4)
                        .map(|c| Quat::from_vec4(Vec4::from_slice(c)))
                        .collect();
                    nodes[entry].rotation = Some(Track::new(interpolation, times, q).map_err(bad)?);
                }
                p => {
                    let (v, _) = ctx.read_f32(&out_what, &sampler.output(), &[Dimensions::Vec3])?;
                    let k: Vec<Vec3> = v.chunks_exact(3).map(Vec3::from_slice).collect();
                    let track = Some(Track::new(interpolation, times, k).map_err(bad)?);
                    if p == Property::Translation {
                        nodes[entry].translation = track;
                    } else {
                        nodes[entry].scale = track;
                    }
                }
            }
        }
        let mut a = Animation::new(anim.name().unwrap_or_default().to_owned(), nodes);
        a.weights = described;
        out.push(a);
    }
    Ok((out, weights))
}
