"""plumb.render and plumb.Scene: the command line's bytes, errors as exceptions, the GIL."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import plumb


def cli_png(cli, tmp_path, *args):
    out = tmp_path / "cli.png"
    r = cli("render", *args, "-o", str(out))
    assert r.returncode == 0, r.stderr
    return plumb.read_png(out)


def test_scene_file_bytes_equal_the_cli(cli, repo, tmp_path):
    scene = repo / "refimages/effects/planar_shadow.json"
    image = plumb.render(scene, size=(96, 72))
    assert image.shape == (72, 96, 4) and image.dtype == np.uint8
    assert np.array_equal(image, cli_png(cli, tmp_path, str(scene), "--size", "96x72"))
    # The PNG files are byte-identical too (the same encoder).
    plumb.write_png(tmp_path / "py.png", image)
    assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes()


def test_gltf_at_a_time_bytes_equal_the_cli(cli, animated_gltf, tmp_path):
    for t in ("0", "0.75", "1.5"):
        image = plumb.render(animated_gltf, size=(64, 48), time=float(t))
        assert np.array_equal(image, cli_png(cli, tmp_path, str(animated_gltf), "--size", "64x48", "--time", t)), t
    assert not np.array_equal(plumb.render(animated_gltf, size=(64, 48), time=0.0),
                              plumb.render(animated_gltf, size=(64, 48), time=1.5))


def test_draw_trace_bytes_equal_the_cli(cli, repo, tmp_path):
    trace = repo / "refimages/raster/blend_grid.json"
    image, depth = plumb.render(trace, depth=True)
    assert image.shape == (320, 320, 4) and depth.shape == (320, 320) and depth.dtype == np.float32
    assert np.array_equal(image, cli_png(cli, tmp_path, str(trace)))
    # The golden, too.
    assert np.array_equal(image, plumb.read_png(repo / "refimages/raster/blend_grid.png"))


def test_scene_renders_views_and_times_without_reloading(animated_gltf):
    scene = plumb.Scene.load(animated_gltf)
    assert scene.clips == {"slide": 2.0}
    a = scene.render((64, 48), time=0.0)
    b = scene.render((64, 48), time=1.0)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, plumb.render(animated_gltf, size=(64, 48), time=0.0))
    # Frame i of a 24 fps sequence is time i/24, computed as the command line does.
    assert np.array_equal(scene.render((64, 48), frame=12, fps=24), plumb.render(animated_gltf, size=(64, 48), time=0.5))
    eye = scene.render((64, 48), eye=(0, 0, 5), target=(0, 0, 0))
    assert eye.shape == (48, 64, 4)


def test_bad_file_raises_with_the_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.gltf"
    bad.write_text('{"asset": {"version": "2.0"}, "nodes": [')
    with pytest.raises(plumb.BadInputError) as e:
        plumb.render(bad, size=(8, 8))
    r = cli("render", str(bad), "-o", str(tmp_path / "x.png"), "--size", "8x8")
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {e.value}"
    assert isinstance(e.value, plumb.PlumbError)
    with pytest.raises(plumb.PlumbIOError):
        plumb.render(tmp_path / "missing.gltf", size=(8, 8))
    with pytest.raises(plumb.BadInputError, match="fov must be in"):
        plumb.render(bad, size=(8, 8), fov=200)


def test_huge_requests_are_refused_cleanly(repo):
    scene = repo / "refimages/effects/planar_shadow.json"
    with pytest.raises(plumb.LimitError, match=r"16384x16384 is 268435456 pixels, more than max_pixels"):
        plumb.render(scene, size=(16384, 16384))
    with pytest.raises(plumb.BadInputError, match="each side must be 1..=16384"):
        plumb.render(scene, size=(16385, 1))
    with pytest.raises(plumb.BadInputError):
        plumb.render(scene, size=(0, 10))


def test_rendering_releases_the_gil(repo):
    scene = plumb.Scene.load(repo / "refimages/effects/planar_shadow.json")
    scene.render((64, 48))  # warm
    start = time.perf_counter()
    scene.render((4096, 3072), threads=1)
    alone = time.perf_counter() - start
    counted = 0
    done = threading.Event()

    def work():
        scene.render((4096, 3072), threads=1)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        counted += 1
    t.join()
    # The main thread counted while the render ran: with the GIL held it could not have.
    per_second = counted / alone
    print(f"render alone {alone:.3f} s; main thread counted {counted} meanwhile ({per_second:.0f}/s)")
    assert alone > 0.1
    assert counted > 10_000, counted


def test_calibrated_camera_bytes_equal_the_cli(cli, repo, tmp_path):
    """pose (a numpy 4x4, OpenCV axes) and intrinsics as ``plumb render --pose --intrinsics``;
    the same camera in OpenGL axes (y and z flipped) gives the same image."""
    scene = repo / "docs/examples/inline.json"
    c, s = np.cos(np.radians(20.0)), np.sin(np.radians(20.0))
    # An OpenCV camera at (1, 0.5, -6) looking down +z, turned 20 degrees about y.
    pose = np.array([[c, 0, s, 1.0], [0, 1, 0, 0.5], [-s, 0, c, -6.0], [0, 0, 0, 1]])
    k = (60.0, 55.0, 40.5, 28.0)
    image = plumb.render(scene, size=(80, 60), pose=pose, pose_convention="opencv", intrinsics=k)
    flat = ",".join(repr(float(x)) for x in pose.reshape(-1))
    want = cli_png(cli, tmp_path, str(scene), "--size", "80x60", "--pose", flat,
                   "--pose-convention", "opencv", "--intrinsics", "60,55,40.5,28")
    assert np.array_equal(image, want)
    assert image[..., :3].any(), "the camera sees the scene"
    gl = pose @ np.diag([1.0, -1.0, -1.0, 1.0])
    assert np.array_equal(plumb.render(scene, size=(80, 60), pose=gl, intrinsics=k), image)
    loaded = plumb.Scene.load(scene)
    assert np.array_equal(loaded.render((80, 60), pose=gl, intrinsics=k), image)
    with pytest.raises(plumb.BadInputError, match="16 numbers"):
        plumb.render(scene, size=(80, 60), pose=np.eye(3))
    with pytest.raises(plumb.BadInputError, match="eye"):
        plumb.render(scene, size=(80, 60), pose=np.eye(4), eye=(0, 0, 5))
    with pytest.raises(plumb.BadInputError, match="focal lengths"):
        plumb.render(scene, size=(80, 60), intrinsics=(0, 1, 2, 3))
    with pytest.raises(plumb.BadInputError, match="opencv"):
        plumb.render(scene, size=(80, 60), pose=np.eye(4), pose_convention="directx")
    with pytest.raises(plumb.BadInputError, match="rotation"):
        plumb.render(scene, size=(80, 60), pose=np.diag([2.0, 1.0, 1.0, 1.0]))


def test_pbr_shading_bytes_equal_the_cli(cli, animated_gltf, tmp_path):
    """``shading="pbr"`` (the default, and the output options) draw what ``plumb render
    --shading pbr`` draws, and differ from the classic mapping; bad values are refused."""
    pbr = plumb.render(animated_gltf, size=(64, 48), shading="pbr")
    assert np.array_equal(pbr, cli_png(cli, tmp_path, str(animated_gltf), "--size", "64x48", "--shading", "pbr"))
    assert np.array_equal(pbr, plumb.render(animated_gltf, size=(64, 48)))
    assert np.array_equal(pbr, cli_png(cli, tmp_path, str(animated_gltf), "--size", "64x48"))
    classic = plumb.render(animated_gltf, size=(64, 48), shading="classic")
    assert not np.array_equal(pbr, classic)
    assert np.array_equal(classic, cli_png(cli, tmp_path, str(animated_gltf), "--size", "64x48", "--shading",
                                           "classic"))
    toned = plumb.render(animated_gltf, size=(64, 48), shading="pbr", exposure=2.0, tone_map="aces")
    assert np.array_equal(toned, cli_png(cli, tmp_path, str(animated_gltf), "--size", "64x48", "--shading", "pbr",
                                         "--exposure", "2", "--tone-map", "aces"))
    scene = plumb.Scene.load(animated_gltf, shading="pbr")
    assert np.array_equal(scene.render((64, 48)), pbr)
    with pytest.raises(plumb.BadInputError, match="shading must be"):
        plumb.render(animated_gltf, size=(8, 8), shading="phong")
    with pytest.raises(plumb.BadInputError, match="tone_map must be"):
        plumb.render(animated_gltf, size=(8, 8), shading="pbr", tone_map="filmic")
    # The image-based light: the CLI's default is "auto" (the studio for a file without
    # lights); "none" and an intensity draw what the same flags do.
    for env, k in [("none", 1.0), ("studio", 0.5)]:
        lit = plumb.render(animated_gltf, size=(64, 48), shading="pbr", environment=env,
                           environment_intensity=k)
        assert np.array_equal(lit, cli_png(cli, tmp_path, str(animated_gltf), "--size", "64x48", "--shading",
                                           "pbr", "--environment", env, "--environment-intensity", str(k)))
        if env == "studio":
            assert not np.array_equal(lit, pbr)
    with pytest.raises(plumb.BadInputError, match="environment_intensity"):
        plumb.render(animated_gltf, size=(8, 8), shading="pbr", environment_intensity=-1.0)
    with pytest.raises(plumb.BadInputError, match="no-such.hdr"):
        plumb.render(animated_gltf, size=(8, 8), shading="pbr", environment=str(tmp_path / "no-such.hdr"))
