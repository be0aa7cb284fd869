// Whether the build (the bundles and the client under dist/, console/dist/) is older than what it
// is built from, the build's own scripts included. Plain JavaScript, so that `npm start` asks it
// without loading a TypeScript runner.
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** What the build is made from, relative to the package's root. */
export const BUILD_INPUTS = ["src", "console/src", "console/index.html", "console/vite.config.ts", "tsconfig.json", "tsconfig.build.json", "package-lock.json", "scripts/build"]

/** What the build leaves, relative to the package's root: each must be there and newer than every input. */
export const BUILD_OUTPUTS = ["dist/main.js", "dist/main.cjs", "dist/cli/main.js", "dist/cli/run.js", "dist/cli.cjs", "dist/mcp/main.js", "dist/mcp.cjs", "dist/vendor/gpt-tokenizer.cjs", "dist/vendor/o200k_base.json", "dist/boot/codeCache.js", "dist/client/index.js", "dist/adapters/ai-sdk/index.js", "dist/adapters/langchain/index.js", "dist/adapters/openai-agents/index.js", "console/dist/index.html"]

/** The newest file's time under a path (a folder's own time aside: an editor touches it on its own). */
const newest = (path) => {
  if (!NodeFs.existsSync(path)) return 0
  const stat = NodeFs.statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return NodeFs.readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(NodePath.join(path, entry))), 0)
}

/** Why the build must be made again, or null when it is current. */
export const staleReason = (root) => {
  const missing = BUILD_OUTPUTS.find((output) => !NodeFs.existsSync(NodePath.join(root, output)))
  if (missing !== undefined) return `${missing} is missing`
  const built = Math.min(...BUILD_OUTPUTS.map((output) => NodeFs.statSync(NodePath.join(root, output)).mtimeMs))
  const changed = BUILD_INPUTS.find((input) => newest(NodePath.join(root, input)) > built)
  return changed === undefined ? null : `${changed} changed since the last build`
}
