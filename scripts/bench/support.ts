/** What the benchmarks share: the service as a real process (the compiled build) and percentiles. */
import { spawn } from "node:child_process"

export const BENCH_KEY = "bench-key"

export interface ServiceProcess {
  readonly port: number
  readonly pid: number
  /** SIGTERM, then waits for the exit. */
  readonly stop: () => Promise<void>
  readonly kill: (signal: NodeJS.Signals) => void
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
}

/** Starts `dist/main.js` on a free loopback port over the data root; resolves once it listens. */
export const startService = (dataRoot: string, env: Record<string, string> = {}) =>
  startListening(["dist/main.js"], {
    SERVICE_API_KEY: BENCH_KEY,
    SERVICE_DATA_ROOT: dataRoot,
    SERVICE_PORT: "0",
    SERVICE_HOST: "127.0.0.1",
    SERVICE_LOG_LEVEL: "info",
    ...env
  })

/** Starts a Node process with these arguments; resolves once it prints the port it listens on. */
export const startListening = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<ServiceProcess>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] })
    // A benchmark that ends, however it ends, takes its server with it.
    const reap = () => child.kill("SIGKILL")
    process.on("exit", reap)
    child.on("exit", () => process.off("exit", reap))
    let out = ""
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const port = /Listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1]
      if (port !== undefined) {
        resolve({
          port: Number(port),
          pid: child.pid!,
          stop: () => {
            child.kill("SIGTERM")
            return exited.then(() => undefined)
          },
          kill: (signal) => child.kill(signal),
          exited
        })
      }
    })
    void exited.then((code) => reject(new Error(`${args.join(" ")} exited with ${code}`)))
  })

/** Nearest-rank percentile of sorted values. */
export const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0

/** A numeric command-line flag, `--name value`, or its default. */
export const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}

/** A textual command-line flag, `--name value`, or its default. */
export const textArg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] ?? fallback : fallback
}
