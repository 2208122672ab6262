//! Recording: a [`DrawTarget`] that writes draw calls down instead of drawing them.

use std::sync::Arc;

use glam::Vec4;

use super::document::*;
use crate::base::error::Error;
use crate::context::DrawStats;
use crate::draw_target::DrawTarget;
use crate::fixed_function::{FixedFunction, MeshInput, Transforms};
use crate::state::{PipelineState, Rect};
use crate::texture::Texture;
use crate::vertex::{Indices, Topology, VertexInput};

/// Appends elements to the buffer and returns their views; every view starts 4-byte aligned
/// (readers may map the buffer).
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn put<T: Element>(&mut self, items: &[T]) -> View {
        let offset = self.bytes.len() as u64;
        for &x in items {
            x.put(&mut self.bytes);
        }
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        View {
            offset,
            count: items.len() as u64,
        }
    }
    fn indices(&mut self, i: Indices<'_>) -> Option<IndexView> {
        match i {
            Indices::None => None,
            Indices::U16(v) => Some(IndexView::U16(self.put(v))),
            Indices::U32(v) => Some(IndexView::U32(self.put(v))),
        }
    }
}

/// Records draw calls (validating them as a [`Context`](crate::Context) would) instead of drawing them.
pub struct Recorder {
    size: [u32; 2],
    commands: Vec<CommandDoc>,
    writer: Writer,
    textures: Vec<Arc<Texture>>,
}

impl Recorder {
    /// A recorder for a `width × height` target.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] as for [`Context::new`](crate::Context::new).
    pub fn new(width: u32, height: u32) -> Result<Recorder, Error> {
        crate::target::check_size(width, height)?;
        Ok(Recorder {
            size: [width, height],
            commands: Vec::new(),
            writer: Writer::default(),
            textures: Vec::new(),
        })
    }

    /// The trace, whose buffer part will be called `buffer_name` when saved. Textures go to
    /// the end of the buffer, every level as RGBA8 texels.
    pub fn finish(self, buffer_name: &str) -> Trace {
        let mut writer = self.writer;
        let textures_doc: Vec<TextureDoc> = self
            .textures
            .iter()
            .map(|t| TextureDoc {
                format: t.format(),
                levels: (0..t.level_count())
                    .filter_map(|i| t.level(i))
                    .map(|l| LevelDoc {
                        width: l.width(),
                        height: l.height(),
                        texels: writer.put(&l.to_texels()),
                    })
                    .collect(),
            })
            .collect();
        Trace {
            doc: TraceDoc {
                format: FORMAT.to_owned(),
                version: VERSION,
                size: self.size,
                buffer: buffer_name.to_owned(),
                textures: textures_doc,
                commands: self.commands,
            },
            file: String::new(),
            buffer: writer.bytes,
            textures: self.textures,
        }
    }

    fn texture_index(&mut self, t: &Arc<Texture>) -> usize {
        if let Some(i) = self.textures.iter().position(|u| Arc::ptr_eq(u, t)) {
            return i;
        }
        self.textures.push(Arc::clone(t));
        self.textures.len() - 1
    }
}

impl DrawTarget for Recorder {
    fn width(&self) -> u32 {
        self.size[0]
    }
    fn height(&self) -> u32 {
        self.size[1]
    }
    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8) {
        self.commands.push(CommandDoc::Clear {
            color,
            depth,
            stencil,
        });
    }
    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        self.commands.push(CommandDoc::ClearRect {
            rect,
            color,
            depth,
            stencil,
        });
    }
    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        state.validate()?;
        vertices.validate()?;
        indices.validate(vertices.positions.len())?;
        let w = &mut self.writer;
        let doc = DrawDoc {
            state: *state,
            positions: w.put(vertices.positions),
            colors: vertices.colors.map(|c| w.put(c)),
            uvs: vertices.uvs.iter().map(|u| w.put(u)).collect(),
            fog: vertices.fog.map(|f| w.put(f)),
            indices: w.indices(indices),
            topology,
        };
        self.commands.push(CommandDoc::Draw(Box::new(doc)));
        Ok(DrawStats::default())
    }
    fn draw_fixed(
        &mut self,
        state: &PipelineState,
        ff: &FixedFunction,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        state.validate()?;
        crate::fixed_function::check_fixed_input(ff, transforms, mesh, indices)?;
        let units = ff
            .units
            .iter()
            .map(|u| UnitDoc {
                texture: self.texture_index(&u.texture),
                sampler: u.sampler,
                apply: u.apply,
                constant: u.constant,
                uv_set: u.uv_set,
                texgen: u.texgen,
                matrix: u.matrix,
            })
            .collect();
        let w = &mut self.writer;
        let doc = DrawFixedDoc {
            state: *state,
            fixed: FixedDoc {
                lighting: ff.lighting,
                per_pixel_lighting: ff.per_pixel_lighting,
                fog: ff.fog,
                units,
            },
            transforms: *transforms,
            positions: w.put(mesh.positions),
            normals: mesh.normals.map(|n| w.put(n)),
            colors: mesh.colors.map(|c| w.put(c)),
            uvs: mesh.uvs.iter().map(|u| w.put(u)).collect(),
            indices: w.indices(indices),
            topology,
        };
        self.commands.push(CommandDoc::DrawFixed(Box::new(doc)));
        Ok(DrawStats::default())
    }
}
