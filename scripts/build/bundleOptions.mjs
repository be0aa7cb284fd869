// The esbuild settings every bundle of the service is built with (scripts/build/bundle.mjs), shared
// so that the benchmarks' floor servers (scripts/bench/floor/) are bundled exactly alike.
//
// A program is one tree-shaken CommonJS file, run by src/boot/codeCache.ts with V8's code cache
// (Node 20 keeps none for ES modules). What a program reaches only through import() stays inside
// it, wrapped by esbuild so that it is evaluated on first use, not at start.
import { barrelImports } from "./barrelImports.mjs"
import { outsideBundle } from "./outsideBundle.mjs"

/** Native modules (and what they load beside them) stay outside: they are installed, not bundled. */
const EXTERNAL = ["better-sqlite3", "sqlite-vec", "pg-native", "onnxruntime-node"]

/** esbuild options for tree-shaken CommonJS bundles of programs under `root`. */
export const bundleOptions = (root) => ({
  absWorkingDir: root,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // jsonc-parser's `main` is a UMD file esbuild cannot follow; its ESM build is under `module`.
  mainFields: ["module", "main"],
  external: EXTERNAL,
  // src/boot/codeCache.ts passes the bundle's URL as `__bundleUrl`.
  define: { "import.meta.url": "__bundleUrl", "import.meta.dirname": "__dirname" },
  outExtension: { ".js": ".cjs" },
  // import() of a package left outside becomes require(): V8 loses a script's dynamic-import
  // callback when it is compiled from a code cache (Node 20).
  supported: { "dynamic-import": false },
  minifySyntax: true,
  minifyWhitespace: true,
  // Off: keeping names wraps every function made at run time (each closure of every request) in a
  // defineProperty call, ~9% of the service's CPU per request; nothing reads those names.
  keepNames: false,
  legalComments: "none",
  plugins: [barrelImports(root), outsideBundle],
  logLevel: "warning"
})

/** The few lines that run a bundle, with its run options: `node <launcher>` is how each program starts. */
export const launcherSource = (bootModule, bundleFile, runOptions = {}) =>
  `import { runBundle } from ${JSON.stringify(bootModule)}\nrunBundle(new URL(${JSON.stringify(bundleFile)}, import.meta.url), ${JSON.stringify(runOptions)})\n`

/**
 * The server's V8 flags, set once it has started. Left to itself, V8 lets the old generation grow
 * to up to four times what its last full collection kept when collecting is fast beside
 * allocating, a busy server's case: under `bench:load` ~65 MiB of live objects held ~310 MiB of
 * heap. Twice keeps the process ~140 MiB smaller for a few percent more CPU; set from the start,
 * it would also cost the start ~15 ms of collections (docs/performance.md).
 */
export const SERVER_V8_FLAGS = ["--heap-growing-percent=100"]
