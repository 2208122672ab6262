//! Scenes built in code from arrays (the Python package's `plumb.Scene()`): meshes, lights and
//! poses collected as a scene-file document ([`SceneDoc`]), so a built scene **is** a scene
//! file — [`ArrayScene::save`] writes it, and `plumb render` draws the saved file with the same
//! bytes — and it is drawn through the same loader ([`json::build`]): bounds, culling,
//! lighting and everything else work as for files.
//!
//! Checked on the way in, each a one-line error naming the mesh and the array: shapes (one
//! normal, colour and uv per position; triangles as index triples), finite values, indices
//! below the vertex count, at most [`MAX_ARRAY_VERTICES`] vertices and
//! [`MAX_ARRAY_TRIANGLES`] triangles per mesh, and a pose whose last row is `0, 0, 0, 1`.

use std::collections::BTreeSet;
use std::path::Path;

use glam::Vec4;

use crate::scene::io as scene_io;
use crate::scene::io::json::{
    self, InlineMeshDoc, LightDoc, MeshDoc, NodeDoc, Real, Real4, SceneDoc, TransformDoc,
};

use super::{LoadedModel, ModelError};

/// Most vertices of one mesh built from arrays: 2²⁴ (the glTF importer's accessor limit).
pub const MAX_ARRAY_VERTICES: usize = 1 << 24;
/// Most triangles of one mesh built from arrays: 2²⁴.
pub const MAX_ARRAY_TRIANGLES: usize = 1 << 24;

/// One mesh's arrays: positions, and optionally triangles (index triples; default every three
/// positions a triangle), normals, RGBA colours in 0..1 and texture coordinates, one per
/// position.
#[derive(Clone, Debug, Default)]
pub struct MeshArrays {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Triangles, as indices into `positions`.
    pub triangles: Option<Vec<[u32; 3]>>,
    /// Normals (default: area-weighted vertex normals are generated).
    pub normals: Option<Vec<[f32; 3]>>,
    /// RGBA colours in 0..1 (drawn as the material's colour where given).
    pub colors: Option<Vec<[f32; 4]>>,
    /// Texture coordinates (set 0).
    pub uvs: Option<Vec<[f32; 2]>>,
}

/// A scene built in code (see the [module docs](self)).
#[derive(Clone, Debug, Default)]
pub struct ArrayScene {
    doc: SceneDoc,
    /// Meshes and lights added, for their default names.
    added: usize,
    /// The names of the meshes and lights (unique), so that adding is not quadratic.
    names: BTreeSet<String>,
    /// Meshes added, for their default object ids (1, 2, … in the order added).
    meshes_added: u32,
}

fn real(x: f32, what: &dyn Fn() -> String) -> Result<Real, String> {
    Real::new(x).ok_or_else(|| format!("{} is not finite ({x})", what()))
}

fn reals<const N: usize>(
    v: &[[f32; N]],
    what: &dyn Fn() -> String,
) -> Result<Vec<[Real; N]>, String> {
    v.iter()
        .enumerate()
        .map(|(i, p)| {
            let mut out = [Real::default(); N];
            for (o, &x) in out.iter_mut().zip(p) {
                *o = real(x, &|| format!("{} row {i}", what()))?;
            }
            Ok(out)
        })
        .collect()
}

/// The transform of a camera-to-world style 4×4 `pose` (row-major): its 3×3 part as a general
/// linear part, its last column as the translation.
fn pose_transform(pose: &[f32; 16], what: &str) -> Result<TransformDoc, String> {
    let m = |r: usize, c: usize| pose[4 * r + c];
    if [m(3, 0), m(3, 1), m(3, 2), m(3, 3)] != [0.0, 0.0, 0.0, 1.0] {
        return Err(format!("{what}: the pose's last row must be 0,0,0,1"));
    }
    let name = || format!("{what}: the pose");
    let mut linear = [Real::default(); 9];
    for c in 0..3 {
        for r in 0..3 {
            linear[3 * c + r] = real(m(r, c), &name)?;
        }
    }
    let translation = [
        real(m(0, 3), &name)?,
        real(m(1, 3), &name)?,
        real(m(2, 3), &name)?,
    ];
    Ok(TransformDoc {
        translation: Some(translation),
        matrix: Some(linear),
        ..TransformDoc::default()
    })
}

impl ArrayScene {
    /// An empty scene.
    pub fn new() -> ArrayScene {
        ArrayScene::default()
    }

    /// The document the scene is (what [`ArrayScene::save`] writes).
    pub fn doc(&self) -> &SceneDoc {
        &self.doc
    }

    fn next_name(&mut self, kind: &str, name: Option<String>) -> Result<String, String> {
        self.added += 1;
        let name = name.unwrap_or_else(|| format!("{kind}_{}", self.added));
        if name.is_empty() || self.names.contains(&name) {
            return Err(format!(
                "name '{name}' is empty or already used: names are unique"
            ));
        }
        Ok(name)
    }

    /// Adds a mesh under the root, at `pose` (row-major 4×4, default identity), coloured
    /// `color` (the material's diffuse and ambient, default the book's grey), writing
    /// `object_id` to an id plane (default: 1 for the first mesh added, 2 for the second, …;
    /// 0 is refused, it means background). Returns its name (`name`, or `mesh_N`).
    ///
    /// # Errors
    /// A one-line message naming the mesh and the array (see the [module docs](self)).
    pub fn add_mesh(
        &mut self,
        mesh: MeshArrays,
        pose: Option<&[f32; 16]>,
        (color, object_id): (Option<[f32; 4]>, Option<u32>),
        name: Option<String>,
    ) -> Result<String, String> {
        let name = self.next_name("mesh", name)?;
        let n = mesh.positions.len();
        let what = |array: &str| format!("mesh '{name}': {array}");
        if n == 0 {
            return Err(what("positions are empty"));
        }
        if n > MAX_ARRAY_VERTICES {
            return Err(what(&format!(
                "{n} vertices; a mesh has at most {MAX_ARRAY_VERTICES}"
            )));
        }
        let triangles = match &mesh.triangles {
            Some(t) => {
                if t.len() > MAX_ARRAY_TRIANGLES {
                    return Err(what(&format!(
                        "{} triangles; a mesh has at most {MAX_ARRAY_TRIANGLES}",
                        t.len()
                    )));
                }
                if let Some((i, tri)) = t
                    .iter()
                    .enumerate()
                    .find(|(_, tri)| tri.iter().any(|&k| k as usize >= n))
                {
                    return Err(what(&format!(
                        "triangle {i} {tri:?} indexes past the {n} vertices"
                    )));
                }
                Some(t.iter().flatten().copied().collect())
            }
            None if !n.is_multiple_of(3) => {
                return Err(what(&format!(
                    "{n} positions without triangles: need a multiple of 3"
                )))
            }
            None => None,
        };
        let per_vertex = |array: &str, len: Option<usize>| match len {
            Some(l) if l != n => Err(what(&format!(
                "{array} has {l} rows, positions {n}: one per position"
            ))),
            _ => Ok(()),
        };
        per_vertex("normals", mesh.normals.as_ref().map(Vec::len))?;
        per_vertex("colors", mesh.colors.as_ref().map(Vec::len))?;
        per_vertex("uvs", mesh.uvs.as_ref().map(Vec::len))?;
        if let Some(c) = &mesh.colors {
            if let Some(i) = c
                .iter()
                .position(|c| c.iter().any(|x| !(0.0..=1.0).contains(x)))
            {
                return Err(what(&format!("colors row {i} is outside 0..1")));
            }
        }
        let inline = InlineMeshDoc {
            topology: Default::default(),
            positions: reals(&mesh.positions, &|| what("positions"))?,
            generate_normals: mesh.normals.is_none(),
            normals: mesh
                .normals
                .as_deref()
                .map(|v| reals(v, &|| what("normals")))
                .transpose()?,
            colors: mesh
                .colors
                .as_deref()
                .map(|v| reals(v, &|| what("colors")))
                .transpose()?,
            uvs: match &mesh.uvs {
                Some(v) => vec![reals(v, &|| what("uvs"))?],
                None => Vec::new(),
            },
            tangents: None,
            indices: triangles,
            active: None,
        };
        let mut node = self.placed_node(&name, pose, object_id, &what)?;
        node.mesh = Some(MeshDoc::Inline(inline));
        let colour_material = mesh.colors.is_some();
        if color.is_some() || colour_material {
            let c = color.unwrap_or([0.8, 0.8, 0.8, 1.0]);
            if !c.iter().all(|x| (0.0..=1.0).contains(x)) {
                return Err(what(&format!("color {c:?} is outside 0..1")));
            }
            node.states = Some(
                serde_json::from_value(serde_json::json!({"material": {
                    "diffuse": c, "ambient": c, "color_material": colour_material}}))
                .map_err(|e| what(&e.to_string()))?,
            );
        }
        self.doc.root.children.push(node);
        self.names.insert(name.clone());
        Ok(name)
    }

    /// Adds a light that lights every mesh: `kind` `"directional"` (along `direction`),
    /// `"point"` (at `position`) or `"spot"` (both); `color` × `intensity` its diffuse and
    /// specular colour. Returns its name (`name`, or `light_N`).
    ///
    /// # Errors
    /// An unknown kind, a missing or non-finite position or direction, a colour outside 0..1.
    pub fn add_light(
        &mut self,
        kind: &str,
        color: [f32; 3],
        intensity: f32,
        position: Option<[f32; 3]>,
        direction: Option<[f32; 3]>,
        name: Option<String>,
    ) -> Result<String, String> {
        let name = self.next_name("light", name)?;
        let what = format!("light '{name}'");
        let (needs_position, needs_direction) = match kind {
            "directional" => (false, true),
            "point" => (true, false),
            "spot" => (true, true),
            other => {
                return Err(format!(
                    "{what}: kind '{other}' is not directional, point or spot"
                ))
            }
        };
        if needs_position && position.is_none() || needs_direction && direction.is_none() {
            return Err(format!(
                "{what}: a {kind} light needs {}",
                match (needs_position, needs_direction) {
                    (true, true) => "a position and a direction",
                    (true, false) => "a position",
                    _ => "a direction",
                }
            ));
        }
        let in_range = color.iter().all(|x| (0.0..=1.0).contains(x));
        if !(in_range && intensity.is_finite() && intensity >= 0.0) {
            return Err(format!(
                "{what}: color {color:?} must be in 0..1 and intensity {intensity} ≥ 0"
            ));
        }
        let mut light = serde_json::json!({"name": name, "type": kind,
            "diffuse": [color[0], color[1], color[2], 1.0],
            "specular": [color[0], color[1], color[2], 1.0],
            "intensity": intensity});
        if let Some(p) = position {
            light["position"] = serde_json::json!(p);
        }
        if let Some(d) = direction {
            light["direction"] = serde_json::json!(d);
        }
        let light: LightDoc = serde_json::from_value(light).map_err(|e| format!("{what}: {e}"))?;
        self.doc.lights.push(light);
        self.doc.root.lights.push(name.clone());
        self.names.insert(name.clone());
        Ok(name)
    }

    /// Adds the glTF, GLB or OBJ file at `path` under the root as one node (`name`, or
    /// `file_N`) at `pose`, its whole scene drawn as `plumb render` draws an import of a scene
    /// file (the same load budgets), every mesh of it writing `object_id` (default: the next
    /// mesh id, as [`ArrayScene::add_mesh`] counts them) to an id plane. Returns its name.
    ///
    /// The file is referred to by its absolute path ([`ArrayScene::to_json`]);
    /// [`ArrayScene::save`] writes it relative to the saved file, which must then be in a
    /// folder that contains it (a scene file imports only files inside its folder).
    ///
    /// # Errors
    /// A missing file, an extension other than `.gltf`, `.glb` or `.obj`, a bad pose or id.
    /// What is wrong inside the file is found when the scene is next drawn.
    pub fn add_file(
        &mut self,
        path: &Path,
        pose: Option<&[f32; 16]>,
        object_id: Option<u32>,
        name: Option<String>,
    ) -> Result<String, String> {
        let name = self.next_name("file", name)?;
        let what = |m: &str| format!("file '{name}' ({}): {m}", path.display());
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(ext.as_deref(), Some("gltf" | "glb" | "obj")) {
            return Err(what("only .gltf, .glb and .obj files can be added"));
        }
        let real = std::fs::canonicalize(path).map_err(|e| what(&e.to_string()))?;
        if !real.is_file() {
            return Err(what("not a file"));
        }
        let import = real
            .to_str()
            .ok_or_else(|| what("the path is not UTF-8"))?
            .to_owned();
        let mut node = self.placed_node(&name, pose, object_id, &what)?;
        node.import = Some(import);
        self.doc.root.children.push(node);
        self.names.insert(name.clone());
        Ok(name)
    }

    /// A node `name` at `pose` writing `object_id` (default: the next of 1, 2, … counted over
    /// meshes and files; 0 refused), for [`ArrayScene::add_mesh`] and
    /// [`ArrayScene::add_file`]; `what` words its errors.
    fn placed_node(
        &mut self,
        name: &str,
        pose: Option<&[f32; 16]>,
        object_id: Option<u32>,
        what: &dyn Fn(&str) -> String,
    ) -> Result<NodeDoc, String> {
        if object_id == Some(0) {
            return Err(what("object id 0 is the background's; ids start at 1"));
        }
        let mut node: NodeDoc = serde_json::from_value(serde_json::json!({"name": name}))
            .map_err(|e| what(&e.to_string()))?;
        node.transform = pose.map(|p| pose_transform(p, &what("pose"))).transpose()?;
        self.meshes_added = self.meshes_added.saturating_add(1);
        node.object_id = Some(object_id.unwrap_or(self.meshes_added));
        Ok(node)
    }

    /// The document with every added file's path relative to `base` (a folder holding them
    /// all), as a scene file in `base` must name them.
    fn relative_to(&self, base: &Path) -> Result<SceneDoc, String> {
        let mut doc = self.doc.clone();
        for node in &mut doc.root.children {
            if let Some(file) = &mut node.import {
                let rel = Path::new(file.as_str()).strip_prefix(base).map_err(|_| {
                    format!(
                        "{file} is not inside {}: a scene file imports only files inside its folder",
                        base.display()
                    )
                })?;
                *file = rel
                    .to_str()
                    .ok_or_else(|| format!("{}: the path is not UTF-8", rel.display()))?
                    .to_owned();
            }
        }
        Ok(doc)
    }

    /// The deepest folder that holds every added file (`None` without files).
    fn files_folder(&self) -> Option<std::path::PathBuf> {
        let mut folders = self
            .doc
            .root
            .children
            .iter()
            .filter_map(|n| n.import.as_deref())
            .filter_map(|f| Path::new(f).parent());
        let mut common = folders.next()?.to_path_buf();
        for f in folders {
            while !f.starts_with(&common) {
                common = common.parent()?.to_path_buf();
            }
        }
        Some(common)
    }

    /// The object id mesh `name` writes to an id plane (`ids=True`).
    ///
    /// # Errors
    /// No mesh of that name.
    pub fn object_id(&self, name: &str) -> Result<u32, String> {
        self.doc
            .root
            .children
            .iter()
            .find(|n| n.name == name)
            .and_then(|n| n.object_id)
            .ok_or_else(|| format!("no mesh named '{name}'"))
    }

    /// Moves mesh or file `name` to `pose` (row-major 4×4).
    ///
    /// # Errors
    /// No mesh of that name; a pose whose last row is not `0, 0, 0, 1` or not finite.
    pub fn set_pose(&mut self, name: &str, pose: &[f32; 16]) -> Result<(), String> {
        let t = pose_transform(pose, &format!("mesh '{name}'"))?;
        let node = self
            .doc
            .root
            .children
            .iter_mut()
            .find(|n| n.name == name)
            .ok_or_else(|| format!("no mesh named '{name}'"))?;
        node.transform = Some(t);
        Ok(())
    }

    /// Removes the mesh or light `name`.
    ///
    /// # Errors
    /// Nothing of that name.
    pub fn remove(&mut self, name: &str) -> Result<(), String> {
        self.names.remove(name);
        let before = self.doc.root.children.len() + self.doc.lights.len();
        self.doc.root.children.retain(|n| n.name != name);
        self.doc.lights.retain(|l| l.name != name);
        self.doc.root.lights.retain(|l| l != name);
        if self.doc.root.children.len() + self.doc.lights.len() == before {
            return Err(format!("no mesh or light named '{name}'"));
        }
        Ok(())
    }

    /// Sets the clear colour.
    pub fn set_background(&mut self, rgba: [f32; 4]) -> Result<(), String> {
        let c: Real4 = [
            real(rgba[0], &|| "background".to_owned())?,
            real(rgba[1], &|| "background".to_owned())?,
            real(rgba[2], &|| "background".to_owned())?,
            real(rgba[3], &|| "background".to_owned())?,
        ];
        self.doc.background = Some(c);
        Ok(())
    }

    /// The scene as a scene file's text (`plumb render FILE` draws it with the same bytes).
    pub fn to_json(&self) -> String {
        json::save(&self.doc)
    }

    /// Writes the scene file `path`: [`ArrayScene::to_json`], with added files named relative
    /// to `path`'s folder (see [`ArrayScene::add_file`]).
    ///
    /// # Errors
    /// An added file outside `path`'s folder; the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let folder =
            std::fs::canonicalize(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let doc = self.relative_to(&folder)?;
        std::fs::write(path, json::save(&doc)).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Builds the scene for drawing, as `plumb render` loads a scene file (the load's
    /// documented limits apply; `background` replaces the scene's clear colour).
    ///
    /// # Errors
    /// What building the document finds (one line).
    pub fn to_model(&self, background: Option<Vec4>) -> Result<LoadedModel, ModelError> {
        // Added files are imported as by a scene file in the folder that holds them all.
        let (doc, path) = match self.files_folder() {
            Some(folder) => (
                std::borrow::Cow::Owned(self.relative_to(&folder).map_err(ModelError::bad_input)?),
                folder.join("<arrays>.json"),
            ),
            None => (
                std::borrow::Cow::Borrowed(&self.doc),
                Path::new("<arrays>.json").to_path_buf(),
            ),
        };
        // The options `plumb render` loads a scene file with, so that the saved file draws the
        // same bytes (they decide how imported files are lit).
        let options =
            super::import_options(false.into(), (None, None), &scene_io::WorkBudget::default());
        let scene_io::ImportedScene { scene, imported } =
            scene_io::load_doc(&doc, &path, &options).map_err(|e| ModelError::from(&e))?;
        let applied = imported.applied.clone();
        LoadedModel::finish(&path, scene, imported, applied, None, background)
            .map_err(ModelError::from)
    }
}
