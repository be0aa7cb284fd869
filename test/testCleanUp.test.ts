import { expect, it } from "@effect/vitest"
import { type ChildProcessByStdio, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeReadline from "node:readline"
import type { Readable } from "node:stream"
import { baseEnv } from "./support/processes.js"

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

/** A Node process running this ES module code (TypeScript imports allowed), its stdout piped. */
const nodeProcess = (code: string) => spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] })

const firstLine = async (child: ChildProcessByStdio<null, Readable, null>) =>
  String((await NodeReadline.createInterface({ input: child.stdout })[Symbol.asyncIterator]().next()).value)

const imported = (path: string) => JSON.stringify(NodePath.resolve(path))

it("a throwaway cluster whose process is killed without stopping it is stopped and removed", async () => {
  // The process starts a cluster, says where it is, and waits to be killed.
  const child = nodeProcess(`
    const { startCluster } = await import(${imported("scripts/postgres/cluster.ts")})
    const cluster = await startCluster({ fsync: false })
    console.log(JSON.stringify({ log: cluster.log, postmaster: cluster.pid() }))
    setInterval(() => {}, 1000)
  `)
  let started: { readonly directory: string; readonly postmaster: number } | undefined
  try {
    const { log, postmaster } = JSON.parse(await firstLine(child)) as { readonly log: string; readonly postmaster: number }
    started = { directory: NodePath.dirname(log), postmaster }
    expect(alive(postmaster)).toBe(true)
    expect(NodeFs.existsSync(started.directory)).toBe(true)

    child.kill("SIGKILL")
    expect(await waitFor(() => !alive(postmaster) && !NodeFs.existsSync(started!.directory), 60)).toBe(true)
  } finally {
    child.kill("SIGKILL")
    // Left behind only when the clean-up failed: SIGQUIT is the postmaster's immediate shutdown.
    if (started !== undefined && alive(started.postmaster)) process.kill(started.postmaster, "SIGQUIT")
    if (started !== undefined) NodeFs.rmSync(started.directory, { recursive: true, force: true })
  }
}, 120_000)

it("a directory left to be cleaned up after its process is removed once that process is killed, and kept while it runs", async () => {
  const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "clean-up-"))
  NodeFs.writeFileSync(NodePath.join(directory, "left"), "x")
  const child = nodeProcess(`
    const { cleanUpAfterExit } = await import(${imported("scripts/cleanUpAfterExit.ts")})
    cleanUpAfterExit(${JSON.stringify(directory)})
    console.log("watching")
    setInterval(() => {}, 1000)
  `)
  try {
    expect(await firstLine(child)).toBe("watching")
    // The watcher polls every second: two of its rounds with the process alive.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(NodeFs.existsSync(directory)).toBe(true)

    child.kill("SIGKILL")
    expect(await waitFor(() => !NodeFs.existsSync(directory), 60)).toBe(true)
  } finally {
    child.kill("SIGKILL")
    NodeFs.rmSync(directory, { recursive: true, force: true })
  }
}, 120_000)

it("the run's temporary files go under one directory of its own, for the suites and the processes they start", async () => {
  const directory = NodeOs.tmpdir()
  expect(NodePath.basename(directory)).toMatch(/^memory-tests-/)
  const child = spawn(process.execPath, ["-e", "console.log(require('node:os').tmpdir())"], { env: baseEnv(), stdio: ["ignore", "pipe", "inherit"] })
  expect(await firstLine(child)).toBe(directory)
})
