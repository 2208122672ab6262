#!/usr/bin/env bash
# Runs the whole conformance corpus through the GL backend (plumb_gl.py: OpenGL fixed function
# on Mesa's OSMesa) and checks what a GL run must show (issue 55):
#   - no errors: every case draws, or is skipped with the feature GL lacks named;
#   - no failure whose largest difference is 2 levels or less (that is rounding GL allows);
#   - the failures listed, each with its class, against backends/gl/expected-failures.txt:
#     a case failing that is not listed there, or listed and now passing, fails the script.
#
# Usage: backends/gl/conform.sh PLUMB PYTHON REPORT_DIR [ASSETS_DIR]
#   PLUMB   the plumb binary; PYTHON a python with numpy and PyOpenGL (>= 3.1.10);
#   REPORT_DIR where the kit's report goes; ASSETS_DIR the shared models (optional).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plumb="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
python="$2"
report="$3"
assets=()
if [ $# -ge 4 ] && [ -d "$4" ]; then assets=(--assets "$4"); fi

# Mesa's llvmpipe on its 256-bit path whatever the CPU offers, so the failures listed in
# expected-failures.txt do not move with the machine's vector width.
export GALLIUM_DRIVER=llvmpipe LP_NATIVE_VECTOR_WIDTH=256

status=0
"$plumb" conform --report "$report" "${assets[@]}" --caps "$here/caps.json" \
    --exec "$python $here/plumb_gl.py --plumb $plumb {input} {output} {width} {height} {kind} {view}" \
    || status=$?
# Exit 1 (failures) is expected and judged below; anything else is the kit failing.
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "plumb conform exited $status" >&2
    exit "$status"
fi

"$python" - "$report/results.json" "$here/expected-failures.txt" <<'EOF'
import json, sys
results = json.load(open(sys.argv[1]))
expected = {}
for line in open(sys.argv[2]):
    line = line.split("#", 1)[0].strip()
    if line:
        case, cls = line.split(None, 1)
        expected[case] = cls.strip()
cases = results["cases"]
count = lambda s: sum(c["status"] == s for c in cases)
print(f"GL backend: {len(cases)} cases, {count('pass')} passed, {count('skip')} skipped, "
      f"{count('fail')} failed, {count('error')} errors")
bad = []
for c in cases:
    m = c.get("metrics") or {}
    if c["status"] == "error":
        bad.append(f"{c['id']}: error: {c['message']}")
    elif c["status"] == "skip" and not c["message"].startswith("unsupported: "):
        bad.append(f"{c['id']}: skipped without a feature: {c['message']}")
    elif c["status"] == "fail":
        cls = (m.get("class") or "none").replace("_", " ")
        print(f"  fail {c['id']}: {cls}, max delta {m.get('max_delta')}, {m.get('pixels_over')} pixels")
        if m.get("max_delta", 255) <= 2:
            bad.append(f"{c['id']}: fails with every pixel within 2 levels")
        if c["id"] not in expected:
            bad.append(f"{c['id']}: fails ({cls}) and is not in expected-failures.txt")
        elif expected[c["id"]] != cls:
            bad.append(f"{c['id']}: fails as {cls}, expected-failures.txt says {expected[c['id']]}")
    elif c["status"] == "pass" and c["id"] in expected:
        bad.append(f"{c['id']}: passes now; take it out of expected-failures.txt")
for c in cases:
    if c["status"] == "skip":
        print(f"  skip {c['id']}: {c['message']}")
for line in bad:
    print("GL run: " + line, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
