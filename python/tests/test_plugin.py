"""The pytest plugin (loaded by its pytest11 entry point, as installed): a failing image
check writes the actual and heat-map PNGs, and --plumb-bless writes the golden, as
documented."""

from __future__ import annotations

import plumb

TEST = '''
import numpy as np
import plumb
from plumb.testing import assert_image_matches

def image(value):
    a = np.zeros((8, 8, 4), np.uint8)
    a[..., 3] = 255
    a[2:4, 2:4, 0] = value
    return a

def test_helper():
    assert_image_matches(image(VALUE), "goldens/helper.png")

def test_fixture(plumb_image):
    plumb_image.check(image(VALUE), "fixture.png")

def test_tolerance(plumb_image):
    plumb_image.check(image(VALUE), "tolerant.png", threshold=10, max_flip_mean=0.05)
'''


def test_plugin_blesses_passes_and_fails(pytester):
    pytester.makepyfile(test_images=TEST.replace("VALUE", "200"))
    # No goldens yet: every check fails and says how to bless.
    r = pytester.runpytest()
    r.assert_outcomes(failed=3)
    r.stdout.fnmatch_lines(["*does not exist*--plumb-bless*"])
    # Bless writes them.
    r = pytester.runpytest("--plumb-bless")
    r.assert_outcomes(passed=3)
    helper = pytester.path / "goldens" / "helper.png"
    assert helper.is_file() and (pytester.path / "goldens" / "fixture.png").is_file()
    assert plumb.read_png(helper)[2, 2, 0] == 200
    # Unchanged images pass.
    pytester.runpytest().assert_outcomes(passed=3)
    # A changed image fails, with the actual and heat-map PNGs beside the golden; within
    # the tolerance it passes.
    pytester.makepyfile(test_images=TEST.replace("VALUE", "205"))
    r = pytester.runpytest()
    r.assert_outcomes(failed=2, passed=1)
    r.stdout.fnmatch_lines(["*4 pixels over threshold 0*max delta 5*heat map*"])
    actual = pytester.path / "goldens" / "helper.actual.png"
    heat = pytester.path / "goldens" / "helper.diff.png"
    assert plumb.read_png(actual)[2, 2, 0] == 205
    assert plumb.read_png(heat).shape == (8, 8, 4)
    # The golden was not touched by the failure.
    assert plumb.read_png(helper)[2, 2, 0] == 200
