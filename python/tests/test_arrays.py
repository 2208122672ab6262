"""plumb.Scene() built from arrays: the same bytes as the scene file it saves, rendered by
the command line; bad arrays as one clear BadInputError each."""

from __future__ import annotations

import numpy as np
import pytest

import plumb


def uv_sphere(radius=1.0, rings=12, segments=24):
    """A UV sphere: positions, triangles and outward normals."""
    theta = np.linspace(0, np.pi, rings + 1)
    phi = np.linspace(0, 2 * np.pi, segments + 1)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    normals = np.stack([np.sin(t) * np.cos(p), np.cos(t), np.sin(t) * np.sin(p)], -1).reshape(-1, 3)
    tris = []
    for i in range(rings):
        for j in range(segments):
            a, b = i * (segments + 1) + j, (i + 1) * (segments + 1) + j
            tris += [(a, a + 1, b), (a + 1, b + 1, b)]
    return radius * normals, np.array(tris, dtype=np.int64), normals


def built_scene():
    scene = plumb.Scene()
    v, f, n = uv_sphere()
    assert scene.add_mesh(v, f, normals=n, color=(0.9, 0.4, 0.1, 1.0), name="ball") == "ball"
    pose = np.eye(4)
    pose[:3, 3] = (2.5, 0.0, -1.0)
    quad = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float64)
    colors = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.float32)
    scene.add_mesh(quad, [[0, 1, 2], [0, 2, 3]], colors=colors, pose=pose)
    scene.add_light("directional", direction=(-1, -2, -3))
    return scene


CAMERA = dict(pose=np.array([[1, 0, 0, 0.8], [0, 1, 0, 0.3], [0, 0, 1, 6.0], [0, 0, 0, 1]], dtype=float),
              intrinsics=(90.0, 90.0, 79.5, 59.5))


def test_arrays_render_the_bytes_of_their_saved_scene_file(cli, tmp_path):
    scene = built_scene()
    image = scene.render((160, 120), **CAMERA)
    assert image.shape == (120, 160, 4)
    # The ball is lit (not flat): its pixels take many values; the quad shows its colours.
    ball = image[40:80, 50:90, :3].reshape(-1, 3)
    assert len(np.unique(ball, axis=0)) > 20
    scene.save(tmp_path / "built.json")
    flat = ",".join(repr(float(x)) for x in CAMERA["pose"].reshape(-1))
    out = tmp_path / "cli.png"
    r = cli("render", str(tmp_path / "built.json"), "-o", str(out), "--size", "160x120",
            "--pose", flat, "--intrinsics", "90,90,79.5,59.5")
    assert r.returncode == 0, r.stderr
    assert np.array_equal(image, plumb.read_png(out))
    # And plumb.render of the saved file.
    assert np.array_equal(image, plumb.render(tmp_path / "built.json", size=(160, 120), **CAMERA))


def test_poses_and_removal_change_the_picture():
    scene = built_scene()
    before = scene.render((160, 120), **CAMERA)
    pose = np.eye(4)
    pose[:3, 3] = (-2.5, 0.0, -1.0)
    scene.set_pose("ball", pose)
    moved = scene.render((160, 120), **CAMERA)
    assert not np.array_equal(before, moved)
    scene.remove("ball")
    gone = scene.render((160, 120), **CAMERA)
    assert not np.array_equal(moved, gone)
    with pytest.raises(plumb.BadInputError, match="no mesh or light named 'ball'"):
        scene.remove("ball")


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.zeros((4, 2)),), {}, r"positions: shape \(4, 2\), need \(N, 3\)"),
        ((np.array([[0, 0, 0], [1, 0, np.nan], [0, 1, 0]]),), {}, "positions row 1 is not finite"),
        ((np.eye(3), [[0, 1, 3]]), {}, r"triangle 0 \[0, 1, 3\] indexes past the 3 vertices"),
        ((np.eye(3), [[0, 1, -1]]), {}, "indices must be in 0..2"),
        ((np.eye(3), [[0, 1, 2**32]]), {}, "indices must be in 0..2"),
        ((np.eye(3), [[0.0, 1.0, 2.0]]), {}, "integer indices"),
        ((np.eye(3),), {"normals": np.zeros((2, 3))}, "normals has 2 rows, positions 3"),
        ((np.eye(3),), {"colors": np.full((3, 4), 2.0)}, "colors row 0 is outside 0..1"),
        ((np.zeros((4, 3)),), {}, "4 positions without triangles"),
        ((np.array([["a", "b", "c"]]),), {}, "an array of numbers"),
        ((np.eye(3),), {"pose": np.eye(3)}, "16 numbers"),
    ],
)
def test_bad_arrays_are_one_clear_error(args, kwargs, message):
    scene = plumb.Scene()
    with pytest.raises(plumb.BadInputError, match=message):
        scene.add_mesh(*args, **kwargs)


def test_bad_lights_and_loaded_scenes_are_clear_errors(repo):
    scene = plumb.Scene()
    with pytest.raises(plumb.BadInputError, match="kind 'sun'"):
        scene.add_light("sun", direction=(0, 0, -1))
    with pytest.raises(plumb.BadInputError, match="needs a direction"):
        scene.add_light("directional")
    scene.add_mesh(np.eye(3), name="a")
    with pytest.raises(plumb.BadInputError, match="already used"):
        scene.add_mesh(np.eye(3), name="a")
    with pytest.raises(plumb.BadInputError, match="trimesh"):
        scene.add_trimesh(object())
    loaded = plumb.Scene.load(repo / "docs/examples/inline.json")
    with pytest.raises(plumb.BadInputError, match="cannot be edited"):
        loaded.add_mesh(np.eye(3))


def test_a_trimesh_like_object_is_added():
    class Mesh:  # what plumb reads of a trimesh.Trimesh
        vertices = np.eye(3)
        faces = np.array([[0, 1, 2]])
        vertex_normals = np.tile([0.577, 0.577, 0.577], (3, 1))

    scene = plumb.Scene()
    assert scene.add_trimesh(Mesh(), color=(1, 0, 0, 1)) == "mesh_1"
    assert '"normals"' in scene.to_json()
