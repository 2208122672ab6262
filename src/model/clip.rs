//! `--clip NAME|INDEX`: which glTF animation (clip) `plumb render` plays.
//!
//! * Without `--clip` every animation plays. Where several drive the same property (one
//!   node's translation, rotation or scale, or one node's morph weights), the **later
//!   animation in the file wins**: its whole track replaces the earlier ones' — tracks are
//!   not blended or added (see `io::merge_animations` and the glTF importer's `deform` docs).
//!   Properties no animation drives keep the file's rest values.
//! * `--clip` picks one animation — by exact name first, else by 0-based index in file order
//!   (the order `plumb info` lists them in) — and plays only it: its transform tracks and its
//!   morph `weights` channels. Every other node keeps its rest pose and every other morphed
//!   mesh its static weights.
//! * `--clip` applies to glTF files (`.gltf`, `.glb`) only; an unknown name or an index out of
//!   range is a one-line error listing the clips.

use std::path::Path;

use crate::scene::io::{self, Animation, Format};

/// One clip as `plumb info` and the error messages list it: `0 'Walk'`.
pub fn label(index: usize, a: &Animation) -> String {
    format!("{index} '{}'", a.name)
}

/// The index of the clip `selection` names in `animations` (see the [module docs](self)).
///
/// # Errors
/// A one-line message listing the clips.
pub fn resolve(animations: &[Animation], selection: &str) -> Result<usize, String> {
    if let Some(i) = animations.iter().position(|a| a.name == selection) {
        return Ok(i);
    }
    if animations.is_empty() {
        return Err(format!("--clip '{selection}': the file has no animations"));
    }
    let list: Vec<String> = animations
        .iter()
        .enumerate()
        .map(|(i, a)| label(i, a))
        .collect();
    let list = list.join(", ");
    match selection.trim().parse::<usize>() {
        Ok(i) if i < animations.len() => Ok(i),
        Ok(i) => Err(format!(
            "--clip {i}: index out of range, the file has {} clip(s): {list}",
            animations.len()
        )),
        Err(_) => Err(format!(
            "--clip '{selection}': no clip of that name; clips: {list}"
        )),
    }
}

/// Switches the animations of the file at `path` to play only the clip `selection` names
/// (nothing to do without `--clip`).
///
/// # Errors
/// A one-line message: not a glTF file, or [`resolve`]'s.
pub fn select(
    path: &Path,
    animations: &[Animation],
    selection: Option<&str>,
) -> Result<(), String> {
    let Some(sel) = selection else {
        return Ok(());
    };
    if Format::from_path(path) != Some(Format::Gltf) {
        return Err(format!(
            "--clip applies to glTF files (.gltf, .glb), not {}",
            path.display()
        ));
    }
    let i = resolve(animations, sel)?;
    io::play_only(animations, Some(i));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<Animation> {
        names
            .iter()
            .map(|n| Animation::new((*n).to_owned(), Vec::new()))
            .collect()
    }

    #[test]
    fn name_first_then_index() {
        let a = named(&["Walk", "1", "Run"]);
        assert_eq!(resolve(&a, "Run"), Ok(2));
        // "1" is a clip's name: the name wins over index 1.
        assert_eq!(resolve(&a, "1"), Ok(1));
        assert_eq!(resolve(&a, "0"), Ok(0));
        let e = resolve(&a, "3").unwrap_err();
        assert!(e.contains("out of range") && e.contains("2 'Run'"), "{e}");
        let e = resolve(&a, "Jump").unwrap_err();
        assert!(e.contains("'Jump'") && e.contains("0 'Walk'"), "{e}");
        assert!(resolve(&[], "0").unwrap_err().contains("no animations"));
    }
}
