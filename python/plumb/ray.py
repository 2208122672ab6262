"""Rendering at dataset scale on Ray (``pip install "plumb[ray]"``; import ``plumb.ray``).

plumb brings no scheduler of its own: these helpers run renders as Ray tasks or as a Ray
Data ``map_batches`` function, so a cluster you already run does the distribution.

- :func:`render_jobs` renders a list of :class:`Job` (scene, size, camera, time) as tasks
  and returns the arrays in job order, or writes PNGs and returns their paths.
- :func:`render_frames` renders a frame range of one scene, ``chunk`` frames per task (the
  scene is loaded once per task), writing ``OUT_0007.png`` … exactly as
  ``plumb render --frames`` names and draws them: the files are byte-identical.
- :func:`render_views` renders N camera poses of one scene (a file, or a :class:`plumb.Scene`
  built from arrays) as tasks of ``chunk`` views, each loading the scene once: the arrays
  :meth:`plumb.Scene.render_views` returns, with the same bytes.
- :func:`render_batch` is a ``map_batches`` function: a batch with a ``path`` column (and
  optionally ``time``, ``camera``) gets an ``image`` column.

Each task asks Ray for ``num_cpus`` CPUs (default 1) and renders with as many threads, so
a cluster's CPUs are used without oversubscription. plumb's output does not depend on the
thread count, so the bytes equal a single-process run's.

A multi-machine cluster::

    # on the head node
    ray start --head --port=6379
    # on each worker (the package installed there too)
    ray start --address=HEAD_IP:6379
    # in the driver
    import ray, plumb.ray
    ray.init(address="auto")
    plumb.ray.render_frames("walk.gltf", range(10_000), size=(640, 480), out="/shared/walk.png", chunk=50)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import PlumbError, Scene, render, write_png

try:
    import ray as _ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("plumb.ray needs Ray: pip install 'plumb[ray]' (or pip install ray)") from e

__all__ = ["Job", "render_jobs", "render_frames", "render_views", "render_batch", "frame_path"]


@dataclass
class Job:
    """One image to render: ``path`` at ``size``, with :func:`plumb.render`'s options."""

    path: str
    size: Tuple[int, int]
    time: float = 0.0
    options: Dict[str, Any] = field(default_factory=dict)
    #: Write the image to this PNG instead of returning it.
    out: Optional[str] = None


def frame_path(out: str, index: int) -> str:
    """``OUT.png`` → ``OUT_0007.png``, as ``plumb render --frames`` names frames."""
    head, tail = os.path.split(out)
    stem, ext = os.path.splitext(tail)
    return os.path.join(head, f"{stem}_{index:04d}{ext}")


def _render_job(job: Job, threads: int) -> Union[np.ndarray, str]:
    image = render(job.path, job.size, time=job.time, threads=threads, **job.options)
    if job.out is None:
        return image
    write_png(job.out, image)
    return job.out


def render_jobs(jobs: Iterable[Job], *, num_cpus: int = 1) -> List[Union[np.ndarray, str]]:
    """Render every job as a Ray task (``num_cpus`` CPUs and as many threads each);
    results in job order: arrays, or for jobs with ``out`` the PNG paths."""
    task = _ray.remote(num_cpus=num_cpus)(_render_job)
    refs = [task.remote(job, num_cpus) for job in jobs]
    return _ray.get(refs)


def _render_chunk(path: str, frames: Sequence[int], size: Tuple[int, int], fps: float, time: float,
                  out: Optional[str], threads: int, load: Dict[str, Any], view: Dict[str, Any]):
    scene = Scene.load(path, **load)
    results = []
    for i in frames:
        image = scene.render(size, time=time, frame=i, fps=fps, threads=threads, **view)
        if out is None:
            results.append(image)
        else:
            name = frame_path(out, i)
            write_png(name, image)
            results.append(name)
    return results


_LOAD_OPTIONS = (
    "unlit",
    "scene",
    "variant",
    "clip",
    "background",
    "shading",
    "exposure",
    "tone_map",
    "output_encoding",
    "environment",
    "environment_intensity",
)


def render_frames(
    path: str,
    frames: Iterable[int],
    *,
    size: Tuple[int, int],
    fps: float = 24.0,
    time: float = 0.0,
    out: Optional[str] = None,
    chunk: int = 1,
    num_cpus: int = 1,
    **options: Any,
) -> List[Union[np.ndarray, str]]:
    """Render frames ``frames`` (indices of the sequence ``plumb render --frames`` makes:
    frame ``i`` at ``time + i / fps``) as Ray tasks of ``chunk`` frames each. With ``out``
    (``OUT.png``) each frame is written to ``OUT_{i:04}.png`` and the paths are returned,
    else the arrays; in the order of ``frames``. ``options``: :func:`plumb.render`'s."""
    indices = [int(i) for i in frames]
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    load = {k: options.pop(k) for k in _LOAD_OPTIONS if k in options}
    task = _ray.remote(num_cpus=num_cpus)(_render_chunk)
    refs = [
        task.remote(path, indices[k : k + chunk], tuple(size), float(fps), float(time), out, num_cpus, load, options)
        for k in range(0, len(indices), chunk)
    ]
    return [r for part in _ray.get(refs) for r in part]


def _render_views_chunk(source: Tuple[str, str], size: Tuple[int, int], poses: np.ndarray, threads: int,
                        load: Dict[str, Any], options: Dict[str, Any]):
    kind, value = source
    if kind == "path":
        return Scene.load(value, **load).render_views(size, poses, threads=threads, **options)
    # A scene built from arrays travels as its scene file's text (what it is underneath).
    import tempfile

    with tempfile.TemporaryDirectory(prefix="plumb-ray-") as d:
        path = os.path.join(d, "scene.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(value)
        return Scene.load(path, **load).render_views(size, poses, threads=threads, **options)


def render_views(
    scene: Union[str, "os.PathLike[str]", Scene],
    size: Tuple[int, int],
    poses: Any,
    *,
    chunk: int = 64,
    num_cpus: int = 1,
    **options: Any,
):
    """Render ``scene`` from each of ``poses`` (``(N, 4, 4)`` camera-to-world matrices) as Ray
    tasks of ``chunk`` views each (``num_cpus`` CPUs and as many threads per task). ``scene``
    is a file path or a :class:`plumb.Scene`; a scene built from arrays is sent to the tasks
    as its scene file's text (``to_json``), a loaded one as its path. ``options`` are
    :meth:`plumb.Scene.render_views`'s (``intrinsics``, ``depth``, ``ids``, ``normals``, …) and,
    for a path, :meth:`plumb.Scene.load`'s. Returns what :meth:`plumb.Scene.render_views`
    returns for all the poses, in their order, with the same bytes."""
    p = np.asarray(poses, dtype=np.float64)
    if p.ndim != 3 or p.shape[1:] != (4, 4) or len(p) == 0:
        raise ValueError(f"poses: shape {p.shape}, need (N, 4, 4) with N >= 1")
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    load = {k: options.pop(k) for k in _LOAD_OPTIONS if k in options}
    if isinstance(scene, Scene):
        try:
            source = ("json", scene.to_json())
        except PlumbError:  # a loaded scene: its file
            source = ("path", scene.path)
    else:
        source = ("path", os.fspath(scene))
    task = _ray.remote(num_cpus=num_cpus)(_render_views_chunk)
    refs = [
        task.remote(source, tuple(size), p[k : k + chunk], num_cpus, load, options)
        for k in range(0, len(p), chunk)
    ]
    parts = _ray.get(refs)
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate([part[j] for part in parts]) for j in range(len(parts[0])))
    return np.concatenate(parts)


def render_batch(batch: Dict[str, Any], *, size: Tuple[int, int], threads: int = 1, **options: Any) -> Dict[str, Any]:
    """A Ray Data ``map_batches`` function (``batch_format="numpy"``): renders each row's
    ``path`` (with the row's ``time`` and ``camera`` when the batch has those columns) and
    adds an ``image`` column of ``(height, width, 4)`` arrays::

        ds = ray.data.from_items([{"path": "walk.gltf", "time": t / 24} for t in range(480)])
        ds = ds.map_batches(plumb.ray.render_batch, fn_kwargs={"size": (320, 240)},
                            batch_size=8, num_cpus=1)
    """
    paths = batch["path"]
    n = len(paths)
    times = batch.get("time", [0.0] * n)
    cameras = batch.get("camera", [None] * n)
    images = [
        render(str(paths[k]), size, time=float(times[k]), camera=cameras[k], threads=threads, **options)
        for k in range(n)
    ]
    out = dict(batch)
    out["image"] = np.stack(images) if images else np.zeros((0, size[1], size[0], 4), np.uint8)
    return out
