import { type ChildProcess, spawn } from "node:child_process"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

export interface ServiceProcess {
  readonly child: ChildProcess
  readonly port: number
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

export interface FinishedProcess {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The environment a process the suites start begins from: how to find programs, a home, and the
 * run's temporary directory (its temporary files then go with the run's).
 */
export const baseEnv = () => ({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TMPDIR: NodeOs.tmpdir() })

/** The server users run: the launcher `npm start` runs. */
const SERVER_ENTRY = NodePath.join(ROOT, "dist/main.js")

const spawnService = (env: Record<string, string>, entry = SERVER_ENTRY) =>
  spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: { ...baseEnv(), SERVICE_HOST: "127.0.0.1", SERVICE_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })

/** Runs the service as users run it (the bundle `npm start` runs) until it prints its listening address (bounded for a machine under load). */
export const startProcess = (env: Record<string, string>, timeoutMs = 60_000, entry = SERVER_ENTRY): Promise<ServiceProcess> =>
  new Promise((resolve, reject) => {
    const child = spawnService({ SERVICE_PORT: "0", ...env }, entry)
    let stdout = ""
    let stderr = ""
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`service did not start in ${timeoutMs} ms\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const port = /Listening on http:\/\/[^:]+:(\d+)/.exec(stdout)?.[1]
      if (port !== undefined) {
        clearTimeout(timer)
        resolve({ child, port: Number(port), stdout: () => stdout, stderr: () => stderr, exited })
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`service exited with ${code} before listening\n${stdout}\n${stderr}`))
    })
  })

/** Runs the service as a real process expected to stop by itself (a refused start). */
export const runToExit = (env: Record<string, string>, timeoutMs = 60_000): Promise<FinishedProcess> =>
  new Promise((resolve, reject) => {
    const child = spawnService({ SERVICE_PORT: "0", ...env })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`service did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`))
    }, timeoutMs)
    // "close", not "exit": output still in the pipes when the process ends would be lost.
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** The JSON lines a process wrote to stderr. */
export const jsonLines = (text: string): Array<Record<string, unknown>> =>
  text.split("\n").filter((line) => line.trim().startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>)
