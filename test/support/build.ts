import { spawn } from "node:child_process"
import * as NodePath from "node:path"
import { staleReason } from "../../scripts/build/stale.mjs"

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

/**
 * Vitest global setup: the suites start what users run (the bundles under dist/, serving
 * console/dist), so the build is made first when it is missing or older than its sources, once
 * for the whole run.
 */
export default async function setup() {
  const reason = staleReason(ROOT)
  if (reason === null) return
  process.stderr.write(`building: ${reason}\n`)
  const code = await new Promise<number | null>((resolve, reject) => {
    const build = spawn(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] })
    build.once("error", reject)
    build.once("exit", resolve)
  })
  if (code !== 0) throw new Error(`npm run build exited with ${code}`)
}
