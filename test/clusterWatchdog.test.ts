import { expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as NodeReadline from "node:readline"

const CLUSTER_MODULE = NodePath.resolve("scripts/postgres/cluster.ts")

/** Whether a process of this id is running (a zombie counts as gone). */
const alive = (pid: number) => {
  try {
    return !NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z")
  } catch {
    return false
  }
}

const waitFor = async (condition: () => boolean, seconds: number) => {
  for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline && !condition();) await new Promise((resolve) => setTimeout(resolve, 200))
  return condition()
}

it("a throwaway cluster whose process is killed without stopping it is stopped and removed by its watchdog", async () => {
  // The process starts a cluster, says where it is, and waits to be killed.
  const script = `
    const { startCluster } = await import(${JSON.stringify(CLUSTER_MODULE)})
    const cluster = await startCluster({ fsync: false })
    console.log(JSON.stringify({ log: cluster.log, postmaster: cluster.pid() }))
    setInterval(() => {}, 1000)
  `
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] })
  let started: { readonly directory: string; readonly postmaster: number } | undefined
  try {
    const [line] = await NodeReadline.createInterface({ input: child.stdout })[Symbol.asyncIterator]().next().then((next) => [next.value as string])
    const { log, postmaster } = JSON.parse(line!) as { readonly log: string; readonly postmaster: number }
    const directory = NodePath.dirname(log)
    started = { directory, postmaster }
    expect(alive(postmaster)).toBe(true)
    expect(NodeFs.existsSync(directory)).toBe(true)

    child.kill("SIGKILL")
    expect(await waitFor(() => !alive(postmaster) && !NodeFs.existsSync(directory), 60)).toBe(true)
  } finally {
    child.kill("SIGKILL")
    // Left behind only when the watchdog failed: SIGQUIT is the postmaster's immediate shutdown.
    if (started !== undefined && alive(started.postmaster)) process.kill(started.postmaster, "SIGQUIT")
    if (started !== undefined) NodeFs.rmSync(started.directory, { recursive: true, force: true })
  }
}, 120_000)
