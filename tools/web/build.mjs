// Bundle three.js + OrbitControls into assets/web/three.bundle.js (committed, so people who
// only use pisa3d never need node). Run from tools/web: `npm ci && npm run build`.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = resolve(here, "../../assets/web/three.bundle.js");
const threeVersion = JSON.parse(readFileSync(resolve(here, "node_modules/three/package.json"), "utf8")).version;

await build({
  entryPoints: [resolve(here, "src/three-entry.js")],
  outfile,
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  legalComments: "none", // the MIT notice goes in the banner below instead
  banner: { js: `/* three.js r${threeVersion.split(".")[1]} (MIT License, three.js authors) + OrbitControls, bundled by tools/web/build.mjs */` },
  logLevel: "info",
});
