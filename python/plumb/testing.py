"""Golden-image assertions for tests: :func:`assert_image_matches`.

With the pytest plugin (installed with the package, ``pytest11`` entry point ``plumb``),
``pytest --plumb-bless`` writes the goldens instead of comparing, and the ``plumb_image``
fixture resolves golden names against a ``goldens/`` folder beside the test file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from . import diff, read_png, write_png

#: Set by the pytest plugin from ``--plumb-bless``; ``bless=None`` reads it.
BLESS: bool = False


def assert_image_matches(
    actual: Any,
    golden: Union[str, "os.PathLike[str]"],
    *,
    threshold: int = 0,
    max_pixels: int = 0,
    max_flip_mean: float = 0.0,
    bless: Optional[bool] = None,
    out_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> None:
    """Assert that ``actual`` (a ``(height, width, 4)`` ``uint8`` array) matches the PNG
    ``golden``: at most ``max_pixels`` pixels whose largest channel difference (RGBA) is
    over ``threshold``, and a FLIP mean of at most ``max_flip_mean``. The default is exact
    equality.

    On failure it writes ``<golden>.actual.png`` and ``<golden>.diff.png`` (the heat map)
    beside the golden (or in ``out_dir``) and raises ``AssertionError`` with the numbers
    and both paths. With ``bless`` (default: ``pytest --plumb-bless``) it writes ``actual``
    as the golden instead.
    """
    golden = Path(golden)
    arr = np.asarray(actual)
    if bless is None:
        bless = BLESS
    if bless:
        golden.parent.mkdir(parents=True, exist_ok=True)
        write_png(golden, arr)
        return
    where = Path(out_dir) if out_dir is not None else golden.parent
    stem = golden.name[:-4] if golden.name.lower().endswith(".png") else golden.name
    actual_path = where / f"{stem}.actual.png"
    diff_path = where / f"{stem}.diff.png"
    if not golden.exists():
        where.mkdir(parents=True, exist_ok=True)
        write_png(actual_path, arr)
        raise AssertionError(
            f"golden {golden} does not exist: the image is in {actual_path}; "
            "run pytest with --plumb-bless to make it the golden"
        )
    expected = read_png(golden)
    if expected.shape != arr.shape:
        where.mkdir(parents=True, exist_ok=True)
        write_png(actual_path, arr)
        raise AssertionError(
            f"{golden}: the image is {arr.shape[1]}x{arr.shape[0]}, the golden "
            f"{expected.shape[1]}x{expected.shape[0]} (actual: {actual_path})"
        )
    result = diff(expected, arr, threshold=threshold, heat=True)
    if result.pixels_over <= max_pixels and result.flip_mean <= max_flip_mean:
        for stale in (actual_path, diff_path):
            if stale.exists():
                stale.unlink()
        return
    where.mkdir(parents=True, exist_ok=True)
    write_png(actual_path, arr)
    write_png(diff_path, result.heat)
    raise AssertionError(
        f"{golden}: {result.pixels_over} pixels over threshold {threshold} (allowed "
        f"{max_pixels}), max delta {result.max_delta}, FLIP mean {result.flip_mean:.5f} "
        f"(allowed {max_flip_mean}); actual: {actual_path}, heat map: {diff_path}"
    )
