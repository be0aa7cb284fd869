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
import { bundleOptions } from "./bundleOptions.mjs"

const root = NodePath.resolve(import.meta.dirname, "../..")

/** Written beside the bundles: which sources each output holds and what it imports. */
export const METAFILE = "dist/bundle-meta.json"

const ENTRY_POINTS = {
  main: "src/main.ts",
  "cli/main": "src/cli/main.ts",
  "mcp/main": "src/mcp/main.ts",
  // The local embedder's thread script, started by path (src/llm/local/workerPool.ts finds it here).
  "llm/local/embedWorker": "src/llm/local/embedWorker.ts"
}

NodeFs.rmSync(NodePath.join(root, "dist"), { recursive: true, force: true })
const result = await esbuild.build({
  ...bundleOptions(root),
  entryPoints: ENTRY_POINTS,
  outdir: "dist",
  metafile: true
})
NodeFs.writeFileSync(NodePath.join(root, METAFILE), JSON.stringify(result.metafile))
