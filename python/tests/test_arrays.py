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


def _rays(k, size):
    """OpenCV rays (x/z, y/z) through every pixel centre of a ``size`` image."""
    fx, fy, cx, cy = k
    w, h = size
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    return (u - cx) / fx, (v - cy) / fy


# An OpenCV camera at the origin looking down +z.
K, SIZE = (70.0, 64.0, 31.5, 23.0), (64, 48)
AT_ORIGIN = dict(pose=np.eye(4), pose_convention="opencv", intrinsics=K, near=0.5, far=50.0)


def test_metric_depth_of_a_tilted_plane_is_exact():
    # The plane z = 4 + 0.3 x - 0.2 y (camera axes), as a large quad.
    plane = lambda x, y: 4.0 + 0.3 * x - 0.2 * y  # noqa: E731
    corners = np.array([[x, y, plane(x, y)] for x, y in [(-9, -9), (9, -9), (9, 9), (-9, 9)]])
    scene = plumb.Scene()
    scene.add_mesh(corners, [[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]], color=(1, 1, 1, 1))
    _, depth = scene.render(SIZE, depth="metric", **AT_ORIGIN)
    assert depth.dtype == np.float32 and depth.shape == (48, 64)
    rx, ry = _rays(K, SIZE)
    # z = 4 + 0.3 z rx - 0.2 z ry  =>  z = 4 / (1 - 0.3 rx + 0.2 ry).
    want = 4.0 / (1.0 - 0.3 * rx + 0.2 * ry)
    rel = np.abs(depth - want) / want
    assert rel.max() < 1e-5, rel.max()


def test_metric_depth_of_a_sphere_is_exact_and_zero_off_it():
    v, f, n = uv_sphere(radius=1.0, rings=16, segments=32)
    centre = np.array([0.2, -0.1, 5.0])
    scene = plumb.Scene()
    scene.add_mesh(v + centre, f, normals=n, color=(1, 1, 1, 1))
    _, depth = scene.render(SIZE, depth="metric", **AT_ORIGIN)
    # The depth the mesh itself gives: the nearest hit of each pixel's ray on its triangles
    # (Moller-Trumbore), z along the axis; 0 where the ray misses.
    rx, ry = _rays(K, SIZE)
    d = np.stack([rx, ry, np.ones_like(rx)], -1).reshape(-1, 1, 3)
    tri = (v + centre)[f]
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    e1, e2 = b - a, c - a
    p = np.cross(d, e2)
    det = np.einsum("rtk,tk->rt", p, e1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = -a[None]
        u = np.einsum("rtk,rtk->rt", p, s) * inv
        q = np.cross(s, e1)
        w = np.einsum("rtk,rtk->rt", q, d) * inv
        t = np.einsum("rtk,tk->rt", q, e2) * inv
        hit = (np.abs(det) > 1e-12) & (u >= 0) & (w >= 0) & (u + w <= 1) & (t > 0)
    want = np.where(hit, t, np.inf).min(axis=1).reshape(SIZE[1], SIZE[0])
    # Every pixel whose centre's ray hits the mesh is drawn, and no other.
    assert ((depth > 0) == np.isfinite(want)).all()
    drawn = depth > 0
    rel = np.abs(depth[drawn] - want[drawn]) / want[drawn]
    # Exact up to the snap of the vertices to 1/256 pixel (plumb's 8 sub-pixel bits), whose
    # error grows with the surface's slope: within 1e-5 where the sphere faces the camera
    # (within 25 degrees), 5e-4 at the silhouette (measured: 8.8e-6 and 3.2e-4).
    hitp = np.stack([rx, ry, np.ones_like(rx)], -1) * np.where(drawn, want, 0)[..., None]
    normal = hitp - centre  # unit length: radius 1
    ray = np.stack([rx, ry, np.ones_like(rx)], -1)
    facing = -(normal * ray).sum(-1) / np.linalg.norm(ray, axis=-1) > 0.9
    assert (facing & drawn).sum() > 80
    assert (np.abs(depth - want)[facing & drawn] / want[facing & drawn]).max() < 1e-5
    assert rel.max() < 5e-4, rel.max()
    assert (depth[~drawn] == 0).all()


def test_metric_depth_npy_equals_python(cli, repo, tmp_path):
    scene = repo / "docs/examples/inline.json"
    _, depth = plumb.render(scene, size=(80, 60), depth="metric")
    r = cli("render", str(scene), "-o", str(tmp_path / "c.png"), "--size", "80x60",
            "--depth-out", str(tmp_path / "d.npy"))
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "d.npy"), depth)
    assert depth.max() > 0 and (depth == 0).any()
    with pytest.raises(plumb.BadInputError, match="metric"):
        plumb.render(repo / "refimages/raster/blend_grid.json", depth="metric")
    with pytest.raises(plumb.BadInputError, match="depth must be"):
        plumb.render(scene, size=(8, 8), depth="deep")


def test_render_views_equals_one_render_per_pose(orbit):
    scene = built_scene()
    poses = orbit(5)
    k = (60.0, 60.0, 39.5, 29.5)
    images, depth, ids, normals = scene.render_views(
        (80, 60), poses, intrinsics=k, depth="metric", ids=True, normals="world")
    assert images.shape == (5, 60, 80, 4) and depth.shape == (5, 60, 80)
    assert ids.shape == (5, 60, 80) and normals.shape == (5, 60, 80, 3)
    for i, pose in enumerate(poses):
        one, z, d, n = scene.render((80, 60), pose=pose, intrinsics=k, depth="metric", ids=True,
                                    normals="world")
        assert np.array_equal(images[i], one) and np.array_equal(depth[i], z), i
        assert np.array_equal(ids[i], d) and np.array_equal(normals[i], n), i
    assert (images == scene.render_views((80, 60), poses, intrinsics=k)).all()
    assert not np.array_equal(images[0], images[2])
    with pytest.raises(plumb.BadInputError, match=r"poses: shape \(4, 4\)"):
        scene.render_views((80, 60), np.eye(4))
    with pytest.raises(plumb.LimitError, match="max_total_pixels"):
        scene.render_views((80, 60), poses, max_total_pixels=4 * 80 * 60)


def _quad(x0, x1, y0, y1, z):
    """A rectangle at depth ``z`` (OpenCV camera axes at the origin), both windings."""
    v = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], dtype=np.float64)
    return v, [[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]]


# Three rectangles: A at z = 5, B nearer (z = 3) overlapping A, C behind both filling the view.
RECTS = {"a": ((-2.0, 0.5, -1.0, 1.0), 5.0), "b": ((-0.5, 2.0, -0.5, 1.5), 3.0),
         "c": ((-20.0, 20.0, -20.0, 20.0), 7.0)}


def _segmentation_scene(order, ids):
    scene = plumb.Scene()
    for name in order:
        (x0, x1, y0, y1), z = RECTS[name]
        v, f = _quad(x0, x1, y0, y1, z)
        scene.add_mesh(v, f, color=(0.5, 0.5, 0.5, 1), name=name, object_id=ids.get(name))
    return scene


def test_segmentation_of_overlapping_meshes_follows_depth_order():
    rx, ry = _rays(K, SIZE)
    # What each pixel centre's ray meets first; pixels within 1/100 pixel of an edge are
    # left out (which side owns them is the top-left rule's call, tested in the raster).
    want = np.zeros((SIZE[1], SIZE[0]), dtype=np.int64)
    near = np.full(want.shape, np.inf)
    edge = np.zeros(want.shape, dtype=bool)
    labels = {"a": 1, "b": 2, "c": 3}
    for name, ((x0, x1, y0, y1), z) in RECTS.items():
        x, y = rx * z, ry * z
        inside = (x0 < x) & (x < x1) & (y0 < y) & (y < y1)
        tol = 0.01 * z / K[0]
        edge |= (np.minimum(abs(x - x0), abs(x - x1)) < tol) | (np.minimum(abs(y - y0), abs(y - y1)) < tol)
        closer = inside & (z < near)
        want[closer], near[closer] = labels[name], z
    seen = []
    for order, ids in [("abc", {}), ("cba", {"a": 1, "b": 2, "c": 3}), ("bca", {"a": 1, "b": 2, "c": 3})]:
        scene = _segmentation_scene(order, ids)
        image, depth, got = scene.render(SIZE, depth="metric", ids=True, **AT_ORIGIN)
        assert got.dtype == np.uint32 and got.shape == (SIZE[1], SIZE[0])
        assert [scene.object_id(n) for n in "abc"] == [1, 2, 3]
        assert np.array_equal(got[~edge], want[~edge]), order
        # The id plane names the surface the depth plane holds.
        for name, (_, z) in RECTS.items():
            assert np.allclose(depth[got == labels[name]], near[got == labels[name]], rtol=1e-5)
        seen.append(got)
    assert np.array_equal(seen[0], seen[1]) and np.array_equal(seen[1], seen[2])
    assert {1, 2, 3} <= set(np.unique(seen[0]))
    # Ids are the user's: any u32 but 0.
    scene = _segmentation_scene("abc", {"a": 7, "b": 4_000_000_000, "c": 9})
    _, got = scene.render(SIZE, ids=True, **AT_ORIGIN)
    assert set(np.unique(got)) == {7, 4_000_000_000, 9}
    with pytest.raises(plumb.BadInputError, match="object id 0"):
        _segmentation_scene("a", {"a": 0})
    # Nothing drawn: id 0.
    empty = plumb.Scene()
    _, got = empty.render((8, 8), ids=True, **dict(AT_ORIGIN, intrinsics=(8, 8, 3.5, 3.5)))
    assert (got == 0).all()


def test_normals_are_the_surface_normals_in_camera_and_world_space():
    # The tilted plane z = 4 + 0.3 x - 0.2 y, its normal towards the camera given per vertex.
    plane = lambda x, y: 4.0 + 0.3 * x - 0.2 * y  # noqa: E731
    corners = np.array([[x, y, plane(x, y)] for x, y in [(-9, -9), (9, -9), (9, 9), (-9, 9)]])
    n = np.array([0.3, -0.2, -1.0]) / np.linalg.norm([0.3, -0.2, -1.0])
    scene = plumb.Scene()
    scene.add_mesh(corners, [[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]], normals=np.tile(n, (4, 1)))
    _, world = scene.render(SIZE, normals="world", **AT_ORIGIN)
    _, camera = scene.render(SIZE, normals=True, **AT_ORIGIN)
    assert world.dtype == np.float32 and world.shape == (SIZE[1], SIZE[0], 3)
    assert np.abs(world - n).max() < 1e-6
    # Camera space is OpenGL's (x right, y up, z towards the viewer); the pose is OpenCV's
    # identity (y down, z forward), so y and z flip.
    assert np.abs(camera - n * [1, -1, -1]).max() < 1e-6
    # A sphere: unit normals, 0 where nothing was drawn, each within the tessellation's
    # error of the analytic normal at the hit point.
    v, f, nv = uv_sphere(radius=1.0, rings=24, segments=48)
    centre = np.array([0.2, -0.1, 5.0])
    scene = plumb.Scene()
    scene.add_mesh(v + centre, f, normals=nv)
    _, depth, normals = scene.render(SIZE, depth="metric", normals="world", **AT_ORIGIN)
    drawn = depth > 0
    assert drawn.sum() > 200
    assert (normals[~drawn] == 0).all()
    assert np.allclose(np.linalg.norm(normals[drawn], axis=-1), 1.0, atol=1e-6)
    rx, ry = _rays(K, SIZE)
    hit = np.stack([rx, ry, np.ones_like(rx)], -1) * depth[..., None]
    analytic = (hit - centre)[drawn]
    analytic /= np.linalg.norm(analytic, axis=-1, keepdims=True)
    cos = (analytic * normals[drawn]).sum(-1)
    assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 3.0
    with pytest.raises(plumb.BadInputError, match="normals must be"):
        scene.render(SIZE, normals="eye", **AT_ORIGIN)


def test_ids_and_normals_equal_the_command_lines(cli, tmp_path):
    scene = built_scene()
    image, ids, normals = scene.render((160, 120), ids=True, normals="world", **CAMERA)
    assert set(np.unique(ids)) == {0, 1, 2}
    scene.save(tmp_path / "built.json")
    flat = ",".join(repr(float(x)) for x in CAMERA["pose"].reshape(-1))
    r = cli("render", str(tmp_path / "built.json"), "-o", str(tmp_path / "c.png"), "--size", "160x120",
            "--pose", flat, "--intrinsics", "90,90,79.5,59.5", "--ids-out", str(tmp_path / "i.npy"),
            "--normals-out", str(tmp_path / "n.npy"), "--normals-space", "world")
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "i.npy"), ids)
    assert np.array_equal(np.load(tmp_path / "n.npy"), normals)
    assert np.array_equal(plumb.read_png(tmp_path / "c.png"), image)


def test_files_are_added_as_nodes_and_saved_relative(cli, repo, tmp_path):
    import shutil

    (tmp_path / "assets").mkdir()
    shutil.copy(repo / "docs/examples/assets/quad.obj", tmp_path / "assets/quad.obj")
    scene = built_scene()
    pose = np.eye(4)
    pose[:3, 3] = (-2.5, 0.5, 0.0)
    assert scene.add_file(tmp_path / "assets/quad.obj", pose=pose, object_id=40) == "file_4"
    image, ids = scene.render((160, 120), ids=True, **CAMERA)
    assert set(np.unique(ids)) == {0, 1, 2, 40}
    assert scene.object_id("file_4") == 40
    # Saved next to its folder: the file is named relative to the scene file, and the command
    # line draws the same bytes.
    scene.save(tmp_path / "built.json")
    assert '"assets/quad.obj"' in (tmp_path / "built.json").read_text()
    flat = ",".join(repr(float(x)) for x in CAMERA["pose"].reshape(-1))
    r = cli("render", str(tmp_path / "built.json"), "-o", str(tmp_path / "c.png"), "--size", "160x120",
            "--pose", flat, "--intrinsics", "90,90,79.5,59.5", "--ids-out", str(tmp_path / "i.npy"))
    assert r.returncode == 0, r.stderr
    assert np.array_equal(plumb.read_png(tmp_path / "c.png"), image)
    assert np.array_equal(np.load(tmp_path / "i.npy"), ids)
    # Saved where the file is not inside the scene file's folder: refused.
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(plumb.BadInputError, match="not inside"):
        scene.save(tmp_path / "elsewhere/built.json")
    # Moving the node, removing it.
    scene.set_pose("file_4", np.eye(4))
    assert not np.array_equal(scene.render((160, 120), **CAMERA), image)
    scene.remove("file_4")
    assert 40 not in np.unique(scene.render((160, 120), ids=True, **CAMERA)[1])


def test_bad_files_are_refused_when_added(tmp_path):
    scene = built_scene()
    before = scene.render((40, 30), **CAMERA)
    with pytest.raises(plumb.PlumbError, match="No such file|not found"):
        scene.add_file(tmp_path / "missing.glb")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(plumb.BadInputError, match=r"\.gltf, \.glb and \.obj"):
        scene.add_file(tmp_path / "notes.txt")
    (tmp_path / "broken.glb").write_bytes(b"glTF\x02\x00\x00\x00" + b"\xff" * 40)
    with pytest.raises(plumb.PlumbError, match="broken.glb"):
        scene.add_file(tmp_path / "broken.glb", name="broken")
    with pytest.raises(plumb.BadInputError, match="object id 0"):
        scene.add_file(tmp_path / "broken.glb", object_id=0)
    # The scene is as it was, and the failed name is free again.
    assert np.array_equal(scene.render((40, 30), **CAMERA), before)
    with pytest.raises(plumb.PlumbError):
        scene.add_file(tmp_path / "broken.glb", name="broken")


@pytest.mark.parametrize("convention", ["opencv", "opengl"])
def test_points_land_on_the_pixels_opencv_projects_them_to(convention):
    # An OpenCV camera at (1, 2, -3) turned 30 degrees about y; non-square pixels and an
    # off-centre principal point. Squares of 3 x 3 pixels facing it, centred on points whose
    # OpenCV pixels u = fx X/Z + cx, v = fy Y/Z + cy are whole numbers, must cover exactly
    # those 3 x 3 pixels (their edges lie half a pixel from the nearest pixel centres, so a
    # projection off by a pixel, or a flipped axis, moves them).
    fx, fy, cx, cy = 40.0, 50.0, 30.0, 20.0
    a = np.radians(30.0)
    r = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    t = np.array([1.0, 2.0, -3.0])
    scene = plumb.Scene()
    pixels = [(10, 12, 4.0), (45, 30, 6.0), (30, 20, 5.0), (55, 5, 3.0)]
    for k, (u, v, z) in enumerate(pixels):
        centre = np.array([(u - cx) * z / fx, (v - cy) * z / fy, z])
        hx, hy = 1.5 * z / fx, 1.5 * z / fy
        corners = [centre + [dx, dy, 0] for dx, dy in [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]]
        world = np.array([r @ c + t for c in corners])
        scene.add_mesh(world, [[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]], object_id=k + 1)
    pose = np.eye(4)
    pose[:3, :3] = r if convention == "opencv" else r @ np.diag([1.0, -1.0, -1.0])
    pose[:3, 3] = t
    _, ids = scene.render((64, 48), pose=pose, pose_convention=convention,
                          intrinsics=(fx, fy, cx, cy), near=0.1, far=100.0, ids=True)
    want = np.zeros((48, 64), dtype=np.uint32)
    for k, (u, v, _) in enumerate(pixels):
        want[v - 1 : v + 2, u - 1 : u + 2] = k + 1
    assert np.array_equal(ids, want)
