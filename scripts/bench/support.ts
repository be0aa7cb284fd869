/** What the benchmarks share: the service as a real process (the compiled build), requests to it, settings and percentiles. */
import { Schema } from "effect"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"

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

export interface StartOptions {
  /** A file that keeps everything the process writes (stdout and stderr), e.g. its JSON log lines. */
  readonly logFile?: string
  /** The service's entry point: `dist/main.js` under the working directory (this tree's build) unless given. */
  readonly entry?: string
  /** Flags for Node ahead of the entry point, e.g. `--cpu-prof`. */
  readonly nodeArgs?: ReadonlyArray<string>
  /** A program that runs Node, with its arguments (valgrind's): the process is then that program's. */
  readonly runner?: ReadonlyArray<string>
}

/** Starts the service's build (`dist/main.js`) on a free loopback port over the data root; resolves once it listens. */
export const startService = (dataRoot: string, env: Record<string, string> = {}, options: StartOptions = {}) =>
  startListening([...options.nodeArgs ?? [], options.entry ?? "dist/main.js"], {
    SERVICE_API_KEY: BENCH_KEY,
    SERVICE_DATA_ROOT: dataRoot,
    SERVICE_PORT: "0",
    SERVICE_HOST: "127.0.0.1",
    SERVICE_LOG_LEVEL: "info",
    ...env
  }, options)

/**
 * Starts a Node process with these arguments; resolves once it prints the port it listens on.
 * Its stderr is the caller's, unless a log file keeps both of its streams.
 */
export const startListening = (args: ReadonlyArray<string>, env: Record<string, string> = {}, options: StartOptions = {}) =>
  new Promise<ServiceProcess>((resolve, reject) => {
    const [command, ...commandArgs] = [...options.runner ?? [], process.execPath, ...args]
    const child = spawn(command!, commandArgs, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    if (options.logFile === undefined) {
      child.stderr.pipe(process.stderr)
    } else {
      // Both streams into one file, closed once the process and its streams are gone (a SIGKILL too).
      const log = NodeFs.createWriteStream(options.logFile, { flags: "a" })
      child.stdout.pipe(log, { end: false })
      child.stderr.pipe(log, { end: false })
      child.on("close", () => log.end())
    }
    // A benchmark that ends, however it ends, takes its server with it.
    const reap = () => child.kill("SIGKILL")
    process.on("exit", reap)
    child.on("exit", () => process.off("exit", reap))
    let out = ""
    let listening = false
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    child.stdout.on("data", (chunk: Buffer) => {
      if (listening) return
      out += chunk.toString()
      const port = /Listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1]
      if (port !== undefined) {
        listening = true
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

/** A setting: the command-line flag `--name value`, else the variable `BENCH_NAME` (`--top-k`: `BENCH_TOP_K`), else the default. */
export const textArg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  const flag = i > 0 ? process.argv[i + 1] : undefined
  return flag ?? process.env[`BENCH_${name.toUpperCase().replaceAll("-", "_")}`] ?? fallback
}

/** A numeric setting (see `textArg`). */
export const arg = (name: string, fallback: number) => Number(textArg(name, String(fallback)))

/** A list of numbers, comma-separated (see `textArg`). */
export const listArg = (name: string, fallback: ReadonlyArray<number>) => textArg(name, fallback.join(",")).split(",").map(Number)

/** A process's resident set in MiB. */
export const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(NodeFs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024

/** What the benchmarks read of an answer: a job's id, a search's degraded legs. */
const Answer = Schema.Struct({
  job_id: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  degraded: Schema.optional(Schema.Array(Schema.Struct({ code: Schema.String, details: Schema.Struct({ channel: Schema.optional(Schema.String) }) })))
})
const decodeAnswer = Schema.decodeUnknownSync(Answer)

/**
 * Sends a request with the benchmarks' key, and a JSON body when one is given; fails on any status
 * but 200 and 202. Answers the body as read, its decoded fields, the client's time and the
 * server's (`x-response-time-ms`).
 */
export const sendJson = async (port: number, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => {
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json: unknown = await response.json()
  const clientMs = performance.now() - started
  if (response.status !== 200 && response.status !== 202) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return { json, answer: decodeAnswer(json), clientMs, serverMs: Number(response.headers.get("x-response-time-ms")) }
}

/** POSTs a JSON body (see `sendJson`). */
export const postJson = (port: number, path: string, body: unknown) => sendJson(port, "POST", path, body)

/** p50, p95 and p99 of the values (sorted in place). */
export const stats = (values: Array<number>) => {
  values.sort((a, b) => a - b)
  return { p50: percentile(values, 0.5), p95: percentile(values, 0.95), p99: percentile(values, 0.99) }
}
