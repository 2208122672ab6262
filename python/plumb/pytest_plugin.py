"""The pytest plugin of ``plumb`` (entry point ``pytest11``: loaded by pytest when the
package is installed).

- ``--plumb-bless``: golden-image assertions write their goldens instead of comparing.
- ``plumb_image``: a fixture whose ``check(array, name, **tolerance)`` compares with
  ``goldens/<name>`` beside the test file (:func:`plumb.testing.assert_image_matches`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from . import testing


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("plumb")
    group.addoption(
        "--plumb-bless",
        action="store_true",
        default=False,
        help="write golden images (plumb.testing.assert_image_matches) instead of comparing",
    )


def pytest_configure(config: Any) -> None:
    testing.BLESS = bool(config.getoption("--plumb-bless", default=False))


class ImageChecker:
    """Compares arrays with goldens in ``goldens/`` beside the test file."""

    def __init__(self, folder: Path):
        self.folder = folder

    def check(self, actual: Any, name: str, **tolerance: Any) -> None:
        """:func:`plumb.testing.assert_image_matches` against ``goldens/<name>``."""
        testing.assert_image_matches(actual, self.folder / name, **tolerance)


@pytest.fixture
def plumb_image(request: Any) -> ImageChecker:
    """Golden-image checks for this test: ``plumb_image.check(array, "name.png")``."""
    return ImageChecker(Path(str(request.node.fspath)).parent / "goldens")
