"""plumb: a deterministic CPU reference renderer, from Python.

Render scene files (``.json``), glTF/GLB/OBJ models and draw traces to NumPy arrays — the
same bytes ``plumb render`` writes, on any machine, with no GPU and no display::

    import plumb
    rgba = plumb.render("model.gltf", size=(640, 480), time=1.5)   # (480, 640, 4) uint8
    rgba, depth = plumb.render("scene.json", size=(64, 64), depth=True)

    scene = plumb.Scene.load("walk.gltf")          # load once, render many views
    frames = [scene.render((320, 240), time=i / 24) for i in range(48)]

    result = plumb.diff(rgba, expected, threshold=2)   # the metrics of `plumb diff`

Rendering releases the GIL, so threads render in parallel. Every error is a
:class:`PlumbError` (:class:`BadInputError`, :class:`LimitError`, :class:`PlumbIOError`)
with the command line's one-line message.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _plumb
from ._plumb import BadInputError, LimitError, PlumbError, PlumbIOError

__all__ = [
    "render",
    "Scene",
    "diff",
    "DiffResult",
    "explain",
    "conform",
    "read_png",
    "write_png",
    "PlumbError",
    "BadInputError",
    "LimitError",
    "PlumbIOError",
    "DEFAULT_MAX_PIXELS",
]

#: Largest image :func:`render` makes unless ``max_pixels`` says otherwise (8192 × 8192).
DEFAULT_MAX_PIXELS: int = _plumb.DEFAULT_MAX_PIXELS

PathLike = Union[str, "os.PathLike[str]"]
Vec3 = Tuple[float, float, float]


def _rgba(w: int, h: int, buf: bytearray) -> np.ndarray:
    return np.frombuffer(buf, dtype=np.uint8).reshape(h, w, 4)


def _depth(w: int, h: int, buf: bytearray) -> np.ndarray:
    return np.frombuffer(buf, dtype="<f4").reshape(h, w).astype(np.float32, copy=False)


def _pose(pose: Any) -> Optional[list]:
    """A 4×4 pose (numpy array or nested sequence) as 16 floats, row-major."""
    if pose is None:
        return None
    return [float(x) for x in np.asarray(pose, dtype=np.float64).reshape(-1)]


def _metric(depth: Union[bool, str]) -> bool:
    """``depth``: ``False``, ``True`` or ``"window"`` (window depth), ``"metric"``."""
    if depth in (False, True, "window"):
        return False
    if depth == "metric":
        return True
    raise BadInputError(f'depth must be True, False, "window" or "metric", got {depth!r}')


def _intrinsics(k: Optional[Sequence[float]]) -> Optional[list]:
    return None if k is None else [float(x) for x in k]


def _normals(normals: Union[bool, str]) -> Optional[str]:
    """``normals``: ``False``, ``True`` or ``"camera"`` (camera space), ``"world"``."""
    if normals is False:
        return None
    if normals in (True, "camera"):
        return "camera"
    if normals == "world":
        return "world"
    raise BadInputError(f'normals must be True, False, "camera" or "world", got {normals!r}')


def _planes(n: Optional[int], w: int, h: int, rgba, depth, ids, normals):
    """The image and the planes asked for, in that order: a lone array when only the image
    was asked for, else a tuple. ``n`` views stack along a first axis (``None``: one)."""
    lead = () if n is None else (n,)
    out = [np.frombuffer(rgba, dtype=np.uint8).reshape(*lead, h, w, 4)]
    if depth is not None:
        out.append(np.frombuffer(depth, dtype="<f4").reshape(*lead, h, w).astype(np.float32, copy=False))
    if ids is not None:
        out.append(np.frombuffer(ids, dtype="<u4").reshape(*lead, h, w).astype(np.uint32, copy=False))
    if normals is not None:
        out.append(
            np.frombuffer(normals, dtype="<f4").reshape(*lead, h, w, 3).astype(np.float32, copy=False)
        )
    return out[0] if len(out) == 1 else tuple(out)


def _out(w: int, h: int, rgba: bytearray, depth, ids=None, normals=None):
    return _planes(None, w, h, rgba, depth, ids, normals)


def render(
    path: PathLike,
    size: Optional[Tuple[int, int]] = None,
    *,
    camera: Optional[str] = None,
    eye: Optional[Vec3] = None,
    target: Optional[Vec3] = None,
    up: Optional[Vec3] = None,
    fov: Optional[float] = None,
    near: Optional[float] = None,
    far: Optional[float] = None,
    pose: Optional[Any] = None,
    pose_convention: str = "opengl",
    intrinsics: Optional[Sequence[float]] = None,
    time: float = 0.0,
    clip: Optional[str] = None,
    scene: Optional[str] = None,
    variant: Optional[str] = None,
    unlit: bool = False,
    background: Optional[Sequence[float]] = None,
    threads: Optional[int] = None,
    depth: Union[bool, str] = False,
    ids: bool = False,
    normals: Union[bool, str] = False,
    loop: str = "clamp",
    max_pixels: int = DEFAULT_MAX_PIXELS,
    shading: str = "pbr",
    exposure: float = 1.0,
    tone_map: str = "none",
    output_encoding: str = "srgb",
    environment: str = "auto",
    environment_intensity: float = 1.0,
):
    """Render ``path`` as ``plumb render`` does and return the image.

    ``path`` is a scene file (``.json``), a glTF/GLB/OBJ model or a draw trace. ``size`` is
    ``(width, height)`` (default ``(800, 600)``; a trace renders at its recorded size).
    ``camera`` picks an imported camera by name or index; ``eye``/``target``/``up``/``fov``/
    ``near``/``far`` override it. A calibrated camera, as ``plumb render --pose --intrinsics``:
    ``pose`` a 4×4 camera-to-world matrix (numpy array or nested sequence) in the axes
    ``pose_convention`` names (``"opengl"``: looking down −z, y up, as pyrender;
    ``"opencv"``: +z forward, y down), ``intrinsics`` ``(fx, fy, cx, cy)`` in pixels with
    ``(0, 0)`` the centre of the top-left pixel (a point lands at OpenCV's
    ``u = fx·X/Z + cx``); ``pose`` replaces ``eye``/``target``/``up``, ``intrinsics``
    ``fov``. ``time`` (seconds) poses the animations, ``clip`` plays only
    one (``loop``: ``"clamp"`` or ``"repeat"`` past its end); ``scene`` and ``variant`` pick a
    glTF scene and material variant; ``unlit`` draws base colour only; ``shading="pbr"`` (the
    default) lights glTF materials with the specification's metallic-roughness BRDF per pixel
    (as pyrender does; ``"classic"`` is the fixed-function mapping), with
    ``exposure``, ``tone_map`` (``"none"``, ``"aces"``, ``"pbr-neutral"``) and
    ``output_encoding`` (``"srgb"`` or ``"linear"``) as ``plumb render``'s flags, and the
    image-based light ``environment`` (``"auto"``: a built-in studio for a file without
    lights; ``"none"``, ``"studio"`` or an equirectangular ``.hdr`` path) times
    ``environment_intensity``;
    ``background`` is 3 or 4 numbers in 0..1. ``threads`` workers (``None``: all cores; the
    bytes are the same for every count).

    Returns a ``(height, width, 4)`` ``uint8`` array, row 0 at the top, alpha as the
    pipeline wrote it; with ``depth=True`` (or ``"window"``), also a ``(height, width)``
    ``float32`` array of window depth (0 near, 1 far); with ``depth="metric"``, the distance
    along the camera's viewing axis in scene units (metres for glTF), 0 where nothing was
    drawn (scenes and models: a draw trace has no camera). With ``ids=True``, also a
    ``(height, width)`` ``uint32`` array: per pixel the object id of the mesh whose fragment
    wrote the depth there (segmentation), 0 where nothing was drawn. With ``normals=True``
    (or ``"camera"``: x right, y up, z towards the viewer) or ``normals="world"``, also a
    ``(height, width, 3)`` ``float32`` array of unit normals of that surface, 0 where
    nothing was drawn. The arrays come in that order: image, depth, ids, normals, each only
    when asked for (the image alone is returned as an array, not a tuple). Images over
    ``max_pixels`` pixels raise :class:`LimitError`.
    """
    w, h, rgba, d, i, n = _plumb.render(
        os.fspath(path),
        None if size is None else (int(size[0]), int(size[1])),
        camera=None if camera is None else str(camera),
        eye=eye,
        target=target,
        up=up,
        fov=fov,
        near=near,
        far=far,
        pose=_pose(pose),
        pose_convention=str(pose_convention),
        intrinsics=_intrinsics(intrinsics),
        time=float(time),
        clip=None if clip is None else str(clip),
        scene=None if scene is None else str(scene),
        variant=None if variant is None else str(variant),
        unlit=unlit,
        background=None if background is None else [float(c) for c in background],
        threads=threads,
        depth=bool(depth),
        metric_depth=_metric(depth),
        ids=bool(ids),
        normals=_normals(normals),
        loop_mode=loop,
        max_pixels=int(max_pixels),
        shading=str(shading),
        exposure=float(exposure),
        tone_map=str(tone_map),
        output_encoding=str(output_encoding),
        environment=str(environment),
        environment_intensity=float(environment_intensity),
    )
    return _out(w, h, rgba, d, i, n)


def _rows(a: Any, cols: int, name: str, dtype: str = "<f4") -> bytes:
    """``a`` as an ``(N, cols)`` array of numbers, little-endian ``dtype`` bytes."""
    arr = np.asarray(a)
    if arr.dtype.kind not in "fiub":
        raise BadInputError(f"{name}: an array of numbers is needed, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != cols:
        raise BadInputError(f"{name}: shape {arr.shape}, need (N, {cols})")
    return np.ascontiguousarray(arr, dtype=dtype).tobytes()


def _triangles(a: Any) -> bytes:
    arr = np.asarray(a)
    if arr.dtype.kind not in "iu":
        raise BadInputError(f"triangles: integer indices are needed, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise BadInputError(f"triangles: shape {arr.shape}, need (M, 3)")
    if arr.size and (arr.min() < 0 or arr.max() >= 2**32):
        raise BadInputError(f"triangles: indices must be in 0..2**32, got {arr.min()}..{arr.max()}")
    return np.ascontiguousarray(arr, dtype="<u4").tobytes()


class Scene:
    """A scene file or model loaded once and rendered many times (views, times), or a scene
    built in code from arrays.

    A scene renders one frame at a time (rendering poses it): give each thread its own
    ``Scene`` (a second thread's concurrent ``render`` raises ``RuntimeError``).

    >>> scene = plumb.Scene.load("walk.gltf", clip="Walk")
    >>> scene.render((320, 240), time=0.5).shape
    (240, 320, 4)

    Built in code, the scene is a plumb scene file (``to_json``/``save`` write it, and
    ``plumb render`` draws the saved file with the same bytes):

    >>> scene = plumb.Scene()
    >>> scene.add_mesh(vertices, faces, color=(0.8, 0.3, 0.2, 1.0), pose=np.eye(4))
    'mesh_1'
    >>> scene.add_light("directional", direction=(-1, -2, -3))
    'light_2'
    >>> scene.render((640, 480), pose=cam_pose, intrinsics=(525, 525, 319.5, 239.5))
    """

    def __init__(self, native: "Optional[_plumb.Scene]" = None):
        self._native = _plumb.Scene.new() if native is None else native

    def add_mesh(
        self,
        positions: Any,
        triangles: Any = None,
        *,
        normals: Any = None,
        colors: Any = None,
        uvs: Any = None,
        color: Optional[Sequence[float]] = None,
        pose: Any = None,
        name: Optional[str] = None,
        object_id: Optional[int] = None,
    ) -> str:
        """Add a mesh: ``positions`` ``(N, 3)``, ``triangles`` ``(M, 3)`` integer indices
        (default: every three positions), ``normals`` ``(N, 3)`` (default: generated),
        ``colors`` ``(N, 4)`` RGBA in 0..1 (or ``(N, 3)``), ``uvs`` ``(N, 2)``; any numeric
        dtype. ``color`` is the material's RGBA (default grey), ``pose`` a 4×4 model-to-world
        matrix. ``object_id`` is what it writes to the id plane (``ids=True``; default 1 for
        the first mesh added, 2 for the second, …; 0 means background and is refused).
        Returns the mesh's name (``name`` or ``mesh_N``). Bad shapes, NaN, indices out of
        range raise :class:`BadInputError`."""
        if colors is not None:
            c = np.asarray(colors)
            if c.ndim == 2 and c.shape[1] == 3:
                colors = np.concatenate([c, np.ones((c.shape[0], 1), dtype=c.dtype)], axis=1)
        return self._native.add_mesh(
            _rows(positions, 3, "positions"),
            None if triangles is None else _triangles(triangles),
            None if normals is None else _rows(normals, 3, "normals"),
            None if colors is None else _rows(colors, 4, "colors"),
            None if uvs is None else _rows(uvs, 2, "uvs"),
            color=None if color is None else [float(x) for x in color],
            pose=_pose(pose),
            name=name,
            object_id=None if object_id is None else int(object_id),
        )

    def add_file(
        self,
        path: PathLike,
        *,
        pose: Any = None,
        name: Optional[str] = None,
        object_id: Optional[int] = None,
    ) -> str:
        """Add a glTF, GLB or OBJ file as one node: its whole scene at the 4×4 ``pose``,
        drawn as a scene file's ``import`` draws it (the same load budgets), every mesh of it
        writing ``object_id`` to the id plane (default: the next id, counted with
        :meth:`add_mesh`'s). Returns its name (``name`` or ``file_N``). The file is loaded
        here: a missing or malformed file, or another extension, raises the error
        :func:`render` would (and the scene stays as it was)."""
        return self._native.add_file(
            os.fspath(path), pose=_pose(pose), name=name,
            object_id=None if object_id is None else int(object_id),
        )

    def object_id(self, name: str) -> int:
        """The object id mesh ``name`` writes to the id plane."""
        return self._native.object_id(str(name))

    def add_trimesh(self, mesh: Any, **options: Any) -> str:
        """Add a ``trimesh.Trimesh`` (its vertices, faces and vertex normals; options as
        :meth:`add_mesh`). trimesh is optional: plumb does not depend on it."""
        if not (hasattr(mesh, "vertices") and hasattr(mesh, "faces")):
            raise BadInputError("add_trimesh needs a trimesh.Trimesh (vertices and faces)")
        options.setdefault("normals", getattr(mesh, "vertex_normals", None))
        return self.add_mesh(mesh.vertices, mesh.faces, **options)

    def add_light(
        self,
        kind: str,
        *,
        color: Sequence[float] = (1.0, 1.0, 1.0),
        intensity: float = 1.0,
        position: Optional[Vec3] = None,
        direction: Optional[Vec3] = None,
        name: Optional[str] = None,
    ) -> str:
        """Add a light that lights every mesh: ``"directional"`` (``direction``), ``"point"``
        (``position``) or ``"spot"`` (both), in world space. Returns its name."""
        return self._native.add_light(
            str(kind),
            color=[float(x) for x in color],
            intensity=float(intensity),
            position=None if position is None else [float(x) for x in position],
            direction=None if direction is None else [float(x) for x in direction],
            name=name,
        )

    def set_pose(self, name: str, pose: Any) -> None:
        """Move mesh ``name`` to the 4×4 model-to-world ``pose``."""
        self._native.set_pose(str(name), _pose(pose))

    def remove(self, name: str) -> None:
        """Remove the mesh or light ``name``."""
        self._native.remove(str(name))

    def set_background(self, rgba: Sequence[float]) -> None:
        """Set the clear colour (RGBA in 0..1)."""
        self._native.set_background([float(x) for x in rgba])

    def render_views(
        self,
        size: Tuple[int, int],
        poses: Any,
        *,
        pose_convention: str = "opengl",
        intrinsics: Optional[Sequence[float]] = None,
        fov: Optional[float] = None,
        near: Optional[float] = None,
        far: Optional[float] = None,
        time: float = 0.0,
        threads: Optional[int] = None,
        depth: Union[bool, str] = False,
        ids: bool = False,
        normals: Union[bool, str] = False,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        max_total_pixels: int = _plumb.DEFAULT_MAX_VIEW_PIXELS,
    ):
        """Render the scene from each of ``poses`` (``(N, 4, 4)`` camera-to-world matrices)
        into one ``(N, height, width, 4)`` ``uint8`` array, without reloading or rebuilding
        the scene, the GIL released throughout; view ``i`` has the bytes of
        ``render(size, pose=poses[i], …)``. With ``depth``, ``ids`` and ``normals``, also
        their ``(N, height, width[, 3])`` arrays, in that order (as :func:`render`). All views together are at most
        ``max_total_pixels`` pixels (default 2**28, a 1 GiB result): more raises
        :class:`LimitError` before anything is drawn."""
        p = np.asarray(poses, dtype=np.float64)
        if p.ndim != 3 or p.shape[1:] != (4, 4):
            raise BadInputError(f"poses: shape {p.shape}, need (N, 4, 4)")
        n, (w, h, rgba, d, i, nr) = self._native.render_views(
            (int(size[0]), int(size[1])),
            [float(x) for x in p.reshape(-1)],
            pose_convention=str(pose_convention),
            intrinsics=_intrinsics(intrinsics),
            fov=fov,
            near=near,
            far=far,
            time=float(time),
            threads=threads,
            depth=bool(depth),
            metric_depth=_metric(depth),
            ids=bool(ids),
            normals=_normals(normals),
            max_pixels=int(max_pixels),
            max_total_pixels=int(max_total_pixels),
        )
        return _planes(n, w, h, rgba, d, i, nr)

    def to_json(self) -> str:
        """The built scene as a plumb scene file's text."""
        return self._native.to_json()

    def save(self, path: PathLike) -> None:
        """Write the scene file ``path`` (``plumb render`` draws it with the same bytes): the
        text of :meth:`to_json`, with files added by :meth:`add_file` named relative to
        ``path``'s folder, which must contain them."""
        self._native.save(os.fspath(path))

    @classmethod
    def load(
        cls,
        path: PathLike,
        *,
        unlit: bool = False,
        scene: Optional[str] = None,
        variant: Optional[str] = None,
        clip: Optional[str] = None,
        background: Optional[Sequence[float]] = None,
        shading: str = "pbr",
        exposure: float = 1.0,
        tone_map: str = "none",
        output_encoding: str = "srgb",
        environment: str = "auto",
        environment_intensity: float = 1.0,
    ) -> "Scene":
        """Load ``path`` as ``plumb render`` does (the options as for :func:`render`)."""
        native = _plumb.Scene.load(
            os.fspath(path),
            unlit=unlit,
            scene=scene,
            variant=variant,
            clip=clip,
            background=None if background is None else [float(c) for c in background],
            shading=str(shading),
            exposure=float(exposure),
            tone_map=str(tone_map),
            output_encoding=str(output_encoding),
            environment=str(environment),
            environment_intensity=float(environment_intensity),
        )
        return cls(native)

    @property
    def path(self) -> str:
        """The file the scene was loaded from."""
        return str(self._native.path)

    @property
    def clips(self) -> Dict[str, float]:
        """The glTF animations, name → duration in seconds."""
        return dict(self._native.clips)

    def render(
        self,
        size: Tuple[int, int],
        *,
        camera: Optional[str] = None,
        eye: Optional[Vec3] = None,
        target: Optional[Vec3] = None,
        up: Optional[Vec3] = None,
        fov: Optional[float] = None,
        near: Optional[float] = None,
        far: Optional[float] = None,
        pose: Optional[Any] = None,
        pose_convention: str = "opengl",
        intrinsics: Optional[Sequence[float]] = None,
        time: float = 0.0,
        threads: Optional[int] = None,
        depth: Union[bool, str] = False,
        ids: bool = False,
        normals: Union[bool, str] = False,
        loop: str = "clamp",
        max_pixels: int = DEFAULT_MAX_PIXELS,
        frame: Optional[int] = None,
        fps: float = 24.0,
    ):
        """Render one frame (the camera and time options as for :func:`render`). With
        ``frame``, the time is frame ``frame`` of a sequence at ``fps`` starting at ``time``,
        computed exactly as ``plumb render --frames`` does (so frame ``i`` has the bytes of
        the command's ``OUT_{i:04}.png``). ``depth``, ``ids`` and ``normals`` as for
        :func:`render`."""
        w, h, rgba, d, i, n = self._native.render(
            (int(size[0]), int(size[1])),
            camera=None if camera is None else str(camera),
            eye=eye,
            target=target,
            up=up,
            fov=fov,
            near=near,
            far=far,
            pose=_pose(pose),
            pose_convention=str(pose_convention),
            intrinsics=_intrinsics(intrinsics),
            time=float(time),
            threads=threads,
            depth=bool(depth),
            metric_depth=_metric(depth),
            ids=bool(ids),
            normals=_normals(normals),
            loop_mode=loop,
            max_pixels=int(max_pixels),
            frame=None if frame is None else int(frame),
            fps=float(fps),
        )
        return _out(w, h, rgba, d, i, n)


@dataclass(frozen=True)
class DiffResult:
    """The metrics of ``plumb diff``: pixels whose largest channel difference is over the
    threshold, the largest difference, PSNR (``inf`` for identical images), the mean and
    largest FLIP-style perceptual error (0 identical, 1 everything wrong), and the heat
    map when asked for."""

    pixels_over: int
    max_delta: int
    psnr: float
    flip_mean: float
    flip_max: float
    heat: Optional[np.ndarray] = None


def _as_rgba(a: Any, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise BadInputError(f"{name}: expected an (height, width, 4) or (height, width, 3) array, got shape {arr.shape}")
    if arr.dtype != np.uint8:
        raise BadInputError(f"{name}: expected dtype uint8, got {arr.dtype}")
    if arr.shape[2] == 3:
        arr = np.concatenate([arr, np.full(arr.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return np.ascontiguousarray(arr)


def diff(a: Any, b: Any, *, threshold: int = 0, pixels_per_degree: float = 67.0, heat: bool = False) -> DiffResult:
    """Compare two RGBA (or RGB) ``uint8`` images as ``plumb diff`` does."""
    ia, ib = _as_rgba(a, "a"), _as_rgba(b, "b")
    over, max_delta, psnr, mean, peak, hm = _plumb.diff(
        ia.tobytes(),
        (ia.shape[1], ia.shape[0]),
        ib.tobytes(),
        (ib.shape[1], ib.shape[0]),
        threshold=int(threshold),
        pixels_per_degree=float(pixels_per_degree),
        heat=heat,
    )
    heat_map = None if hm is None else _rgba(ia.shape[1], ia.shape[0], hm)
    return DiffResult(over, max_delta, psnr, mean, peak, heat_map)


def explain(path: PathLike, x: int, y: int, size: Optional[Tuple[int, int]] = None, **options: Any) -> Dict[str, Any]:
    """The history of pixel ``(x, y)``: ``plumb explain --json`` as a dict (schema in
    docs/explain.md). ``options`` are :func:`render`'s camera, time and scene options, and
    ``max_fragments`` (default 16384, as ``--max-fragments``): the fragments recorded before
    the rest of the frame is drawn unrecorded (``"skipped"`` in the dict says what)."""
    if "loop" in options:
        options["loop_mode"] = options.pop("loop")
    if "pose" in options:
        options["pose"] = _pose(options["pose"])
    if "intrinsics" in options:
        options["intrinsics"] = _intrinsics(options["intrinsics"])
    text = _plumb.explain(os.fspath(path), int(x), int(y), None if size is None else (int(size[0]), int(size[1])), **options)
    return json.loads(text)


def conform(refimages: PathLike, report: PathLike = "conform-report", *, filter: Optional[str] = None, threads: Optional[int] = None) -> Dict[str, Any]:
    """Run plumb's own backend over a golden corpus (``plumb conform``), write the report to
    ``report`` and return ``results.json`` as a dict."""
    text = _plumb.conform(os.fspath(refimages), os.fspath(report), filter=filter, threads=threads)
    return json.loads(text)


def read_png(path: PathLike) -> np.ndarray:
    """A PNG as a ``(height, width, 4)`` ``uint8`` array."""
    w, h, buf = _plumb.read_png(os.fspath(path))
    return _rgba(w, h, buf)


def write_png(path: PathLike, image: Any) -> None:
    """Write a ``(height, width, 4)`` ``uint8`` array as a PNG (the encoder ``plumb render``
    uses, so equal images give equal files)."""
    arr = _as_rgba(image, "image")
    _plumb.write_png(os.fspath(path), arr.tobytes(), (arr.shape[1], arr.shape[0]))
