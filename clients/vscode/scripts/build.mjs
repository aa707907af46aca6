// Bundles the extension with esbuild into dist/extension.js (`--production` minifies, `--watch` rebuilds).
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const options = {
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: "warning",
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log("esbuild: watching src/");
} else {
  await esbuild.build(options);
  console.log(`esbuild: wrote dist/extension.js${production ? " (production)" : ""}`);
}
