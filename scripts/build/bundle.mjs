// Bundles the programs (server, CLI, MCP stdio) into tree-shaken CommonJS files in dist/, each
// started by a launcher of a few lines that runs it with V8's code cache (src/boot/codeCache.ts).
import * as esbuild from "esbuild"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { bundleOptions, launcherSource, SERVER_V8_FLAGS } from "./bundleOptions.mjs"
import { rankTablesAsJson, VENDORED, vendoredFile } from "./outsideBundle.mjs"

const root = NodePath.resolve(import.meta.dirname, "../..")

/** Written beside the bundles: which sources each output holds and what it imports. */
export const METAFILE = "dist/bundle-meta.json"

/**
 * Each program's bundle (`dist/<name>.cjs`, all in dist/ so that what they find beside them is in
 * one place for all) and its launcher, the file users run.
 */
const PROGRAMS = [
  { name: "main", source: "src/main.ts", launcher: "main.js", runOptions: { v8FlagsAfterStart: SERVER_V8_FLAGS } },
  { name: "mcp", source: "src/mcp/main.ts", launcher: "mcp/main.js" },
  // The command line's entry (dist/cli/main.js) answers `--version` alone, then imports this launcher.
  { name: "cli", source: "src/cli/run.ts", launcher: "cli/run.js" }
]

/** ES modules of their own: the loader, the command line's entry, and the local embedder's thread script. */
const MODULES = {
  "boot/codeCache": "src/boot/codeCache.ts",
  "cli/main": "src/cli/main.ts",
  // Started by path (src/llm/local/workerPool.ts finds it here).
  "llm/local/embedWorker": "src/llm/local/embedWorker.ts"
}

NodeFs.rmSync(NodePath.join(root, "dist"), { recursive: true, force: true })
const options = bundleOptions(root)
const programs = await esbuild.build({
  ...options,
  entryPoints: Object.fromEntries(PROGRAMS.map((program) => [program.name, program.source])),
  outdir: "dist",
  metafile: true
})
const packageRequire = createRequire(NodePath.join(root, "package.json"))
// Required by Node's own loader, not run by src/boot/codeCache.ts: nothing defines `__bundleUrl` there.
const vendored = await esbuild.build({
  ...options,
  define: {},
  plugins: [rankTablesAsJson(NodePath.join(root, "dist", "vendor"))],
  entryPoints: Object.fromEntries(VENDORED.map((name) => [vendoredFile(name).replace(/\.cjs$/, ""), packageRequire.resolve(name)])),
  outdir: "dist",
  metafile: true
})
const modules = await esbuild.build({
  ...options,
  format: "esm",
  outExtension: {},
  define: {},
  supported: {},
  // The CommonJS packages inside the embedder's bundle call require() for node's built-ins.
  banner: { js: "import { createRequire as __bundleCreateRequire } from \"node:module\"; const require = __bundleCreateRequire(import.meta.url);" },
  external: [...options.external, "./run.js"],
  entryPoints: MODULES,
  outdir: "dist",
  metafile: true
})
for (const program of PROGRAMS) {
  const launcher = NodePath.join(root, "dist", program.launcher)
  const relative = (file) => {
    const path = NodePath.relative(NodePath.dirname(launcher), NodePath.join(root, "dist", file))
    return path.startsWith(".") ? path : `./${path}`
  }
  NodeFs.mkdirSync(NodePath.dirname(launcher), { recursive: true })
  NodeFs.writeFileSync(launcher, launcherSource(relative("boot/codeCache.js"), relative(`${program.name}.cjs`), program.runOptions))
}
// V8 keeps a source holding any character past U+00FF at two bytes per character: one such
// character in a program would double the memory its ~2 MB of source takes and slow its decoding
// at every start. esbuild writes ASCII, escaping every other character except inside a regular
// expression without the u flag: a program that is not ASCII holds one of those.
for (const program of PROGRAMS) {
  const file = NodePath.join("dist", `${program.name}.cjs`)
  const lines = NodeFs.readFileSync(NodePath.join(root, file), "utf8").split("\n")
  const line = lines.findIndex((text) => /[^\x00-\x7f]/.test(text))
  if (line !== -1) {
    const at = lines[line].search(/[^\x00-\x7f]/)
    throw new Error(`${file}:${line + 1} holds a character outside ASCII (${JSON.stringify(lines[line].slice(Math.max(0, at - 40), at + 10))}): write it as a \\u escape in its source`)
  }
}
const metafiles = [programs, vendored, modules].map((result) => result.metafile)
const metafile = {
  inputs: Object.assign({}, ...metafiles.map((meta) => meta.inputs)),
  outputs: Object.assign({}, ...metafiles.map((meta) => meta.outputs))
}
NodeFs.writeFileSync(NodePath.join(root, METAFILE), JSON.stringify(metafile))
