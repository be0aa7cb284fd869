import { spawn } from "node:child_process"

// Waits for the process to be gone, runs the command (if any), then removes the directory.
const SCRIPT = `
parent=$1
directory=$2
shift 2
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
if [ "$#" -gt 0 ]; then "$@" >/dev/null 2>&1; fi
rm -rf "$directory"
`

/**
 * Removes a directory once this process is gone, however it ends (an interrupted test run, a
 * killed benchmark), after running `command` if one is given: for what tests and benchmarks leave
 * in temporary directories, and for servers they start that would outlive them. The watcher runs
 * in a session of its own, so that an interrupt sent to the caller's terminal does not end it
 * before it cleans up; `kill` it once the caller has cleaned up itself.
 */
export const cleanUpAfterExit = (directory: string, command: ReadonlyArray<string> = []) => {
  const watcher = spawn("sh", ["-c", SCRIPT, "clean-up-after-exit", String(process.pid), directory, ...command], { detached: true, stdio: "ignore" })
  watcher.unref()
  return watcher
}
