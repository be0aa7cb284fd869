import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { build } from "vite"

const CONSOLE_ROOT = NodePath.resolve(import.meta.dirname, "../../console")
const BUILT_INDEX = NodePath.join(CONSOLE_ROOT, "dist", "index.html")
const SOURCES = ["index.html", "vite.config.ts", "src"].map((entry) => NodePath.join(CONSOLE_ROOT, entry))

const newestChange = (path: string): number => {
  const stat = NodeFs.statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...NodeFs.readdirSync(path).map((entry) => newestChange(NodePath.join(path, entry))))
}

/**
 * Vitest global setup: the server tests serve console/dist, so it is built first when it is
 * missing or older than the console's sources (a fresh clone has none; `npm run build` makes it).
 */
export default async function setup() {
  const upToDate = NodeFs.existsSync(BUILT_INDEX) && NodeFs.statSync(BUILT_INDEX).mtimeMs >= Math.max(...SOURCES.map(newestChange))
  if (upToDate) return
  await build({ root: CONSOLE_ROOT, configFile: NodePath.join(CONSOLE_ROOT, "vite.config.ts"), logLevel: "warn" })
}
