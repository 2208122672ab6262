"""Rendering at dataset scale on Ray (``pip install "plumb[ray]"``; import ``plumb.ray``).

plumb brings no scheduler of its own: these helpers run renders as Ray tasks or as a Ray
Data ``map_batches`` function, so a cluster you already run does the distribution.

- :func:`render_jobs` renders a list of :class:`Job` (scene, size, camera, time) as tasks
  and returns the arrays in job order, or writes PNGs and returns their paths.
- :func:`render_frames` renders a frame range of one scene, ``chunk`` frames per task (the
  scene is loaded once per task), writing ``OUT_0007.png`` … exactly as
  ``plumb render --frames`` names and draws them: the files are byte-identical.
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

from . import Scene, render, write_png

try:
    import ray as _ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("plumb.ray needs Ray: pip install 'plumb[ray]' (or pip install ray)") from e

__all__ = ["Job", "render_jobs", "render_frames", "render_batch", "frame_path"]


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


_LOAD_OPTIONS = ("unlit", "scene", "variant", "clip", "background")


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
