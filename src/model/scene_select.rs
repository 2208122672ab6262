//! `--scene NAME|INDEX`: which scene of a glTF file `plumb render` draws.
//!
//! * Without `--scene` the file's default scene is drawn (`scene`, else the first of
//!   `scenes`; `plumb info` marks it `(default)`).
//! * `--scene` picks one — by exact name first, else by 0-based index in file order (the
//!   order `plumb info` lists them in) — and only its nodes are imported (cameras, lights and
//!   animations of other scenes' nodes included out).
//! * `--scene` applies to glTF files (`.gltf`, `.glb`) only; an unknown name or an index out
//!   of range is a one-line error listing the scenes.

use std::path::Path;

use crate::scene::io::gltf::{gltf_scenes, GltfScenes};
use crate::scene::io::{Format, ImportOptions};

/// One scene as `plumb info` and the error messages list it: `1 'Night'`, with
/// ` (default)` after the default scene.
pub fn label(index: usize, scenes: &GltfScenes) -> String {
    let default = if scenes.default == Some(index) {
        " (default)"
    } else {
        ""
    };
    let name = scenes.names.get(index).map_or("", String::as_str);
    format!("{index} '{name}'{default}")
}

/// The index of the scene `selection` names (see the [module docs](self)).
///
/// # Errors
/// A one-line message listing the scenes.
pub fn resolve(scenes: &GltfScenes, selection: &str) -> Result<usize, String> {
    if let Some(i) = scenes.names.iter().position(|n| n == selection) {
        return Ok(i);
    }
    if scenes.names.is_empty() {
        return Err(format!("--scene '{selection}': the file has no scenes"));
    }
    let list: Vec<String> = (0..scenes.names.len()).map(|i| label(i, scenes)).collect();
    let list = list.join(", ");
    match selection.trim().parse::<usize>() {
        Ok(i) if i < scenes.names.len() => Ok(i),
        Ok(i) => Err(format!(
            "--scene {i}: index out of range, the file has {} scene(s): {list}",
            scenes.names.len()
        )),
        Err(_) => Err(format!(
            "--scene '{selection}': no scene of that name; scenes: {list}"
        )),
    }
}

/// The `KHR_materials_variants` index `selection` names in the file at `path` (`None`
/// without `--variant`): an exact name first, else a 0-based index.
///
/// # Errors
/// A one-line message: not a glTF file, an unreadable file, no such variant (listing them).
pub fn select_variant(path: &Path, selection: Option<&str>) -> Result<Option<usize>, String> {
    let Some(sel) = selection else {
        return Ok(None);
    };
    let names = listing(path, "--variant")?.variants;
    if let Some(i) = names.iter().position(|n| n == sel) {
        return Ok(Some(i));
    }
    if let Some(i) = sel
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|&i| i < names.len())
    {
        return Ok(Some(i));
    }
    if names.is_empty() {
        return Err(format!(
            "--variant '{sel}': the file has no material variants"
        ));
    }
    let list: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{i} '{n}'"))
        .collect();
    Err(format!(
        "--variant '{sel}': no variant of that name or index; variants: {}",
        list.join(", ")
    ))
}

/// The scenes and variants of the glTF file at `path`, for `flag`'s selection.
///
/// # Errors
/// `flag` given for a file that is not glTF, or the document's error.
fn listing(path: &Path, flag: &str) -> Result<GltfScenes, String> {
    if Format::from_path(path) != Some(Format::Gltf) {
        return Err(format!(
            "{flag} applies to glTF files (.gltf, .glb), not {}",
            path.display()
        ));
    }
    gltf_scenes(path, &ImportOptions::default()).map_err(|e| e.to_string())
}

/// The scene index `selection` names in the file at `path` (`None` without `--scene`).
///
/// # Errors
/// A one-line message: not a glTF file, an unreadable file, or [`resolve`]'s.
pub fn select(path: &Path, selection: Option<&str>) -> Result<Option<usize>, String> {
    let Some(sel) = selection else {
        return Ok(None);
    };
    resolve(&listing(path, "--scene")?, sel).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenes(names: &[&str], default: Option<usize>) -> GltfScenes {
        GltfScenes {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            default,
            variants: Vec::new(),
        }
    }

    #[test]
    fn name_first_then_index() {
        let s = scenes(&["Day", "1", "Night"], Some(2));
        assert_eq!(resolve(&s, "Night"), Ok(2));
        // "1" is a scene's name: the name wins over index 1.
        assert_eq!(resolve(&s, "1"), Ok(1));
        assert_eq!(resolve(&s, "0"), Ok(0));
        let e = resolve(&s, "3").unwrap_err();
        assert!(
            e.contains("out of range") && e.contains("2 'Night' (default)"),
            "{e}"
        );
        let e = resolve(&s, "Dusk").unwrap_err();
        assert!(e.contains("'Dusk'") && e.contains("0 'Day'"), "{e}");
        assert!(!e.contains('\n'));
        assert!(resolve(&scenes(&[], None), "0")
            .unwrap_err()
            .contains("no scenes"));
        assert_eq!(label(0, &s), "0 'Day'");
    }
}
