//! Import settings and limits ([`ImportOptions`]), shared by every reader, and how
//! [`load`](super::load) maps an import onto render state ([`ApplyOptions`]).

use super::budget::WorkBudget;

/// Default for [`ImportOptions::max_file_bytes`]: 1 GiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1 << 30;
/// Default for [`ImportOptions::max_texture_size`]: 8192 texels per side.
pub const DEFAULT_MAX_TEXTURE_SIZE: u32 = 8192;
/// Default for [`ImportOptions::max_texture_bytes`]: 1 GiB of decoded texels, counted at 4
/// bytes per texel (RGBA8; a level holds 8 per texel in memory, `MipLevel`'s texel pairs).
pub const DEFAULT_MAX_TEXTURE_BYTES: u64 = 1 << 30;
/// Default for [`ImportOptions::max_geometry_bytes`]: 512 MiB of decoded vertex and index
/// data per load.
pub const DEFAULT_MAX_GEOMETRY_BYTES: u64 = 512 << 20;
/// Default for [`ImportOptions::max_nodes`]: 2²⁰ glTF nodes per file (a file of 10⁶ nodes
/// loads and renders in under 2 GB; `benches/big-inputs.sh` measures it).
pub const DEFAULT_MAX_NODES: usize = 1 << 20;

/// Import settings and limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportOptions {
    /// Largest scene, buffer or image file (or data URI) accepted, in bytes.
    pub max_file_bytes: u64,
    /// Largest texture side accepted, in texels (at most
    /// [`plumb_raster::texture::MAX_TEXTURE_SIZE`], which also applies).
    pub max_texture_size: u32,
    /// Most bytes of decoded textures (RGBA8, mip chains included) one load may hold, over
    /// every image of the file and of the files a scene file imports. Checked from each
    /// image's header (or a procedural texture's size) before its texels are allocated.
    pub max_texture_bytes: u64,
    /// Whether to decode textures; without them materials have no texture bindings (quicker
    /// when only the structure is wanted).
    pub textures: bool,
    /// Most bytes of decoded vertex, index and animation data (accessors, as 4-byte
    /// components after sparse substitution) one load may produce: one glTF file, or all the
    /// files a scene file imports together (what one import decoded is taken from what the
    /// next may use; OBJ counts its parsed arrays). Checked from each accessor's declared
    /// count before anything is allocated: a file of a few bytes can declare 2²⁶ zero-filled
    /// elements per accessor, and many accessors.
    pub max_geometry_bytes: u64,
    /// Most nodes one glTF file may declare, counted in its JSON before the document is
    /// parsed (parsed nodes and the scene nodes built from them take a few hundred bytes
    /// each, so the count, not the file size, bounds that memory); also the most scene nodes
    /// all of a scene file's imports may create together, so that importing one file many
    /// times cannot multiply it.
    pub max_nodes: usize,
    /// How [`load`](super::load) maps imported materials and lights onto render state
    /// ([`apply`](super::apply())) before returning the scene, so that the loaded scene draws
    /// as `plumb render` draws the file; `None` leaves the import raw (materials recorded in
    /// [`Imported::materials`](super::Imported::materials) only, no lights added). Readers
    /// called directly ([`import`](super::import()), `gltf::load_gltf`, …) never apply.
    pub apply: Option<ApplyOptions>,
    /// Which scene of a glTF file to import, by 0-based index in `scenes`; `None` imports the
    /// default scene (`scene`, else the first). Applies to every glTF file the load reads (a
    /// scene file's imports too); an index past the file's scenes is an error.
    pub gltf_scene: Option<usize>,
    /// Which `KHR_materials_variants` variant a glTF file's primitives take, by 0-based
    /// index in the file's `variants` (past them: an error listing them); `None` keeps each
    /// primitive's own material. Applies to every glTF file the load reads.
    pub gltf_variant: Option<usize>,
    /// The totals of generated work the load may ask for (generated and drawn primitives,
    /// CLOD builds, particles, IK steps, collision pairs, instance nodes, cleared pixels;
    /// see [`WorkBudget`]), each charged before the work is done.
    pub budget: WorkBudget,
}

/// How [`apply`](super::apply()) maps an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Draw every material unlit: base colour × vertex colour × texture, no lights at all
    /// (for comparing against other renderers' base colour output).
    pub unlit: bool,
    /// Add the default light rig when neither the import nor the scene it goes into has any
    /// light (for PBR only without [`ApplyOptions::default_environment`]).
    pub default_lights: bool,
    /// PBR: light such an import by the built-in studio environment instead of the rig,
    /// unless the scene has an environment (`plumb render --environment auto`).
    pub default_environment: bool,
    /// How lit materials are drawn.
    pub shading: Shading,
}

/// How [`apply`](super::apply()) draws lit materials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shading {
    /// The fixed-function approximation (Blinn–Phong colours, the book's bump map; see
    /// `io::apply`).
    Classic,
    /// glTF's metallic-roughness BRDF per pixel ([`Effect::Pbr`](crate::values::effect::Effect::Pbr)):
    /// the picture the format defines, and the default.
    #[default]
    Pbr,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            unlit: false,
            default_lights: true,
            default_environment: true,
            shading: Shading::Pbr,
        }
    }
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_texture_size: DEFAULT_MAX_TEXTURE_SIZE,
            max_texture_bytes: DEFAULT_MAX_TEXTURE_BYTES,
            textures: true,
            max_geometry_bytes: DEFAULT_MAX_GEOMETRY_BYTES,
            max_nodes: DEFAULT_MAX_NODES,
            apply: Some(ApplyOptions::default()),
            gltf_scene: None,
            gltf_variant: None,
            budget: WorkBudget::default(),
        }
    }
}

impl ImportOptions {
    pub(crate) fn clamped(&self) -> ImportOptions {
        ImportOptions {
            max_texture_size: self
                .max_texture_size
                .min(plumb_raster::texture::MAX_TEXTURE_SIZE),
            ..*self
        }
    }
}
