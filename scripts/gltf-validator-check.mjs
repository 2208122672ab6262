// Cross-check of plumb's glTF rejections against the Khronos glTF-Validator (npm package
// `gltf-validator`; a check, not a runtime dependency of plumb).
//
//   npm install --prefix /tmp/gv gltf-validator
//   NODE_PATH=/tmp/gv/node_modules node scripts/gltf-validator-check.mjs [DIR]
//
// DIR (default scene/tests/gltf_spec) holds `valid/` and `invalid/` glTF files. Every file
// in `valid/` must have no validator error, every file in `invalid/` at least one. The test
// `scene/tests/it/gltf_spec.rs` asserts the same of plumb's importer, so the two agree on every
// file. Prints one line per file with the validator's error codes; exits 1 on a mismatch.
import { createRequire } from "node:module";
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";

const require = createRequire(import.meta.url);
const validator = require("gltf-validator");

const dir = process.argv[2] ?? "scene/tests/gltf_spec";
let failures = 0;
for (const kind of ["valid", "invalid"]) {
  const sub = join(dir, kind);
  for (const name of readdirSync(sub).filter((f) => f.endsWith(".gltf")).sort()) {
    const path = join(sub, name);
    const report = await validator.validateBytes(new Uint8Array(readFileSync(path)), {
      uri: name,
      externalResourceFunction: (uri) =>
        Promise.resolve(new Uint8Array(readFileSync(join(dirname(path), decodeURIComponent(uri))))),
    });
    const errors = report.issues.messages.filter((m) => m.severity === 0).map((m) => m.code);
    const ok = kind === "valid" ? errors.length === 0 : errors.length > 0;
    if (!ok) failures++;
    console.log(`${ok ? "ok  " : "FAIL"} ${kind}/${name}: ${errors.length ? [...new Set(errors)].join(", ") : "no errors"}`);
  }
}
if (failures) {
  console.log(`${failures} file(s) where the validator disagrees with the folder they are in`);
  process.exit(1);
}
