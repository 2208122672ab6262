"""Shared fixtures of the Python package's tests: the repository, the `plumb` command line
(whose bytes the package must reproduce) and a small animated glTF written on the fly."""

from __future__ import annotations

import base64
import json
import os
import struct
import subprocess
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]


def _cli() -> "str | None":
    """The `plumb` binary: $PLUMB_CLI (CI sets it), else one built in the repository."""
    env = os.environ.get("PLUMB_CLI")
    if env:
        return env
    for profile in ("ci", "release", "debug"):
        p = REPO / "target" / profile / "plumb"
        if p.is_file():
            return str(p)
    return None


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli():
    """Runs `plumb ARGS...` and returns the completed process (checked)."""
    exe = _cli()
    if exe is None:
        if os.environ.get("PLUMB_REQUIRE_CLI") == "1":
            pytest.fail("PLUMB_REQUIRE_CLI=1 but no plumb binary: set PLUMB_CLI")
        pytest.skip("no plumb binary (set PLUMB_CLI or build one in target/)")

    def run(*args: str, cwd: "Path | None" = None) -> subprocess.CompletedProcess:
        return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, check=False)

    return run


@pytest.fixture(scope="session")
def orbit():
    """``orbit(n)``: ``n`` OpenGL camera poses (camera-to-world) on a circle of radius 6
    around the origin, at height 1, each looking at the origin."""
    import numpy as np

    def poses(n: int):
        out = []
        for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
            eye = np.array([6 * np.sin(a), 1.0, 6 * np.cos(a)])
            back = eye / np.linalg.norm(eye)
            right = np.cross([0.0, 1.0, 0.0], back)
            right /= np.linalg.norm(right)
            pose = np.eye(4)
            pose[:3, 0], pose[:3, 1], pose[:3, 2], pose[:3, 3] = right, np.cross(back, right), back, eye
            out.append(pose)
        return np.array(out)

    return poses


def write_animated_gltf(path: Path) -> Path:
    """A unit quad that slides from x = −1 to x = 1 over two seconds (one animation,
    `slide`), with embedded data: no asset needed."""
    positions = [(-0.5, -0.5, 0.0), (0.5, -0.5, 0.0), (0.5, 0.5, 0.0), (-0.5, 0.5, 0.0)]
    buf = b"".join(struct.pack("<3f", *p) for p in positions)  # 48 bytes
    buf += struct.pack("<6H", 0, 1, 2, 0, 2, 3) + b"\0\0"  # 12 + 2 padding
    times_at = len(buf)
    buf += struct.pack("<2f", 0.0, 2.0)
    moves_at = len(buf)
    buf += struct.pack("<6f", -1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": "quad"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.4, 0.1, 1.0]}}],
        "animations": [
            {
                "name": "slide",
                "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}],
                "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            }
        ],
        "buffers": [
            {"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.b64encode(buf).decode()}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 12},
            {"buffer": 0, "byteOffset": times_at, "byteLength": 8},
            {"buffer": 0, "byteOffset": moves_at, "byteLength": 24},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [2.0]},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"},
        ],
    }
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def animated_gltf(tmp_path: Path) -> Path:
    return write_animated_gltf(tmp_path / "slide.gltf")
