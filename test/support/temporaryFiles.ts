import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { cleanUpAfterExit } from "../../scripts/cleanUpAfterExit.js"

/**
 * Vitest global setup: every temporary file of the run (data roots, clusters, builds, the
 * browser's profile, and those of the processes the suites start) goes under one directory, given
 * to the workers and their children as TMPDIR, and removed once the run ends, or once its process
 * is gone if the run is cut short. First among the global setups, so that theirs go there too.
 */
export default function setup() {
  const previous = process.env.TMPDIR
  const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-tests-"))
  // The PostgreSQL clusters under it belong to the postgres user when the tests run as root.
  NodeFs.chmodSync(directory, 0o711)
  process.env.TMPDIR = directory
  const watcher = cleanUpAfterExit(directory)
  return () => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
    watcher.kill()
    NodeFs.rmSync(directory, { recursive: true, force: true })
  }
}
