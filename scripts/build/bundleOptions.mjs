// The esbuild settings every bundle of the service is built with (scripts/build/bundle.mjs), shared
// so that the benchmarks' floor servers (scripts/bench/floor/) are bundled exactly alike.
import { barrelImports } from "./barrelImports.mjs"

/** Native modules (and what they load beside them) stay outside: they are installed, not bundled. */
export const EXTERNAL = ["better-sqlite3", "sqlite-vec", "pg-native", "onnxruntime-node"]

// The CommonJS packages inside the bundle call require() for node's built-ins.
const REQUIRE_BANNER = "import { createRequire as __bundleCreateRequire } from \"node:module\"; const require = __bundleCreateRequire(import.meta.url);"

/** esbuild options for tree-shaken, code-split ESM bundles of sources under `root`. */
export const bundleOptions = (root) => ({
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // jsonc-parser's `main` is a UMD file esbuild cannot follow; its ESM build is under `module`.
  mainFields: ["module", "main"],
  external: EXTERNAL,
  chunkNames: "chunks/[name]-[hash]",
  banner: { js: REQUIRE_BANNER },
  minifySyntax: true,
  minifyWhitespace: true,
  // Off: keeping names wraps every function made at run time (each closure of every request) in a
  // defineProperty call, ~9% of the service's CPU per request; nothing reads those names.
  keepNames: false,
  legalComments: "none",
  plugins: [barrelImports(root)],
  logLevel: "warning"
})
