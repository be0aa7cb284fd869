/**
 * How long the service's processes take to start, beside what Node itself takes on this machine in
 * the same run: `node -e 1`, and a bare node:http server from spawn to its first answer.
 *
 * - server: `node dist/main.js` (SQLite, fresh data root) from spawn to a 200 from /health, from its
 *   code cache (dist/main.cjs.cache), and once per round without it, as a first start after a build;
 * - `memory-service --version`, and `memory-service health` against a running server;
 * - MCP stdio: `node dist/mcp/main.js` from spawn through initialize to the tools/list answer;
 * - RSS of the server at rest, a while after it became healthy.
 *
 * A third floor is the stack's own: scripts/bench/floor/effectServer.ts (an HttpApi of two endpoints on
 * HttpApiBuilder and NodeHttpServer, launched as the service is), bundled at start with the
 * service's esbuild settings, started from the same code cache and timed from spawn to its first
 * 200 like the server. A fourth is that server with the service's API definition evaluated before
 * it serves (scripts/bench/floor/apiDefinitionServer.ts): what is spent before any of the
 * service's own stores, services or routes exist. A fifth serves that whole API, every route
 * built, behind handlers that do nothing (scripts/bench/floor/apiServedServer.ts).
 *
 * Each is run `--runs` times (default 10), interleaved with the floors so that load on a busy
 * machine falls on all alike; min and median are printed, with the median's ratio to its floor.
 * `--baseline DIR` runs another checkout's build (built if stale) in the same rounds.
 *
 * Usage: npm run bench:startup [-- --runs 10 --baseline /path/to/checkout]
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { bundleFloorServer } from "./floor/bundle.js"
import { freePort } from "../freePort.js"
import { arg, percentile, rssMiB, textArg } from "./support.js"

const RUNS = arg("runs", 10)
const BASELINE = textArg("baseline", "")
const REST_MS = arg("rest-ms", 1500)
const POLL_MS = 5
const GIVE_UP_MS = 120_000

interface Tree {
  readonly name: string
  readonly root: string
}

const trees: ReadonlyArray<Tree> = [
  ...(BASELINE === "" ? [] : [{ name: "baseline", root: NodePath.resolve(BASELINE) }]),
  { name: "this build", root: process.cwd() }
]

/** A tree's build, made first when it is missing or stale (a tree with no such check is taken as built). */
const ensureBuilt = (tree: Tree) => {
  const check = NodePath.join(tree.root, "scripts/build/if-stale.mjs")
  if (!NodeFs.existsSync(check)) return
  const built = spawnSync(process.execPath, [check], { cwd: tree.root, stdio: "inherit" })
  if (built.status !== 0) throw new Error(`${tree.root}: the build failed`)
}

const answers = (port: number, path: string) =>
  new Promise<boolean>((resolve) => {
    const request = NodeHttp.get({ host: "127.0.0.1", port, path, agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on("error", () => resolve(false))
  })

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))

/** Spawns a process and polls `path` on its port until it answers 200: ms from spawn, and the process. */
const untilAnswering = async (args: ReadonlyArray<string>, env: Record<string, string>, port: number, path: string) => {
  const started = performance.now()
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  let exited = false
  void exitOf(child).then(() => (exited = true))
  while (!(await answers(port, path))) {
    if (exited || performance.now() - started > GIVE_UP_MS) throw new Error(`${args.join(" ")} never answered ${path}\n${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  return { ms: performance.now() - started, child }
}

const stop = async (child: ChildProcess) => {
  const exited = exitOf(child)
  child.kill("SIGTERM")
  await exited
}

/** Spawns a process to its exit: ms from spawn; fails on a non-zero exit. */
const toExit = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("exit", (code) => code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(" ")} exited with ${code}\n${stderr}`)))
  })

/** The MCP server over stdio, from spawn through initialize to the answer to tools/list. */
const mcpReady = (entry: string, apiUrl: string) =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [entry], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", SERVICE_API_URL: apiUrl },
      stdio: ["pipe", "pipe", "pipe"]
    })
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    let buffered = ""
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split("\n")
      buffered = lines.pop() ?? ""
      for (const line of lines) {
        const message = JSON.parse(line) as { readonly id?: number }
        if (message.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" })
          send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
        } else if (message.id === 2) {
          const ms = performance.now() - started
          child.stdin.end()
          child.kill("SIGTERM")
          resolve(ms)
        }
      }
    })
    child.once("exit", (code) => reject(new Error(`${entry} exited with ${code} before listing its tools`)))
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-startup", version: "0" } }
    })
  })

const BARE_SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')"

type Samples = Map<string, Array<number>>
const samples: Samples = new Map()
const record = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value])

const serviceEnv = (dataRoot: string, port: number) => ({
  SERVICE_DATA_ROOT: dataRoot,
  SERVICE_PORT: String(port),
  SERVICE_HOST: "127.0.0.1",
  SERVICE_API_KEY: "bench-key"
})

const STACK_FLOOR = "floor: HttpApi server on the same stack"
const API_FLOOR = "floor: the same, with the service's API definition evaluated"
const SERVED_API_FLOOR = "floor: the same, serving the service's whole API with empty handlers"

/** The stack's floor servers by their rows, each a launcher bundled for this run. */
type StackFloors = ReadonlyArray<readonly [row: string, launcher: string]>

const round = async (scratch: string, stackFloors: StackFloors, run: number) => {
  record("floor: node -e 1", await toExit(["-e", "1"]))
  const barePort = await freePort()
  const bare = await untilAnswering(["-e", BARE_SERVER], { PORT: String(barePort) }, barePort, "/")
  record("floor: bare node:http", bare.ms)
  await stop(bare.child)
  for (const [row, launcher] of stackFloors) {
    const stackPort = await freePort()
    const stack = await untilAnswering([launcher], { SERVICE_PORT: String(stackPort) }, stackPort, "/health")
    record(row, stack.ms)
    await stop(stack.child)
  }
  for (const tree of trees) {
    const dist = (file: string) => NodePath.join(tree.root, "dist", file)
    const port = await freePort()
    const dataRoot = NodePath.join(scratch, `${tree.name.replace(/\W/g, "-")}-${run}`)
    // The first start after a build has no code cache yet; it writes the one the next start uses.
    NodeFs.rmSync(dist("main.cjs.cache"), { force: true })
    const first = await untilAnswering([dist("main.js")], serviceEnv(`${dataRoot}-first`, port), port, "/health")
    record(`${tree.name}: server to healthy, first start after a build`, first.ms)
    await stop(first.child)
    const server = await untilAnswering([dist("main.js")], serviceEnv(dataRoot, port), port, "/health")
    record(`${tree.name}: server to healthy`, server.ms)
    await new Promise((resolve) => setTimeout(resolve, REST_MS))
    record(`${tree.name}: server RSS at rest (MiB)`, rssMiB(server.child.pid!))
    record(`${tree.name}: --version`, await toExit([dist("cli/main.js"), "--version"]))
    record(`${tree.name}: health`, await toExit([dist("cli/main.js"), "health"], { SERVICE_API_URL: `http://127.0.0.1:${port}` }))
    record(`${tree.name}: MCP stdio ready`, await mcpReady(dist("mcp/main.js"), `http://127.0.0.1:${port}`))
    await stop(server.child)
  }
}

const median = (values: ReadonlyArray<number>) => percentile([...values].sort((a, b) => a - b), 0.5)
const min = (values: ReadonlyArray<number>) => Math.min(...values)

/** What each measure is compared with, and the target as a ratio to it (or an absolute bound). */
const MEASURES: ReadonlyArray<{ readonly measure: string; readonly floor?: string; readonly target: string }> = [
  { measure: "server to healthy", floor: "floor: bare node:http", target: "≤ 5× bare node:http" },
  { measure: "server to healthy, first start after a build", floor: "floor: bare node:http", target: "" },
  { measure: "--version", floor: "floor: node -e 1", target: "≤ 3× node -e 1" },
  { measure: "health", floor: "floor: node -e 1", target: "" },
  { measure: "MCP stdio ready", floor: "floor: node -e 1", target: "≤ 400 ms" },
  { measure: "server RSS at rest (MiB)", target: "≤ 120 MB" }
]

const main = async () => {
  for (const tree of trees) ensureBuilt(tree)
  const scratch = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-startup-"))
  try {
    const stackFloors: StackFloors = [
      [STACK_FLOOR, await bundleFloorServer("effectServer", scratch)],
      [API_FLOOR, await bundleFloorServer("apiDefinitionServer", scratch)],
      [SERVED_API_FLOOR, await bundleFloorServer("apiServedServer", scratch)]
    ]
    for (let run = 0; run < RUNS; run++) {
      await round(scratch, stackFloors, run)
      process.stderr.write(`round ${run + 1}/${RUNS}\n`)
    }
  } finally {
    NodeFs.rmSync(scratch, { recursive: true, force: true })
  }
  const rows: Array<ReadonlyArray<string>> = [["measure", "build", "min", "median", "ratio (median / floor median)", "target"]]
  for (const floor of ["floor: node -e 1", "floor: bare node:http"]) {
    const values = samples.get(floor) ?? []
    rows.push([floor, "", `${min(values).toFixed(0)} ms`, `${median(values).toFixed(0)} ms`, "1.00×", ""])
  }
  // The stack's floors, as ratios to the bare server: how much of the server's target they take themselves.
  for (const floor of [STACK_FLOOR, API_FLOOR, SERVED_API_FLOOR]) {
    const values = samples.get(floor) ?? []
    const ratio = median(values) / median(samples.get("floor: bare node:http") ?? [])
    rows.push([floor, "", `${min(values).toFixed(0)} ms`, `${median(values).toFixed(0)} ms`, `${ratio.toFixed(2)}× bare node:http`, ""])
  }
  for (const { measure, floor, target } of MEASURES) {
    for (const tree of trees) {
      const values = samples.get(`${tree.name}: ${measure}`) ?? []
      const unit = floor === undefined ? " MiB" : " ms"
      const ratio = floor === undefined ? "" : `${(median(values) / median(samples.get(floor) ?? [])).toFixed(2)}×`
      rows.push([measure, tree.name, `${min(values).toFixed(0)}${unit}`, `${median(values).toFixed(0)}${unit}`, ratio, target])
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const line = (row: ReadonlyArray<string>) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`
  console.log(`startup, ${RUNS} runs each, load average ${NodeOs.loadavg().map((load) => load.toFixed(1)).join(" ")}`)
  console.log(line(rows[0]!))
  console.log(`| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`)
  for (const row of rows.slice(1)) console.log(line(row))
}

await main()
