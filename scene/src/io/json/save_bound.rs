//! Writing a saved scene to disk, with its size bounded: the saver writes every leaf's mesh
//! inline, so a mesh shared by many leaves (an instanced scene: one model, 10⁵ leaves) is
//! written once per leaf, and a scene file of a few hundred bytes could convert into
//! gigabytes. [`write_scene_limited`] refuses, before the document is built, when the
//! meshes and particle systems alone would pass the limit (counting each number at its
//! shortest, so a file that fits is never refused by this estimate), and refuses again,
//! before anything is written, when the document's text does. The default limit,
//! [`MAX_FILE_BYTES`], is the largest scene file the loader reads: a written scene loads
//! again.

use std::path::Path;

use super::limits::MAX_FILE_BYTES;
use super::save_scene::save_scene;
use crate::graph::Scene;
use crate::io::error::IoError;
use crate::io::imported::Imported;
use crate::values::mesh::Mesh;

/// The fewest bytes a `k`-number array on its own line takes in a saved file (12 spaces of
/// indentation at the shallowest depth a mesh array sits, brackets, `0.0`-long numbers,
/// `, ` between them, a newline).
const fn row_bytes(k: u64) -> u64 {
    12 + 2 + 3 * k + 2 * (k - 1) + 1
}

/// The fewest bytes the saver writes for `mesh` inline.
fn mesh_bytes(m: &Mesh) -> u64 {
    let n = m.positions().len() as u64;
    let mut per_vertex = row_bytes(3);
    if m.normals().is_some() {
        per_vertex += row_bytes(3);
    }
    if m.colors().is_some() {
        per_vertex += row_bytes(4);
    }
    if m.tangents().is_some() {
        per_vertex += row_bytes(4);
    }
    per_vertex += row_bytes(2) * m.uv_sets().len() as u64;
    // Indices, written unless they are `0, 1, …, n − 1`, are one line of numbers: a digit
    // and `, ` each at least.
    let identity = m.indices().len() as u64 == n
        && m.indices()
            .iter()
            .enumerate()
            .all(|(i, &k)| k as usize == i);
    let indices = if identity {
        0
    } else {
        (3 * m.indices().len() as u64).saturating_sub(2)
    };
    n.saturating_mul(per_vertex).saturating_add(indices)
}

/// Refuses a save of `scene` to `file` whose meshes and particle systems alone would pass
/// `max` bytes, naming the leaf at which they do. Every leaf's mesh is counted (the saver
/// writes meshes inline, a shared mesh once per leaf), each number at its shortest (`0.0`),
/// so a scene whose file fits is never refused here; what the count lets through is checked
/// against the text by [`write_scene_limited`].
///
/// # Errors
/// [`IoError::SaveTooLarge`].
pub fn check_saved_size(scene: &Scene, file: &Path, max: u64) -> Result<(), IoError> {
    let mut total = 0u64;
    let over = |context: String, total: u64| IoError::SaveTooLarge {
        file: file.to_owned(),
        context,
        bytes: total,
        max,
    };
    let nodes = scene.preorder(scene.root()).unwrap_or_default();
    for id in nodes {
        let bytes = match (scene.particles(id), scene.mesh(id)) {
            // Location, size and colour per particle at least.
            (Ok(p), _) => (p.len() as u64).saturating_mul(row_bytes(3) + 3),
            (_, Ok(m)) => mesh_bytes(m),
            _ => continue,
        };
        total = total.saturating_add(bytes);
        if total > max {
            return Err(over(scene.path_of(id), total));
        }
    }
    for (i, p) in scene.screen_polygons().iter().enumerate() {
        total = total.saturating_add(mesh_bytes(&p.mesh));
        if total > max {
            return Err(over(format!("screen polygon {i}"), total));
        }
    }
    Ok(())
}

/// Saves `scene` to `path` (a `.json` file) with its textures as PNG files beside it
/// ([`save_scene`], images named after the file's stem), refusing a scene file of more than
/// [`MAX_FILE_BYTES`] (the largest the loader reads): [`write_scene_limited`] with that limit.
///
/// # Errors
/// Everything [`write_scene_limited`] returns.
pub fn write_scene(scene: &Scene, imported: Option<&Imported>, path: &Path) -> Result<(), IoError> {
    write_scene_limited(scene, imported, path, MAX_FILE_BYTES)
}

/// [`write_scene`] with a scene file of at most `max_bytes`: refused before the document is
/// built when its meshes alone would pass it ([`check_saved_size`]), and before anything is
/// written when its text does.
///
/// # Errors
/// Everything [`save_scene`] returns; [`IoError::SaveTooLarge`] past `max_bytes`;
/// [`IoError::Invalid`] when a file cannot be written.
pub fn write_scene_limited(
    scene: &Scene,
    imported: Option<&Imported>,
    path: &Path,
    max_bytes: u64,
) -> Result<(), IoError> {
    check_saved_size(scene, path, max_bytes)?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scene")
        .to_owned();
    let saved = save_scene(scene, imported, path, &stem)?;
    let text = saved.text();
    if text.len() as u64 > max_bytes {
        return Err(IoError::SaveTooLarge {
            file: path.to_owned(),
            context: "scene file".to_owned(),
            bytes: text.len() as u64,
            max: max_bytes,
        });
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let write = |p: &Path, bytes: &[u8]| {
        std::fs::write(p, bytes).map_err(|e| IoError::Invalid {
            file: p.to_owned(),
            location: None,
            context: "write".to_owned(),
            message: e.to_string(),
        })
    };
    for (name, png) in &saved.images {
        write(&dir.join(name), png)?;
    }
    write(path, text.as_bytes())
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "the_estimate_is_below_what_the_saver_writes",
        the_estimate_is_below_what_the_saver_writes,
    )];

    use super::*;

    fn the_estimate_is_below_what_the_saver_writes() {
        let mut scene = Scene::new();
        let root = scene.root();
        let mesh = std::sync::Arc::new(crate::values::shapes::sphere(1.0, 6, 8).unwrap());
        for i in 0..3 {
            scene
                .add_geometry(root, format!("ball{i}"), std::sync::Arc::clone(&mesh))
                .unwrap();
        }
        let file = Path::new("out.json");
        let text = save_scene(&scene, None, file, "out").unwrap().text();
        let estimate = 3 * mesh_bytes(&mesh);
        assert!(estimate < text.len() as u64, "{estimate} ≥ {}", text.len());
        assert!(check_saved_size(&scene, file, text.len() as u64).is_ok());
        let e = check_saved_size(&scene, file, estimate - 1).unwrap_err();
        assert!(e.to_string().contains("root/ball2"), "{e}");
    }
}
