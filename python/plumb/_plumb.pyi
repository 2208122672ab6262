"""Type stubs of plumb's native module (`plumb._plumb`). Use the `plumb` package's
functions, which wrap these and return NumPy arrays."""

from typing import List, Optional, Sequence, Tuple

DEFAULT_MAX_PIXELS: int
DEFAULT_MAX_VIEW_PIXELS: int
MAX_SIDE: int

class PlumbError(Exception): ...
class BadInputError(PlumbError): ...
class LimitError(PlumbError): ...
class PlumbIOError(PlumbError): ...

_Vec3 = Tuple[float, float, float]
# (width, height, rgba, depth, ids, normals)
_Rendered = Tuple[
    int, int, bytearray, Optional[bytearray], Optional[bytearray], Optional[bytearray]
]

def render(
    path: str,
    size: Optional[Tuple[int, int]] = None,
    *,
    camera: Optional[str] = None,
    eye: Optional[_Vec3] = None,
    target: Optional[_Vec3] = None,
    up: Optional[_Vec3] = None,
    fov: Optional[float] = None,
    near: Optional[float] = None,
    far: Optional[float] = None,
    pose: Optional[List[float]] = None,
    pose_convention: str = "opengl",
    intrinsics: Optional[List[float]] = None,
    time: float = 0.0,
    clip: Optional[str] = None,
    scene: Optional[str] = None,
    variant: Optional[str] = None,
    unlit: bool = False,
    background: Optional[Sequence[float]] = None,
    threads: Optional[int] = None,
    depth: bool = False,
    metric_depth: bool = False,
    ids: bool = False,
    normals: Optional[str] = None,
    loop_mode: str = "clamp",
    max_pixels: int = ...,
    shading: str = "pbr",
    exposure: float = 1.0,
    tone_map: str = "none",
    output_encoding: str = "srgb",
    environment: str = "auto",
    environment_intensity: float = 1.0,
) -> _Rendered: ...

class Scene:
    @staticmethod
    def new() -> "Scene": ...
    def add_mesh(
        self,
        positions: bytes,
        triangles: Optional[bytes] = None,
        normals: Optional[bytes] = None,
        colors: Optional[bytes] = None,
        uvs: Optional[bytes] = None,
        *,
        color: Optional[List[float]] = None,
        pose: Optional[List[float]] = None,
        name: Optional[str] = None,
        object_id: Optional[int] = None,
    ) -> str: ...
    def object_id(self, name: str) -> int: ...
    def add_file(
        self,
        path: str,
        *,
        pose: Optional[List[float]] = None,
        name: Optional[str] = None,
        object_id: Optional[int] = None,
    ) -> str: ...
    def save(self, path: str) -> None: ...
    def add_light(
        self,
        kind: str,
        *,
        color: List[float] = ...,
        intensity: float = 1.0,
        position: Optional[List[float]] = None,
        direction: Optional[List[float]] = None,
        name: Optional[str] = None,
    ) -> str: ...
    def set_pose(self, name: str, pose: List[float]) -> None: ...
    def remove(self, name: str) -> None: ...
    def set_background(self, rgba: List[float]) -> None: ...
    def to_json(self) -> str: ...
    def render_views(
        self,
        size: Tuple[int, int],
        poses: List[float],
        *,
        pose_convention: str = "opengl",
        intrinsics: Optional[List[float]] = None,
        fov: Optional[float] = None,
        near: Optional[float] = None,
        far: Optional[float] = None,
        time: float = 0.0,
        threads: Optional[int] = None,
        depth: bool = False,
        metric_depth: bool = False,
        ids: bool = False,
        normals: Optional[str] = None,
        max_pixels: int = ...,
        max_total_pixels: int = ...,
    ) -> Tuple[int, _Rendered]: ...
    @staticmethod
    def load(
        path: str,
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
    ) -> "Scene": ...
    def render(
        self,
        size: Tuple[int, int],
        *,
        camera: Optional[str] = None,
        eye: Optional[_Vec3] = None,
        target: Optional[_Vec3] = None,
        up: Optional[_Vec3] = None,
        fov: Optional[float] = None,
        near: Optional[float] = None,
        far: Optional[float] = None,
        pose: Optional[List[float]] = None,
        pose_convention: str = "opengl",
        intrinsics: Optional[List[float]] = None,
        time: float = 0.0,
        threads: Optional[int] = None,
        depth: bool = False,
        metric_depth: bool = False,
        ids: bool = False,
        normals: Optional[str] = None,
        loop_mode: str = "clamp",
        max_pixels: int = ...,
        frame: Optional[int] = None,
        fps: float = 24.0,
    ) -> _Rendered: ...
    @property
    def path(self) -> str: ...
    @property
    def clips(self) -> List[Tuple[str, float]]: ...

def diff(
    a: bytes,
    a_size: Tuple[int, int],
    b: bytes,
    b_size: Tuple[int, int],
    *,
    threshold: int = 0,
    pixels_per_degree: float = 67.0,
    heat: bool = False,
) -> Tuple[int, int, float, float, float, Optional[bytearray]]: ...
def read_png(path: str) -> Tuple[int, int, bytearray]: ...
def write_png(path: str, bytes: bytes, size: Tuple[int, int]) -> None: ...
def explain(path: str, x: int, y: int, size: Optional[Tuple[int, int]] = None, **options: object) -> str: ...
def conform(refimages: str, report: str, *, filter: Optional[str] = None, threads: Optional[int] = None) -> str: ...
