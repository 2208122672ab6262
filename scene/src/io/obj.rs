//! Wavefront OBJ + MTL import through `tobj`.
//!
//! * Every object (`o`/`g` name; the file stem for unnamed geometry) becomes a group node
//!   under the node imported into, and each run of faces with one material becomes a geometry
//!   leaf `<object>[<k>]` under it.
//! * Polygons are triangulated as fans from their first vertex (`tobj`'s rule). Positions,
//!   normals, uvs and vertex colours are welded into one index per vertex.
//! * Points (`p v1 v2 …`: one point per vertex) and polylines (`l v1 v2 …`, each `v/vt`
//!   reference's position: the segments v1–v2, v2–v3, …) are read by plumb itself (`tobj`
//!   would read `l 1 2 3` as a triangle): each run of them with one material becomes a
//!   geometry leaf `<object>[<k>]` of topology `Points` or `Lines` after the object's faces,
//!   holding the referenced positions (and `v x y z r g b` colours, white where a vertex has
//!   none). They carry no normals, so a lit material lights them with GL's current normal
//!   (0, 0, 1), as for any mesh without normals.
//! * Vertex colours (`v x y z r g b`) on some vertices only: the others are white, for faces
//!   too.
//! * Missing normals are generated smooth, area-weighted (each vertex gets the normalized sum
//!   of the unnormalized normals of its triangles, [`Mesh::with_generated_normals`]).
//! * `vt` has its origin at the bottom-left of the image; uvs are stored as `(u, 1 − v)` to
//!   match plumb's top-left texture origin.
//! * Materials (`mtllib`, resolved next to the OBJ file; `map_Kd` next to the MTL file):
//!   `Kd` → base colour (white when absent), `d` → its alpha and, when below 1, blending;
//!   `map_Kd` → base colour texture (trilinear, repeat, set 0); `Ke` → emissive;
//!   `Ns` → roughness by inverting the shininess rule of
//!   [`ImportedMaterial::fixed_function_approximation`] (`r = (2/(Ns+2))^¼`, 1 when
//!   absent); metallic 0. OBJ cannot say which faces are fronts, so materials are
//!   **double-sided**. Faces without a material get a white double-sided default.
//! * Errors name the file and line: non-finite numbers, faces with fewer than 3 vertices,
//!   lines with fewer than 2, points with none, or indices past the vertex arrays (checked by
//!   a first pass over the text), statements
//!   `tobj` cannot parse, missing material libraries or textures. A file with no vertex at
//!   all is refused as not being an OBJ file.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::Arc;

use glam::{Mat3, Vec2, Vec3, Vec4};
use plumb_raster::texture::Sampler;

use super::error::{IoError, Location};
use super::imported::Imported;
use super::material::{AlphaMode, ImportedMaterial, TextureBinding};
use super::{texture_image, uri, ImportOptions};
use crate::graph::{NodeId, Scene};
use crate::values::mesh::{Mesh, MeshTopology};

/// An in-memory reader that remembers how far the parser has read, so an error can be
/// given the line it happened on.
struct Tracked<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Tracked<'_> {
    /// The 1-based line holding the last byte consumed.
    fn line(&self) -> usize {
        let done = &self.data[..self.pos.min(self.data.len())];
        let newlines = done.iter().filter(|&&b| b == b'\n').count();
        match done.last() {
            None => 1,
            Some(b'\n') => newlines,
            Some(_) => newlines + 1,
        }
    }
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.data[self.pos.min(self.data.len())..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

impl BufRead for Tracked<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.data[self.pos.min(self.data.len())..])
    }
    fn consume(&mut self, amt: usize) {
        self.pos += amt;
    }
}

fn at_line(file: &Path, line: usize, context: &str, message: String) -> IoError {
    IoError::Invalid {
        file: file.to_owned(),
        location: Some(Location { line, column: None }),
        context: context.to_owned(),
        message,
    }
}

/// First pass: finite numbers, face arity and index ranges, with line numbers.
fn check_text(file: &Path, text: &str) -> Result<(), IoError> {
    let (mut nv, mut nt, mut nn) = (0usize, 0usize, 0usize);
    for line in text.lines() {
        match line.split_whitespace().next() {
            Some("v") => nv += 1,
            Some("vt") => nt += 1,
            Some("vn") => nn += 1,
            _ => {}
        }
    }
    if nv == 0 {
        return Err(IoError::Parse {
            file: file.to_owned(),
            location: None,
            message: "no vertex ('v' statement) found: not an OBJ file".to_owned(),
        });
    }
    let totals = [nv, nt, nn];
    let mut seen = [0usize; 3];
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        let mut tok = line.split_whitespace();
        let kind = tok.next();
        let slot = match kind {
            Some("v") => Some(0),
            Some("vt") => Some(1),
            Some("vn") => Some(2),
            _ => None,
        };
        if let Some(s) = slot {
            seen[s] += 1;
            // Unparsable numbers are left to the parser; NaN and infinity parse and are caught here.
            if tok.any(|t| t.parse::<f32>().is_ok_and(|x| !x.is_finite())) {
                return Err(IoError::NonFinite {
                    file: file.to_owned(),
                    location: Some(Location {
                        line: ln,
                        column: None,
                    }),
                    context: format!("'{}' statement", kind.unwrap_or_default()),
                    what: "vertex data",
                });
            }
            continue;
        }
        let (context, least) = match kind {
            Some("f") => ("face", 3),
            Some("l") => ("line", 2),
            Some("p") => ("point", 1),
            _ => continue,
        };
        let corners: Vec<&str> = tok.collect();
        if corners.len() < least {
            return Err(at_line(
                file,
                ln,
                context,
                format!(
                    "has {} vertices; at least {least} are needed",
                    corners.len()
                ),
            ));
        }
        for c in corners {
            for (k, part) in c.split('/').enumerate().take(3) {
                if part.is_empty() {
                    continue;
                }
                let Ok(idx) = part.parse::<i64>() else {
                    return Err(at_line(
                        file,
                        ln,
                        context,
                        format!("'{c}' is not a vertex reference"),
                    ));
                };
                let what = ["vertex", "texture coordinate", "normal"][k];
                let ok = match idx {
                    0 => false,
                    i if i > 0 => i as u64 <= totals[k] as u64,
                    i => i.unsigned_abs() <= seen[k] as u64,
                };
                if !ok {
                    return Err(at_line(
                        file,
                        ln,
                        context,
                        format!(
                            "{what} index {idx} is out of range ({} defined)",
                            if idx < 0 { seen[k] } else { totals[k] }
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// One run of `p` or `l` statements of one object with one material.
struct WireRun {
    /// The `o`/`g` name in force (`None`: unnamed, the file stem is used).
    object: Option<String>,
    /// The `usemtl` name in force.
    material: Option<String>,
    topology: MeshTopology,
    /// 0-based indices into the file's positions: one per point, two per segment.
    indices: Vec<u32>,
}

/// Points and polylines: the file's `v` data, the `p`/`l` runs in file order, and the text
/// `tobj` is to read (the same lines with every `p` and `l` statement blanked, so its line
/// numbers stay true). Runs after [`check_text`], which has checked every reference.
struct Wires {
    positions: Vec<Vec3>,
    colors: Vec<Option<Vec4>>,
    runs: Vec<WireRun>,
    faces_text: Option<String>,
}

fn split_wires(text: &str) -> Wires {
    let mut w = Wires {
        positions: Vec::new(),
        colors: Vec::new(),
        runs: Vec::new(),
        faces_text: None,
    };
    // `v x y z r g b` colours on some vertices only: `tobj` indexes colours as if every vertex
    // had one and fails ("face vertex color index out of bounds"), so the text it reads gives
    // the others white (`1 1 1`), as the points and lines here do.
    let (mut vertices, mut coloured, mut wires) = (0usize, 0usize, false);
    for l in text.lines() {
        let mut tok = l.split_whitespace();
        match tok.next() {
            Some("v") => {
                vertices += 1;
                coloured += usize::from(tok.count() >= 6);
            }
            Some("p" | "l") => wires = true,
            _ => {}
        }
    }
    let pad_colours = coloured > 0 && coloured < vertices;
    if !wires && !pad_colours {
        return w;
    }
    let mut faces_text = String::with_capacity(text.len());
    let (mut object, mut material): (Option<String>, Option<String>) = (None, None);
    for line in text.lines() {
        let trimmed = line.trim();
        let mut tok = trimmed.split_whitespace();
        let kind = tok.next();
        let topology = match kind {
            Some("p") => MeshTopology::Points,
            Some("l") => MeshTopology::Lines,
            other => {
                match other {
                    Some("v") => {
                        // Unparsable numbers are `tobj`'s error, reported before these are used.
                        let parsed: Vec<Option<f32>> = tok.map(|t| t.parse().ok()).collect();
                        let all_numbers = parsed.iter().all(Option::is_some);
                        let n: Vec<f32> = parsed.into_iter().map(|x| x.unwrap_or(0.0)).collect();
                        let at = |i: usize| n.get(i).copied().unwrap_or(0.0);
                        let mut p = Vec3::new(at(0), at(1), at(2));
                        // `v x y z w`: homogeneous, divided as `tobj` divides (w = 0 is its
                        // error).
                        if n.len() == 4 && at(3) != 0.0 {
                            p /= at(3);
                        }
                        let colour = (n.len() >= 6).then(|| Vec4::new(at(3), at(4), at(5), 1.0));
                        w.positions.push(p);
                        w.colors.push(colour);
                        let plain = n.len() == 3 || (n.len() == 4 && at(3) != 0.0);
                        if pad_colours && all_numbers && plain && p.is_finite() {
                            let _ = writeln!(faces_text, "v {} {} {} 1 1 1", p.x, p.y, p.z);
                            continue;
                        }
                    }
                    Some("o" | "g") => {
                        let name = trimmed[1..].trim();
                        object = (!name.is_empty()).then(|| name.to_owned());
                    }
                    Some("usemtl") => {
                        let name = trimmed.split_once(' ').map_or("", |x| x.1).trim();
                        if !name.is_empty() {
                            material = Some(name.to_owned());
                        }
                    }
                    _ => {}
                }
                faces_text.push_str(line);
                faces_text.push('\n');
                continue;
            }
        };
        faces_text.push('\n');
        let count = w.positions.len() as i64;
        let refs: Vec<u32> = tok
            .filter_map(|c| c.split('/').next()?.parse::<i64>().ok())
            .map(|i| if i < 0 { count + i } else { i - 1 })
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        let same = w.runs.last().is_some_and(|r| {
            r.topology == topology && r.object == object && r.material == material
        });
        if !same {
            w.runs.push(WireRun {
                object: object.clone(),
                material: material.clone(),
                topology,
                indices: Vec::new(),
            });
        }
        let Some(run) = w.runs.last_mut() else {
            continue;
        };
        match topology {
            MeshTopology::Points => run.indices.extend_from_slice(&refs),
            _ => {
                for pair in refs.windows(2) {
                    run.indices.extend_from_slice(pair);
                }
            }
        }
    }
    w.faces_text = Some(faces_text);
    w
}

/// The mesh of one run: the positions it references, in first-use order, and their colours.
fn wire_mesh(w: &Wires, run: &WireRun) -> Result<Mesh, crate::values::error::SceneError> {
    let mut remap: BTreeMap<u32, u32> = BTreeMap::new();
    let mut positions = Vec::new();
    let mut colors = Vec::new();
    let mut indices = Vec::with_capacity(run.indices.len());
    for &i in &run.indices {
        let next = positions.len() as u32;
        let j = *remap.entry(i).or_insert_with(|| {
            let k = i as usize;
            positions.push(w.positions.get(k).copied().unwrap_or(Vec3::ZERO));
            colors.push(w.colors.get(k).copied().flatten());
            next
        });
        indices.push(j);
    }
    let mesh = Mesh::new(run.topology, positions, indices)?;
    if colors.iter().any(Option::is_some) {
        return mesh.with_colors(colors.into_iter().map(|c| c.unwrap_or(Vec4::ONE)).collect());
    }
    Ok(mesh)
}

/// `bytes` as UTF-8 text, or a parse error naming the line of the first invalid byte.
fn utf8_text<'a>(file: &Path, bytes: &'a [u8]) -> Result<&'a str, IoError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        IoError::Parse {
            file: file.to_owned(),
            location: Some(Location { line, column: None }),
            message: "not UTF-8 text".to_owned(),
        }
    })
}

/// First pass over an MTL file: statements `tobj` would panic on (`Kd 1 1`: it takes three
/// numbers without checking there are three) or silently misread are refused with their
/// line. Colours (`Ka Kd Ks Ke`, and `Tf` unless `spectral`/`xyz`) need three values,
/// scalars (`Ns Ni d`) one. Text that is not UTF-8 is refused here too, with the line of the
/// first bad byte: `tobj` reads line by line, so a short `Kd` above the bad line would reach
/// its panic before its UTF-8 error (found by the `obj` fuzz target).
fn check_mtl(file: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let text = utf8_text(file, bytes)?;
    for (i, line) in text.lines().enumerate() {
        let mut tok = line.split_whitespace();
        let Some(kind) = tok.next() else { continue };
        let args: Vec<&str> = tok.collect();
        let need = match kind {
            "Ka" | "Kd" | "Ks" | "Ke" => 3,
            "Tf" if !matches!(args.first(), Some(&"spectral") | Some(&"xyz")) => 3,
            "Ns" | "Ni" | "d" => 1,
            _ => continue,
        };
        if args.len() < need {
            let what = if need == 3 {
                "three numbers (r g b)"
            } else {
                "a number"
            };
            return Err(IoError::Parse {
                file: file.to_owned(),
                location: Some(Location {
                    line: i + 1,
                    column: None,
                }),
                message: format!(
                    "'{kind}' needs {what}, found {} value{}",
                    args.len(),
                    if args.len() == 1 { "" } else { "s" }
                ),
            });
        }
    }
    Ok(())
}

/// Roughness for an MTL `Ns` (the inverse of the shininess rule).
fn roughness_from_ns(ns: Option<f32>) -> f32 {
    match ns {
        Some(n) if n.is_finite() && n > 0.0 => (2.0 / (n + 2.0)).sqrt().sqrt().clamp(0.0, 1.0),
        _ => 1.0,
    }
}

fn parse_rgb(s: &str) -> Option<Vec3> {
    let v: Vec<f32> = s
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    (v.len() == 3)
        .then(|| Vec3::new(v[0], v[1], v[2]))
        .filter(|c| c.is_finite())
}

/// Loads an OBJ file into a new scene (updated at time 0).
///
/// # Errors
/// Any [`IoError`]; see the [module docs](self).
pub fn load_obj(path: &Path, options: &ImportOptions) -> Result<super::ImportedScene, IoError> {
    let mut scene = Scene::new();
    let root = scene.root();
    let imported = import_obj(&mut scene, root, path, options)?;
    scene.update(0.0);
    Ok(super::ImportedScene { scene, imported })
}

/// Imports an OBJ file under `parent`. On error the scene is unchanged.
///
/// # Errors
/// Any [`IoError`]; see the [module docs](self).
pub fn import_obj(
    scene: &mut Scene,
    parent: NodeId,
    path: &Path,
    options: &ImportOptions,
) -> Result<Imported, IoError> {
    let data = uri::read_file(path, options.max_file_bytes).map_err(|reason| IoError::Read {
        file: path.to_owned(),
        reason,
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    let text = utf8_text(path, &data)?;
    check_text(path, text)?;
    let wires = split_wires(text);

    // Material libraries: the first failure is kept and reported after parsing.
    let mtl_error: RefCell<Option<IoError>> = RefCell::new(None);
    let mtl_dirs: RefCell<Vec<std::path::PathBuf>> = RefCell::new(Vec::new());
    let load_mtl = |p: &Path| -> tobj::MTLLoadResult {
        let fail = |e: IoError| {
            mtl_error.borrow_mut().get_or_insert(e);
            Err(tobj::LoadError::OpenFileFailed)
        };
        let written = p.to_string_lossy().into_owned();
        let full = match uri::uri_path(base, &written) {
            Ok(f) => f,
            Err(reason) => {
                return fail(IoError::MissingResource {
                    file: path.to_owned(),
                    kind: "material library",
                    uri: written,
                    reason,
                })
            }
        };
        let bytes = match uri::read_file(&full, options.max_file_bytes) {
            Ok(b) => b,
            Err(reason) => {
                return fail(IoError::MissingResource {
                    file: path.to_owned(),
                    kind: "material library",
                    uri: written,
                    reason: format!("{}: {reason}", full.display()),
                })
            }
        };
        if let Err(e) = check_mtl(&full, &bytes) {
            return fail(e);
        }
        let mut r = Tracked {
            data: &bytes,
            pos: 0,
        };
        match tobj::load_mtl_buf(&mut r) {
            Ok(m) => {
                let dir = full.parent().map(Path::to_owned).unwrap_or_default();
                let mut dirs = mtl_dirs.borrow_mut();
                dirs.extend(std::iter::repeat_n(dir, m.0.len()));
                Ok(m)
            }
            Err(e) => fail(IoError::Parse {
                file: full.clone(),
                location: Some(Location {
                    line: r.line(),
                    column: None,
                }),
                message: e.to_string(),
            }),
        }
    };
    let mut reader = Tracked {
        data: wires
            .faces_text
            .as_ref()
            .map_or(&data[..], |t| t.as_bytes()),
        pos: 0,
    };
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ignore_points: true,
        ignore_lines: true,
    };
    let parsed = tobj::load_obj_buf(&mut reader, &opts, load_mtl);
    if let Some(e) = mtl_error.into_inner() {
        return Err(e);
    }
    let (models, materials) = parsed.map_err(|e| IoError::Parse {
        file: path.to_owned(),
        location: Some(Location {
            line: reader.line(),
            column: None,
        }),
        message: e.to_string(),
    })?;
    let materials = materials.unwrap_or_default();
    let dirs = mtl_dirs.into_inner();
    // The parsed arrays are what the meshes are built from (4 bytes per element): held to
    // the load's geometry limit as glTF accessors are, so that a scene file importing a
    // large OBJ many times cannot multiply it.
    let geometry_bytes = models
        .iter()
        .map(|m| {
            let m = &m.mesh;
            (m.positions.len() + m.vertex_color.len() + m.normals.len())
                .saturating_add(m.texcoords.len() + m.indices.len()) as u64
                * 4
        })
        .fold(0u64, u64::saturating_add);
    if geometry_bytes > options.max_geometry_bytes {
        return Err(IoError::Invalid {
            file: path.to_owned(),
            location: None,
            context: "geometry".to_owned(),
            message: format!(
                "{geometry_bytes} bytes of parsed vertex and index data exceed the load's \
                 limit of {} bytes of geometry (max_geometry_bytes)",
                options.max_geometry_bytes
            ),
        });
    }

    // Materials (converted once each, shared by Arc), plus the default.
    let mut table: Vec<Arc<ImportedMaterial>> = Vec::with_capacity(materials.len());
    let mut textures: BTreeMap<std::path::PathBuf, Arc<plumb_raster::texture::Texture>> =
        BTreeMap::new();
    let mut budget = texture_image::TextureBudget::new(options.max_texture_bytes);
    for (i, m) in materials.iter().enumerate() {
        let dir = dirs.get(i).map_or(base, |d| d.as_path());
        table.push(Arc::new(convert_material(
            path,
            dir,
            m,
            options,
            &mut textures,
            &mut budget,
        )?));
    }
    let default = Arc::new(ImportedMaterial {
        metallic: 0.0,
        double_sided: true,
        ..ImportedMaterial::default()
    });

    // Nodes, built detached then attached: all or nothing.
    let scene_err = |context: &str, source| IoError::Scene {
        file: path.to_owned(),
        context: context.to_owned(),
        source,
    };
    super::staged::build_staged(scene, parent, "obj import", scene_err, |scene, staging| {
        let mut imported = Imported {
            geometry_bytes,
            ..Imported::default()
        };
        let stem = path
            .file_stem()
            .map_or_else(|| "obj".to_owned(), |s| s.to_string_lossy().into_owned());
        // Per object name: its group node and the number of leaves it has (a map: a linear
        // search made 10^5 objects quadratic; only looked up, never iterated).
        let mut groups: std::collections::HashMap<String, (NodeId, usize)> =
            std::collections::HashMap::new();
        // The group of object `name` (created on first use) and the next leaf number in it.
        let mut next_leaf = |scene: &mut Scene, name: &str| -> Result<(NodeId, usize), IoError> {
            let entry = match groups.get_mut(name) {
                Some(e) => e,
                None => {
                    let id = scene
                        .add_group(staging, name.to_owned())
                        .map_err(|e| scene_err(name, e))?;
                    groups.entry(name.to_owned()).or_insert((id, 0))
                }
            };
            entry.1 += 1;
            Ok((entry.0, entry.1 - 1))
        };
        for model in &models {
            let m = &model.mesh;
            if m.indices.is_empty() {
                continue;
            }
            let name = if model.name == "unnamed_object" {
                stem.clone()
            } else {
                model.name.clone()
            };
            let (group, k) = next_leaf(scene, &name)?;
            let mesh = Arc::new(convert_mesh(path, &name, m)?);
            let geom = scene
                .add_geometry(group, format!("{name}[{k}]"), mesh)
                .map_err(|e| scene_err(&name, e))?;
            let mat = m.material_id.and_then(|i| table.get(i)).unwrap_or(&default);
            imported.materials.insert(geom, mat.clone());
        }
        for run in &wires.runs {
            let name = run.object.clone().unwrap_or_else(|| stem.clone());
            let (group, k) = next_leaf(scene, &name)?;
            let mesh = wire_mesh(&wires, run).map_err(|e| scene_err(&name, e))?;
            let geom = scene
                .add_geometry(group, format!("{name}[{k}]"), Arc::new(mesh))
                .map_err(|e| scene_err(&name, e))?;
            // The material `tobj` would use: the last one of that name.
            let mat = run
                .material
                .as_ref()
                .and_then(|n| materials.iter().rposition(|m| &m.name == n))
                .and_then(|i| table.get(i))
                .unwrap_or(&default);
            imported.materials.insert(geom, mat.clone());
        }
        Ok(imported)
    })
}

fn convert_mesh(file: &Path, name: &str, m: &tobj::Mesh) -> Result<Mesh, IoError> {
    let context = format!("object '{name}'");
    let err = |e| IoError::Scene {
        file: file.to_owned(),
        context: context.clone(),
        source: e,
    };
    let positions: Vec<Vec3> = m.positions.chunks_exact(3).map(Vec3::from_slice).collect();
    let n = positions.len();
    let mut mesh = Mesh::new(MeshTopology::Triangles, positions, m.indices.clone()).map_err(err)?;
    if m.normals.len() == 3 * n && n > 0 {
        mesh = mesh
            .with_normals(m.normals.chunks_exact(3).map(Vec3::from_slice).collect())
            .map_err(err)?;
    } else {
        mesh = mesh.with_generated_normals();
    }
    if m.vertex_color.len() == 3 * n && n > 0 {
        mesh = mesh
            .with_colors(
                m.vertex_color
                    .chunks_exact(3)
                    .map(|c| Vec3::from_slice(c).extend(1.0))
                    .collect(),
            )
            .map_err(err)?;
    }
    if m.texcoords.len() == 2 * n && n > 0 {
        mesh = mesh
            .with_uv_set(
                m.texcoords
                    .chunks_exact(2)
                    .map(|t| Vec2::new(t[0], 1.0 - t[1]))
                    .collect(),
            )
            .map_err(err)?;
    }
    Ok(mesh)
}

fn convert_material(
    file: &Path,
    dir: &Path,
    m: &tobj::Material,
    options: &ImportOptions,
    textures: &mut BTreeMap<std::path::PathBuf, Arc<plumb_raster::texture::Texture>>,
    budget: &mut texture_image::TextureBudget,
) -> Result<ImportedMaterial, IoError> {
    let context = format!("material '{}'", m.name);
    let kd = m.diffuse.map_or(Vec3::ONE, Vec3::from_array);
    let d = m.dissolve.unwrap_or(1.0);
    let ke = m
        .emissive
        .map(Vec3::from_array)
        .or_else(|| m.unknown_param.get("Ke").and_then(|s| parse_rgb(s)))
        .unwrap_or(Vec3::ZERO);
    if !(kd.is_finite() && d.is_finite() && ke.is_finite()) {
        return Err(IoError::NonFinite {
            file: file.to_owned(),
            location: None,
            context,
            what: "material colours",
        });
    }
    let base_color_texture = match (&m.diffuse_texture, options.textures) {
        (Some(name), true) => {
            // MTL texture statements may carry options (`-s 1 1 1 file.png`): the file is last.
            let written = name.split_whitespace().last().unwrap_or(name).to_owned();
            let full = uri::uri_path(dir, &written).map_err(|reason| IoError::MissingResource {
                file: file.to_owned(),
                kind: "image",
                uri: written.clone(),
                reason,
            })?;
            let texture = match textures.get(&full) {
                Some(t) => t.clone(),
                None => {
                    let bytes =
                        uri::read_file(&full, options.max_file_bytes).map_err(|reason| {
                            IoError::MissingResource {
                                file: file.to_owned(),
                                kind: "image",
                                uri: written.clone(),
                                reason: format!("{}: {reason}", full.display()),
                            }
                        })?;
                    let t = Arc::new(texture_image::decode(
                        file,
                        &written,
                        &bytes,
                        None,
                        options.max_texture_size,
                        budget,
                    )?);
                    textures.insert(full.clone(), t.clone());
                    t
                }
            };
            Some(TextureBinding {
                texture,
                sampler: Sampler::TRILINEAR,
                tex_coord: 0,
                uv_transform: Mat3::IDENTITY,
                source: written,
            })
        }
        _ => None,
    };
    Ok(ImportedMaterial {
        name: m.name.clone(),
        base_color: Vec4::new(kd.x, kd.y, kd.z, d.clamp(0.0, 1.0)),
        base_color_texture,
        alpha_mode: if d < 1.0 {
            AlphaMode::Blend
        } else {
            AlphaMode::Opaque
        },
        double_sided: true,
        emissive: ke,
        emissive_texture: None,
        unlit: false,
        metallic: 0.0,
        roughness: roughness_from_ns(m.shininess),
        ..ImportedMaterial::default()
    })
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("line_tracking", line_tracking),
        (
            "ns_inverts_the_shininess_rule",
            ns_inverts_the_shininess_rule,
        ),
    ];

    use super::*;

    fn line_tracking() {
        let data = b"a\nbb\nccc";
        let mut t = Tracked { data, pos: 0 };
        assert_eq!(t.line(), 1);
        let mut s = String::new();
        t.read_line(&mut s).unwrap();
        assert_eq!(t.line(), 1);
        s.clear();
        t.read_line(&mut s).unwrap();
        assert_eq!(t.line(), 2);
        s.clear();
        t.read_line(&mut s).unwrap();
        assert_eq!((s.as_str(), t.line()), ("ccc", 3));
    }

    fn ns_inverts_the_shininess_rule() {
        for ns in [1.0f32, 10.0, 30.0, 100.0] {
            let m = ImportedMaterial {
                metallic: 0.0,
                roughness: roughness_from_ns(Some(ns)),
                ..ImportedMaterial::default()
            };
            let back = m.fixed_function_approximation().shininess;
            assert!((back - ns).abs() < ns * 1e-4, "{ns} -> {back}");
        }
        assert_eq!(roughness_from_ns(None), 1.0);
        // Ns = 30: r = (2/32)^¼ = 0.5.
        assert!((roughness_from_ns(Some(30.0)) - 0.5).abs() < 1e-6);
    }
}
