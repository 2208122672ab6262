"""plumb.ray on a local 2-CPU Ray cluster: 48 frames of an animated glTF as Ray tasks,
byte-identical to `plumb render --frames 48`."""

from __future__ import annotations

import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="pip install ray (CI installs it)")

import plumb  # noqa: E402
import plumb.ray  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield
    ray.shutdown()


def test_48_frames_as_ray_tasks_equal_the_cli(cluster, cli, animated_gltf, tmp_path):
    size = (160, 120)
    start = time.perf_counter()
    r = cli("render", str(animated_gltf), "-o", str(tmp_path / "cli.png"), "--size", "160x120",
            "--frames", "48", "--fps", "24", "--threads", "1")
    single = time.perf_counter() - start
    assert r.returncode == 0, r.stderr
    start = time.perf_counter()
    paths = plumb.ray.render_frames(str(animated_gltf), range(48), size=size, fps=24.0,
                                    out=str(tmp_path / "ray.png"), chunk=6)
    distributed = time.perf_counter() - start
    assert len(paths) == 48
    for i, p in enumerate(paths):
        assert p.endswith(f"ray_{i:04d}.png")
        with open(p, "rb") as f, open(tmp_path / f"cli_{i:04d}.png", "rb") as g:
            assert f.read() == g.read(), f"frame {i}"
    print(f"48 frames at 160x120: plumb render --frames (1 process, 1 thread) {single:.2f} s; "
          f"Ray tasks on a local 2-CPU cluster {distributed:.2f} s")


def test_jobs_and_batches(cluster, animated_gltf):
    jobs = [plumb.ray.Job(str(animated_gltf), (32, 24), time=t) for t in (0.0, 0.5, 1.0)]
    images = plumb.ray.render_jobs(jobs)
    for job, image in zip(jobs, images):
        assert np.array_equal(image, plumb.render(job.path, job.size, time=job.time))
    batch = plumb.ray.render_batch({"path": np.array([str(animated_gltf)] * 2), "time": np.array([0.0, 1.0])}, size=(32, 24))
    assert batch["image"].shape == (2, 24, 32, 4)
    assert np.array_equal(batch["image"][1], images[2])
    data = pytest.importorskip("ray.data", reason="Ray Data needs pyarrow (pip install 'ray[data]')")
    ds = data.from_items([{"path": str(animated_gltf), "time": t} for t in (0.0, 0.5, 1.0)])
    out = ds.map_batches(plumb.ray.render_batch, fn_kwargs={"size": (32, 24)}, batch_size=2, batch_format="numpy").take_all()
    got = sorted(out, key=lambda row: row["time"])
    for row, image in zip(got, images):
        assert np.array_equal(row["image"], image)


def test_render_views_on_ray_equal_one_process(cluster, repo, orbit):
    scene = plumb.Scene()
    box = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    hull = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
            [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    scene.add_mesh(box, hull, color=(0.9, 0.4, 0.1, 1.0))
    scene.add_light("directional", direction=(-1, -2, -3))
    poses = orbit(11)
    k = (60.0, 60.0, 39.5, 29.5)
    want = scene.render_views((80, 60), poses, intrinsics=k, depth="metric", ids=True)
    got = plumb.ray.render_views(scene, (80, 60), poses, chunk=4, intrinsics=k, depth="metric", ids=True)
    assert len(got) == 3 and got[0].shape == (11, 60, 80, 4)
    for a, b in zip(want, got):
        assert np.array_equal(a, b)
    # A scene file by path (and a loaded scene, sent as its path): the image alone.
    path = repo / "docs/examples/inline.json"
    loaded = plumb.Scene.load(path)
    want = loaded.render_views((40, 30), poses[:5])
    assert np.array_equal(plumb.ray.render_views(path, (40, 30), poses[:5], chunk=2), want)
    assert np.array_equal(plumb.ray.render_views(loaded, (40, 30), poses[:5], chunk=3), want)
    with pytest.raises(ValueError, match="poses"):
        plumb.ray.render_views(path, (40, 30), np.eye(4))
