import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as NodePath from "node:path"
import { baseEnv } from "./processes.js"

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * `memory-service <args>` as a real process (the bundle the package's bin names) in a clean
 * environment (stderr a pipe, not a terminal). Asynchronous on purpose: a server in this process
 * must keep answering it.
 */
export const runCli = (
  args: ReadonlyArray<string>,
  options: {
    readonly env?: Record<string, string>
    readonly stdin?: string
    readonly timeoutMs?: number
    /** A command that runs the CLI as its last arguments (e.g. in another mount namespace). */
    readonly within?: ReadonlyArray<string>
  } = {}
) =>
  Effect.promise(() =>
    new Promise<CliRun>((resolve, reject) => {
      const [command = process.execPath, ...prefix] = [...(options.within ?? []), process.execPath]
      const child = spawn(command, [...prefix, "dist/cli/main.js", ...args], {
        cwd: ROOT,
        env: { ...baseEnv(), ...options.env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      const timer = setTimeout(() => {
        child.kill("SIGKILL")
        reject(new Error(`memory-service ${args.join(" ")} did not finish\n${stdout}\n${stderr}`))
      }, options.timeoutMs ?? 60_000)
      // "close", not "exit": output still in the pipes when the process ends would be lost.
      child.on("close", (code) => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr })
      })
      child.stdin.end(options.stdin ?? "")
    })
  )
