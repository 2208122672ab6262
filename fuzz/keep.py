#!/usr/bin/env python3
"""Keeps fuzz corpora after a long run: minimises each target's corpus and stages the part
that may be committed.

    fuzz/keep.py TARGET...        # after `cargo fuzz build -s none -O --codegen-units 4`

For each target:
1. libFuzzer's set-cover merge (`-set_cover_merge=1`) of `corpus/TARGET` into a fresh folder:
   the fewest inputs that keep every feature (scene_file after 10^7 executions: 8,415 inputs,
   34 MB on disk → 2,714 inputs, 2.3 MB). The folder replaces `corpus/TARGET`.
2. Inputs that share a 48-byte run with a shared third-party model (any file under 128 KiB in
   PLUMB_ASSETS or ../../shared/assets; seed.sh copies those under 64 KiB in) stay local:
   shared/assets/LICENSES.md says those files are never committed, and a mutated copy still
   carries them. Runs of fewer than 12 distinct byte values (indentation, zero padding, JSON
   boilerplate) do not count as shared.
3. `git add -f` the rest (five corpora are ignored because their seeds are those models;
   what grew from plumb's own files is kept all the same) and `git rm --cached` the tracked
   inputs the merge dropped.

Prints, per target, the inputs before and after and how many stayed local.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
WINDOW = 48
MIN_DISTINCT = 12


def asset_windows(assets):
    """Hashes of every 48-byte run (with enough distinct bytes) of the small shared files."""
    seen = set()
    for path in sorted(assets.rglob("*")):
        if not path.is_file() or path.stat().st_size >= 128 * 1024:
            continue
        data = path.read_bytes()
        for i in range(len(data) - WINDOW + 1):
            w = data[i : i + WINDOW]
            if len(set(w)) >= MIN_DISTINCT:
                seen.add(hash(w))
    return seen


def shares_a_run(data, windows):
    return any(hash(data[i : i + WINDOW]) in windows for i in range(len(data) - WINDOW + 1))


def binary(target):
    root = Path(os.environ.get("FUZZ_BIN", FUZZ / "target/x86_64-unknown-linux-gnu/release"))
    path = root / target
    if not path.is_file():
        sys.exit(f"error: no fuzz binary {path} (cargo fuzz build -s none -O --codegen-units 4)")
    return path


def keep(target, windows):
    corpus = FUZZ / "corpus" / target
    before = len(list(corpus.iterdir()))
    fresh = Path(tempfile.mkdtemp(prefix=f"keep-{target}-"))
    artifacts = FUZZ / "artifacts" / target
    artifacts.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            binary(target),
            "-set_cover_merge=1",
            str(fresh),
            str(corpus),
            "-rss_limit_mb=2048",
            "-timeout=60",
            "-max_len=65536",
            f"-artifact_prefix={artifacts}/",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    shutil.rmtree(corpus)
    shutil.move(str(fresh), corpus)
    own, local = [], 0
    for path in sorted(corpus.iterdir()):
        if windows and shares_a_run(path.read_bytes(), windows):
            local += 1
        else:
            own.append(path)
    rel = corpus.relative_to(FUZZ.parent)
    tracked = subprocess.run(
        ["git", "ls-files", "-z", str(rel)], cwd=FUZZ.parent, check=True, capture_output=True
    ).stdout.split(b"\0")
    keep_names = {p.name for p in own}
    dropped = [t.decode() for t in tracked if t and Path(t.decode()).name not in keep_names]
    if dropped:
        subprocess.run(["git", "rm", "-q", "--cached", "--", *dropped], cwd=FUZZ.parent, check=True)
    for i in range(0, len(own), 500):
        chunk = [str(p.relative_to(FUZZ.parent)) for p in own[i : i + 500]]
        subprocess.run(["git", "add", "-f", "--", *chunk], cwd=FUZZ.parent, check=True)
    print(f"{target}: {before} inputs → {len(own) + local} after the merge, "
          f"{len(own)} staged, {local} local (shared models)")


def main():
    targets = sys.argv[1:]
    if not targets:
        sys.exit(__doc__)
    assets = Path(os.environ.get("PLUMB_ASSETS", FUZZ.parent.parent / "shared" / "assets"))
    windows = asset_windows(assets) if assets.is_dir() else None
    if windows is None:
        sys.exit(f"error: no shared models at {assets}: cannot tell which inputs derive from them")
    for t in targets:
        keep(t, windows)


if __name__ == "__main__":
    main()
