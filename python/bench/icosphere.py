"""Frames per second of plumb's Python API on the scene pyrender users render: a 1,280-face
icosphere, one directional light, 640x480, colour + depth; at 1 and 2 threads, and with the
id and normal planes too; and
``Scene.render_views`` of 1,000 poses at 320x240 with its peak memory. With pyrender
installed (not a dependency: ``pip install pyrender PyOpenGL==3.1.10`` with Debian's
``libosmesa6`` and ``PYOPENGL_PLATFORM=osmesa``), pyrender's figure is printed beside
plumb's, from the same run.

    python python/bench/icosphere.py [--frames N]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

import plumb


def icosphere(subdivisions: int = 3):
    """An icosphere: 20 * 4**subdivisions faces (1,280 for 3), unit radius."""
    t = (1 + 5**0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
         (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    verts = [np.array(p, dtype=np.float64) / np.linalg.norm(p) for p in v]
    for _ in range(subdivisions):
        cache, faces = {}, []

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                m = verts[a] + verts[b]
                verts.append(m / np.linalg.norm(m))
                cache[key] = len(verts) - 1
            return cache[key]

        for a, b, c in f:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            faces += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = faces
    return np.array(verts), np.array(f)


CAMERA = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 3.0], [0, 0, 0, 1]])
K = (525.0, 525.0, 319.5, 239.5)


def plumb_fps(frames: int, threads: int, planes: bool = False) -> float:
    """Colour + metric depth (with ``planes``, also ids and world normals)."""
    v, f = icosphere()
    scene = plumb.Scene()
    scene.add_mesh(v, f, normals=v, color=(0.8, 0.3, 0.2, 1.0))
    scene.add_light("directional", direction=(-1, -1, -1))
    extra = dict(ids=True, normals="world") if planes else {}
    scene.render((640, 480), pose=CAMERA, intrinsics=K, depth="metric", threads=threads, **extra)
    start = time.perf_counter()
    for _ in range(frames):
        scene.render((640, 480), pose=CAMERA, intrinsics=K, depth="metric", threads=threads, **extra)
    return frames / (time.perf_counter() - start)


def pyrender_fps(frames: int) -> "float | None":
    try:
        import pyrender
        import trimesh
    except ImportError:
        return None
    v, f = icosphere()
    mesh = pyrender.Mesh.from_trimesh(trimesh.Trimesh(v, f))
    scene = pyrender.Scene()
    scene.add(mesh)
    scene.add(pyrender.DirectionalLight(intensity=3.0), pose=np.eye(4))
    scene.add(pyrender.IntrinsicsCamera(*K), pose=CAMERA)
    r = pyrender.OffscreenRenderer(640, 480)
    r.render(scene)
    start = time.perf_counter()
    for _ in range(frames):
        r.render(scene)  # colour and depth
    return frames / (time.perf_counter() - start)


def views(n: int) -> "tuple[float, float]":
    v, f = icosphere()
    scene = plumb.Scene()
    scene.add_mesh(v, f, normals=v, color=(0.8, 0.3, 0.2, 1.0))
    scene.add_light("directional", direction=(-1, -1, -1))
    poses = []
    for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
        pose = np.eye(4)
        c, s = np.cos(a), np.sin(a)
        pose[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
        pose[:3, 3] = (3 * s, 0.0, 3 * c)
        poses.append(pose)
    start = time.perf_counter()
    images = scene.render_views((320, 240), np.array(poses), intrinsics=(262.5, 262.5, 159.5, 119.5))
    fps = n / (time.perf_counter() - start)
    assert images.shape == (n, 240, 320, 4)
    return fps, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--views", type=int, default=1000)
    a = ap.parse_args()
    # The views first, so that the peak is plumb's alone (pyrender loads its own libraries).
    fps, peak = views(a.views)
    print(f"plumb render_views, {a.views} poses at 320x240: {fps:.1f} frames/s, peak RSS {peak:.0f} MiB "
          f"(the result alone is {a.views * 320 * 240 * 4 / 2**20:.0f} MiB)")
    for threads in (1, 2):
        print(f"plumb, 640x480 colour + depth, {threads} thread(s): {plumb_fps(a.frames, threads):.1f} frames/s")
    print(f"plumb, 640x480 colour + depth + ids + normals, 1 thread: {plumb_fps(a.frames, 1, True):.1f} frames/s")
    other = pyrender_fps(a.frames)
    print("pyrender (OSMesa), 640x480 colour + depth:", "not installed" if other is None else f"{other:.1f} frames/s")


if __name__ == "__main__":
    main()
