import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"

export interface BlockRun {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * One bash process that runs a document's blocks one after another, as a reader's terminal would:
 * a variable set or exported by one block is there for the next.
 */
export interface DocShell {
  readonly run: (code: string, timeoutMs: number) => Promise<BlockRun>
  readonly close: () => void
}

export const startDocShell = (cwd: string, env: Record<string, string>): DocShell => {
  const child: ChildProcess = spawn("bash", ["--noprofile", "--norc"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const run = (code: string, timeoutMs: number) =>
    new Promise<BlockRun>((resolve, reject) => {
      // A random sentinel, printed on a line of its own with the block's status once it is done.
      const sentinel = `__doc_block_${randomBytes(8).toString("hex")}__`
      stdout = ""
      stderr = ""
      const poll = setInterval(() => {
        const match = new RegExp(`\\n?${sentinel} (\\d+)\\n$`).exec(stdout)
        if (match === null) return
        clearInterval(poll)
        clearTimeout(timer)
        resolve({ status: Number(match[1]), stdout: stdout.slice(0, match.index), stderr })
      }, 20)
      const timer = setTimeout(() => {
        clearInterval(poll)
        reject(new Error(`block did not finish in ${timeoutMs} ms\n${code}\nstdout: ${stdout}\nstderr: ${stderr}`))
      }, timeoutMs)
      child.stdin!.write(`${code}\nprintf '\\n%s %s\\n' ${sentinel} "$?"\n`)
    })
  return { run, close: () => child.kill("SIGKILL") }
}
