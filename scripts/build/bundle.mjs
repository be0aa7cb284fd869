// Bundles the three entry points (server, CLI, MCP stdio) into tree-shaken ESM files under dist/.
// Code reached only through a dynamic import() lands in its own chunk, loaded on first use.
//
// With code splitting, esbuild evaluates a shared chunk before the modules of the file importing
// it, whatever their order in the sources: a cycle whose modules end up on both sides can meet a
// binding not yet set (at start: "Not a valid effect: undefined"). Every suite that starts a
// process starts these bundles, so such a break fails the tests; building once with
// `splitting: false` tells whether the order is the cause.
import * as esbuild from "esbuild"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { barrelImports } from "./barrelImports.mjs"

const root = NodePath.resolve(import.meta.dirname, "../..")

/** Native modules (and what they load beside them) stay outside: they are installed, not bundled. */
export const EXTERNAL = ["better-sqlite3", "sqlite-vec", "pg-native", "onnxruntime-node"]

/** Written beside the bundles: which sources each output holds and what it imports. */
export const METAFILE = "dist/bundle-meta.json"

const ENTRY_POINTS = {
  main: "src/main.ts",
  "cli/main": "src/cli/main.ts",
  "mcp/main": "src/mcp/main.ts",
  // The local embedder's thread script, started by path (src/llm/local/workerPool.ts finds it here).
  "llm/local/embedWorker": "src/llm/local/embedWorker.ts"
}

// The CommonJS packages inside the bundle call require() for node's built-ins.
const REQUIRE_BANNER = "import { createRequire as __bundleCreateRequire } from \"node:module\"; const require = __bundleCreateRequire(import.meta.url);"

NodeFs.rmSync(NodePath.join(root, "dist"), { recursive: true, force: true })
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: ENTRY_POINTS,
  outdir: "dist",
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
  metafile: true,
  logLevel: "warning"
})
NodeFs.writeFileSync(NodePath.join(root, METAFILE), JSON.stringify(result.metafile))
