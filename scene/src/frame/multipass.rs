//! Multipass recipes: the pass lists effects turn into, as plain data for any [`Renderer`].
//!
//! * **A leaf's own passes** ([`Scene::leaf_passes`]): one pass with its texture stages (local
//!   first, then the nearest ancestor's global texture effect), or the two passes of a gloss
//!   map, or the light-vector pass of a bump map (table in [`effect`](crate::values::effect)).
//! * **Scene effects** (planar shadows and reflections on groups): a list of extra draws
//!   (`EffectDraw`) issued after the opaque geometry, in tree order of their groups, each
//!   plane taking the next stencil reference value:
//!   - shadow, per plane: the plane's visible part into the stencil; every caster flattened by
//!     the shadow matrix, stencil-equal (then zeroed, so shadows do not double-blend),
//!     blended in the shadow colour, unlit;
//!   - reflection, per plane: the plane into the stencil; depth under it reset to far; every
//!     caster reflected by the plane, clipped to behind it, culling reversed, inside the
//!     stencil; the plane blended over it, `src·(1 − r) + dst·r`.
//!
//! The recipes only read the scene; [`draw`](crate::frame::draw) issues them.
//!
//! [`Renderer`]: crate::frame::renderer::Renderer

use std::sync::Arc;

use glam::{Mat4, Vec4};

use crate::frame::renderer::{ColorSource, LightingTerms, Pass};
use crate::graph::node::{Culling, Visit};
use crate::graph::{NodeId, Scene};
use crate::values::effect::{
    bump_light_vectors, reflection_matrix, shadow_matrix, world_plane, Effect, TexCoords,
    TextureStage,
};
use crate::values::error::SceneError;
use crate::values::state::{
    AlphaState, BlendFactor, CompareFunc, CullState, Fog, RenderStates, StencilOp, StencilState,
    WireframeState, ZBufferState,
};

/// Stencil reference values available to scene effects (one per plane per frame).
const MAX_STENCIL_PLANES: usize = 255;

/// One extra draw of a scene effect, in the order it must be issued.
#[derive(Debug, Clone)]
pub(crate) struct EffectDraw {
    /// The geometry leaf drawn.
    pub(crate) leaf: NodeId,
    /// What it is drawn with.
    pub(crate) pass: EffectPass,
}

/// How an [`EffectDraw`] draws its leaf.
#[derive(Debug, Clone)]
pub(crate) enum EffectPass {
    /// This one pass, without lights (stencil marks, depth resets, shadows).
    Only(Box<Pass>),
    /// The leaf's own passes and lights, each edited.
    Edited(PassEdit),
}

/// An edit of every pass of a leaf drawn again by a scene effect.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PassEdit {
    /// Reflected through a plane: the reflection matrix, clipped to behind the mirror, culling
    /// reversed, drawn inside the plane's stencil.
    Reflect {
        /// The reflection matrix.
        mirror: Mat4,
        /// The world clip plane (the mirror plane, negated).
        clip_plane: Vec4,
        /// The stencil test of the plane.
        stencil: StencilState,
    },
    /// Blended over what is drawn, `src·(1 − r) + dst·r`, inside the plane's stencil.
    BlendOver {
        /// The reflectance `r`.
        reflectance: f32,
        /// The stencil test of the plane.
        stencil: StencilState,
    },
}

impl PassEdit {
    /// Applies the edit to one pass.
    pub(crate) fn apply(&self, p: &mut Pass) {
        match *self {
            PassEdit::Reflect {
                mirror,
                clip_plane,
                stencil,
            } => {
                p.transform = Some(mirror);
                p.clip_plane = Some(clip_plane);
                p.reverse_cull = true;
                p.states.stencil = stencil;
            }
            PassEdit::BlendOver {
                reflectance,
                stencil,
            } => {
                p.states.alpha = AlphaState {
                    constant_color: Vec4::new(0.0, 0.0, 0.0, reflectance),
                    ..AlphaState::blend(
                        BlendFactor::OneMinusConstantAlpha,
                        BlendFactor::ConstantAlpha,
                    )
                };
                p.states.stencil = stencil;
            }
        }
    }
}

impl Scene {
    /// The pass list of a geometry leaf under its resolved state and effects (see the
    /// [module docs](self)), with at most `max_units` texture stages per pass.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`]; an effect that cannot be applied
    /// to the leaf's mesh ([`SceneError::AttributeLength`] for vertex colours of the wrong
    /// length, [`SceneError::EffectInput`] for a bump map without normals or uvs,
    /// [`SceneError::UnknownLight`] for a bump map's light).
    pub fn leaf_passes(&self, id: NodeId, max_units: usize) -> Result<Vec<Pass>, SceneError> {
        let node = self.node(id)?;
        let Some(mesh) = node.data.mesh() else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        let r = self.resolved(id)?;
        let global: &[TextureStage] = match r.global_effect.map(|g| self.effect(g)) {
            Some(Ok(Some(Effect::Textures(stages)))) => stages,
            _ => &[],
        };
        let local = node.effect();
        let units = |own: &[TextureStage]| -> Vec<TextureStage> {
            own.iter().chain(global).take(max_units).cloned().collect()
        };
        let states = r.states;
        Ok(match local {
            None => vec![Pass::new(states, units(&[]))],
            Some(Effect::Textures(own)) => vec![Pass::new(states, units(own))],
            Some(Effect::VertexColors(colors)) => {
                if colors.len() != mesh.positions().len() {
                    return Err(SceneError::AttributeLength {
                        attribute: "effect colors",
                        expected: mesh.positions().len(),
                        actual: colors.len(),
                    });
                }
                vec![Pass {
                    color: ColorSource::Vertex(Arc::clone(colors)),
                    ..Pass::new(states, units(&[]))
                }]
            }
            Some(Effect::GlossMap(stage)) => vec![
                Pass {
                    lighting: LightingTerms::SPECULAR,
                    ..Pass::new(states, Vec::new())
                },
                Pass {
                    lighting: LightingTerms::AMBIENT_DIFFUSE,
                    ..Pass::new(
                        RenderStates {
                            alpha: AlphaState::blend(BlendFactor::One, BlendFactor::SrcAlpha),
                            ..states
                        },
                        units(std::slice::from_ref(stage)),
                    )
                },
            ],
            Some(Effect::BumpMap {
                base,
                normal_map,
                light,
                extra,
            }) => {
                let uv_set = match normal_map.coords {
                    TexCoords::Uv(k) => k,
                    _ => 0,
                };
                let l = self.light(*light)?;
                let colors = bump_light_vectors(mesh, uv_set, &node.world, l).ok_or_else(|| {
                    SceneError::EffectInput {
                        effect: "bump map",
                        node: node.name.clone(),
                        need: "normals, the normal map's uv set and an invertible transform",
                    }
                })?;
                vec![Pass {
                    lighting: LightingTerms::NONE,
                    color: ColorSource::Vertex(colors.into()),
                    ..Pass::new(
                        states,
                        units(
                            &[normal_map.clone(), base.clone()]
                                .into_iter()
                                .chain(extra.iter().cloned())
                                .collect::<Vec<_>>(),
                        ),
                    )
                }]
            }
            Some(Effect::Pbr(material)) => vec![Pass {
                pbr: Some(Arc::clone(material)),
                ..Pass::new(states, Vec::new())
            }],
            Some(Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. }) => {
                vec![Pass::new(states, units(&[]))]
            }
        })
    }

    /// Every extra draw of the planar shadow and reflection effects under the root, in the
    /// order they must be issued (see the [module docs](self)).
    pub(crate) fn scene_effect_draws(&self) -> Result<Vec<EffectDraw>, SceneError> {
        let mut out = Vec::new();
        let mut next_ref = 0usize;
        for group in self.scene_effect_nodes() {
            let Some(effect) = self.effect(group)? else {
                continue;
            };
            match effect {
                Effect::PlanarShadow {
                    planes,
                    light,
                    color,
                } => {
                    let light = *self.light(*light)?;
                    let casters: Vec<NodeId> = self
                        .drawable_leaves(group)
                        .into_iter()
                        .filter(|c| !planes.contains(c))
                        .collect();
                    for &plane in planes {
                        let Some((eq, plane_states)) = self.plane_of(plane)? else {
                            continue;
                        };
                        let Some(shadow) = shadow_matrix(eq, &light) else {
                            continue;
                        };
                        if next_ref >= MAX_STENCIL_PLANES {
                            break;
                        }
                        next_ref += 1;
                        let reference = next_ref as u8;
                        out.push(EffectDraw {
                            leaf: plane,
                            pass: EffectPass::Only(Box::new(stencil_mark(plane_states, reference))),
                        });
                        for &c in &casters {
                            let states = self.resolved(c)?.states;
                            let pass = Pass {
                                states: RenderStates {
                                    alpha: AlphaState::BLEND,
                                    cull: CullState::NONE,
                                    fog: Fog::OFF,
                                    wireframe: WireframeState { enabled: false },
                                    zbuffer: ZBufferState::DISABLED,
                                    stencil: StencilState {
                                        pass: StencilOp::Zero,
                                        ..stencil_equal(reference)
                                    },
                                    ..states
                                },
                                lighting: LightingTerms::NONE,
                                color: ColorSource::Constant(*color),
                                transform: Some(shadow),
                                ..Pass::new(states, Vec::new())
                            };
                            out.push(EffectDraw {
                                leaf: c,
                                pass: EffectPass::Only(Box::new(pass)),
                            });
                        }
                    }
                }
                Effect::PlanarReflection { planes } => {
                    let plane_ids: Vec<NodeId> = planes.iter().map(|p| p.0).collect();
                    let casters: Vec<NodeId> = self
                        .drawable_leaves(group)
                        .into_iter()
                        .filter(|c| !plane_ids.contains(c))
                        .collect();
                    for &(plane, reflectance) in planes {
                        let Some((eq, plane_states)) = self.plane_of(plane)? else {
                            continue;
                        };
                        if next_ref >= MAX_STENCIL_PLANES {
                            break;
                        }
                        next_ref += 1;
                        let reference = next_ref as u8;
                        let inside = stencil_equal(reference);
                        // 1. The visible part of the plane into the stencil buffer.
                        out.push(EffectDraw {
                            leaf: plane,
                            pass: EffectPass::Only(Box::new(stencil_mark(plane_states, reference))),
                        });
                        // 2. Depth under it back to far.
                        let reset = Pass {
                            states: RenderStates {
                                zbuffer: ZBufferState {
                                    enabled: true,
                                    writable: true,
                                    compare: CompareFunc::Always,
                                },
                                stencil: inside,
                                alpha: AlphaState::OPAQUE,
                                ..plane_states
                            },
                            lighting: LightingTerms::NONE,
                            depth_range: Some((1.0, 1.0)),
                            color_mask: [false; 4],
                            ..Pass::new(plane_states, Vec::new())
                        };
                        out.push(EffectDraw {
                            leaf: plane,
                            pass: EffectPass::Only(Box::new(reset)),
                        });
                        // 3. The casters reflected, clipped to behind the mirror, culling
                        //    reversed, inside the stencil.
                        let reflect = PassEdit::Reflect {
                            mirror: reflection_matrix(eq),
                            clip_plane: -eq,
                            stencil: inside,
                        };
                        out.extend(casters.iter().map(|&c| EffectDraw {
                            leaf: c,
                            pass: EffectPass::Edited(reflect),
                        }));
                        // 4. The plane over it: src·(1 − r) + dst·r.
                        out.push(EffectDraw {
                            leaf: plane,
                            pass: EffectPass::Edited(PassEdit::BlendOver {
                                reflectance,
                                stencil: inside,
                            }),
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Geometry leaves under `from` in pre-order, as drawing sees them (active switch children
    /// only, `Culling::Always` subtrees skipped).
    fn drawable_leaves(&self, from: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            let Ok(node) = self.node(id) else { continue };
            if node.cull == Culling::Always {
                continue;
            }
            match node.data.visit() {
                Visit::Leaf(_) => out.push(id),
                Visit::Children => stack.extend(node.children.iter().rev()),
                Visit::Active(active) => stack.extend(active),
            }
        }
        out
    }

    /// Groups with planar shadow / reflection effects, in tree pre-order.
    fn scene_effect_nodes(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            let Ok(node) = self.node(id) else { continue };
            if node.cull == Culling::Always {
                continue;
            }
            if matches!(
                node.effect(),
                Some(Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. })
            ) {
                out.push(id);
            }
            match node.data.visit() {
                Visit::Leaf(_) => {}
                Visit::Children => stack.extend(node.children.iter().rev()),
                Visit::Active(active) => stack.extend(active),
            }
        }
        out
    }

    /// World plane and resolved states of a plane leaf (`None` if it has no usable triangle).
    fn plane_of(&self, plane: NodeId) -> Result<Option<(Vec4, RenderStates)>, SceneError> {
        let node = self.node(plane)?;
        let Some(mesh) = node.data.mesh() else {
            return Err(SceneError::NotAGeometry(node.name.clone()));
        };
        Ok(world_plane(mesh, &node.world).map(|eq| {
            (
                eq,
                self.resolved(plane).map(|r| r.states).unwrap_or_default(),
            )
        }))
    }
}

/// Passes where the stored stencil value equals `reference`; writes nothing.
fn stencil_equal(reference: u8) -> StencilState {
    StencilState {
        enabled: true,
        func: CompareFunc::Equal,
        reference,
        ..StencilState::DISABLED
    }
}

/// Always passes and writes `reference` where the depth test passes.
fn stencil_write(reference: u8) -> StencilState {
    StencilState {
        enabled: true,
        func: CompareFunc::Always,
        reference,
        pass: StencilOp::Replace,
        ..StencilState::DISABLED
    }
}

/// A pass writing `reference` into the stencil buffer where the plane passes the depth test,
/// touching neither colour nor depth.
fn stencil_mark(plane_states: RenderStates, reference: u8) -> Pass {
    Pass {
        states: RenderStates {
            zbuffer: ZBufferState::READ_ONLY,
            stencil: stencil_write(reference),
            alpha: AlphaState::OPAQUE,
            ..plane_states
        },
        lighting: LightingTerms::NONE,
        color_mask: [false; 4],
        ..Pass::new(plane_states, Vec::new())
    }
}
