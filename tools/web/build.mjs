// Bundle three.js + OrbitControls into assets/web/three.bundle.js, and jsPsych's core into
// assets/web/jspsych.bundle.js + .css (committed, so people who only use pisa3d never need node).
// Run from tools/web: `npm ci && npm run build`.
import { build, transform } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
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

// jsPsych: its core only (the study's trials are its own plugins), and its style sheet without the
// Open Sans faces it embeds (450 kB of fonts; the study pages use the system's font like every page).
const jspsychDir = resolve(here, "node_modules/jspsych");
const jspsychVersion = JSON.parse(readFileSync(resolve(jspsychDir, "package.json"), "utf8")).version;
const jspsychBanner = `/* jsPsych ${jspsychVersion} (MIT License, jsPsych authors), bundled by tools/web/build.mjs */`;
await build({
  entryPoints: [resolve(here, "src/jspsych-entry.js")],
  outfile: resolve(here, "../../assets/web/jspsych.bundle.js"),
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  legalComments: "none",
  banner: { js: jspsychBanner },
  logLevel: "info",
});
const css = readFileSync(resolve(jspsychDir, "css/jspsych.css"), "utf8").replace(/@font-face\s*\{[^}]*\}/g, "");
const minified = await transform(css, { loader: "css", minify: true, legalComments: "none" });
writeFileSync(resolve(here, "../../assets/web/jspsych.bundle.css"), `${jspsychBanner}\n${minified.code}`);
