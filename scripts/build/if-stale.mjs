// `npm start`: builds only when the build is missing or older than its sources, then returns.
import { spawnSync } from "node:child_process"
import * as NodePath from "node:path"
import { staleReason } from "./stale.mjs"

const root = NodePath.resolve(import.meta.dirname, "../..")
const reason = staleReason(root)
if (reason !== null) {
  process.stderr.write(`building: ${reason}\n`)
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const built = spawnSync(npm, ["run", "build"], { cwd: root, stdio: "inherit" })
  process.exit(built.status ?? 1)
}
