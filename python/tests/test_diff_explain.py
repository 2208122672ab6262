"""plumb.diff, plumb.explain, plumb.conform: the command line's numbers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import plumb


def test_diff_matches_the_cli(cli, repo, tmp_path):
    a = plumb.read_png(repo / "refimages/raster/near_clip.png")
    b = a.copy()
    b[:16, :16] = (255, 0, 255, 255)
    plumb.write_png(tmp_path / "b.png", b)
    r = plumb.diff(a, b, threshold=2, heat=True)
    assert r.pixels_over == 256 and r.max_delta > 0 and r.heat.shape == a.shape
    out = cli("diff", str(repo / "refimages/raster/near_clip.png"), str(tmp_path / "b.png"), "--threshold", "2")
    text = out.stdout
    assert re.search(rf"pixels over T=2 +{r.pixels_over} ", text), text
    assert f"max channel delta: {r.max_delta}\n" in text, text
    assert f"PSNR (RGB):        {r.psnr:.2f} dB" in text, text
    assert f"perceptual mean:   {r.flip_mean:.6f} " in text and f"max {r.flip_max:.4f})" in text, text
    same = plumb.diff(a, a)
    assert same.pixels_over == 0 and same.psnr == float("inf") and same.flip_mean == 0.0
    with pytest.raises(plumb.BadInputError, match="dtype uint8"):
        plumb.diff(a.astype(np.float32), a)
    with pytest.raises(plumb.BadInputError, match="image sizes differ"):
        plumb.diff(a, a[:10])


def test_explain_matches_the_cli_json(cli, repo):
    trace = repo / "refimages/raster/depth_overlap.json"
    h = plumb.explain(trace, 128, 128)
    r = cli("explain", str(trace), "128", "128", "--json")
    import json
    assert h == json.loads(r.stdout)
    assert [f["discarded_by"] for f in h["fragments"]] == [None, "depth", None]
    with pytest.raises(plumb.BadInputError, match=re.escape("pixel (999, 0) is outside the 256x256 image")):
        plumb.explain(trace, 999, 0)


def test_conform_runs_plumb_over_the_corpus(repo, tmp_path):
    results = plumb.conform(repo / "refimages", tmp_path / "report", filter="raster/")
    cases = results["cases"]
    assert cases and all(c["id"].startswith("raster/") for c in cases)
    assert all(c["status"] == "pass" for c in cases), [c for c in cases if c["status"] != "pass"]
    assert (tmp_path / "report" / "index.html").is_file()
