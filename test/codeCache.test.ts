import { afterAll, describe, expect, it } from "@effect/vitest"
import { type Duration, Effect } from "effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import { SERVER_V8_FLAGS } from "../scripts/build/bundleOptions.mjs"
import type { RunOptions } from "../src/boot/codeCache.js"
import { startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const BOOT = pathToFileURL(NodePath.join(ROOT, "dist/boot/codeCache.js")).href
const ARTIFACTS = NodePath.join(ROOT, "test-artifacts")

/** The folder every test program of this file is written under, removed after the file's tests. */
const PROGRAMS = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "code-cache-"))
afterAll(() => NodeFs.rmSync(PROGRAMS, { recursive: true, force: true }))

/** A program of a few functions, a sibling module it requires, and a launcher that prints what became of the cache. */
const program = (body: string, runOptions: RunOptions = {}) => {
  const folder = NodeFs.mkdtempSync(NodePath.join(PROGRAMS, "program-"))
  NodeFs.writeFileSync(NodePath.join(folder, "sibling.cjs"), "module.exports = { word: \"sibling\" }\n")
  NodeFs.writeFileSync(NodePath.join(folder, "program.cjs"), body)
  NodeFs.writeFileSync(NodePath.join(folder, "launch.mjs"), `import { runBundle } from ${JSON.stringify(BOOT)}\nconsole.log("cache " + runBundle(new URL("./program.cjs", import.meta.url), ${JSON.stringify(runOptions)}))\n`)
  return { folder, cache: NodePath.join(folder, "program.cjs.cache") }
}

const run = (folder: string, nodeArgs: ReadonlyArray<string> = []) =>
  Effect.async<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [...nodeArgs, NodePath.join(folder, "launch.mjs")], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code, signal) => resume(Effect.succeed({ code, signal, stdout, stderr })))
  })

const PROGRAM = `const { word } = require("./sibling.cjs")
const square = (n) => n * n
console.log([word, require("node:path").basename(__filename), require("node:path").basename(__dirname) === require("node:path").basename(new URL(".", __bundleUrl).pathname), square(7)].join(" "))
`

describe("programs run with V8's code cache", () => {
  it.effect("a program writes its cache at exit, starts from it the next time, and a cache that does not fit is compiled past and replaced", () =>
    Effect.gen(function*() {
      const { folder, cache } = program(PROGRAM)
      const first = yield* run(folder)
      // The bundle sees the variables of a CommonJS module, its own URL, and requires beside itself.
      expect(first).toMatchObject({ code: 0, stdout: "sibling program.cjs true 49\ncache absent\n", stderr: "" })
      expect(NodeFs.statSync(cache).size).toBeGreaterThan(0)
      const written = NodeFs.readFileSync(cache)

      const second = yield* run(folder)
      expect(second).toMatchObject({ code: 0, stdout: "sibling program.cjs true 49\ncache accepted\n", stderr: "" })
      // Accepted, it is left as it was.
      expect(NodeFs.readFileSync(cache).equals(written)).toBe(true)

      NodeFs.writeFileSync(cache, "not a code cache")
      const third = yield* run(folder)
      expect(third).toMatchObject({ code: 0, stdout: "sibling program.cjs true 49\ncache rejected\n", stderr: "" })
      expect(NodeFs.readFileSync(cache, "utf8")).not.toBe("not a code cache")
      expect((yield* run(folder)).stdout).toBe("sibling program.cjs true 49\ncache accepted\n")

      // The source changed: V8 refuses the old cache, and the program runs as it now reads.
      NodeFs.writeFileSync(NodePath.join(folder, "program.cjs"), PROGRAM.replace("square(7)", "square(8)"))
      expect((yield* run(folder)).stdout).toBe("sibling program.cjs true 64\ncache rejected\n")
      expect((yield* run(folder)).stdout).toBe("sibling program.cjs true 64\ncache accepted\n")
      // No temporary file is left behind.
      expect(NodeFs.readdirSync(folder).sort()).toEqual(["launch.mjs", "program.cjs", "program.cjs.cache", "sibling.cjs"])
    }), 60_000)

  it.effect("a program that runs on writes its cache without waiting for its exit", () =>
    Effect.gen(function*() {
      const { folder } = program(`const path = require("node:path").join(__dirname, "program.cjs.cache")
const fs = require("node:fs")
// Killed as soon as the cache is there: no exit handler runs, so only the timer can have written it.
const poll = setInterval(() => { if (fs.existsSync(path)) { clearInterval(poll); process.kill(process.pid, "SIGKILL") } }, 20)
`)
      const killed = yield* run(folder)
      expect(killed.signal).toBe("SIGKILL")
      expect((yield* run(folder)).stdout).toContain("cache accepted")
    }), 60_000)

  it.effect("a program's long-run V8 flags are set after its cache is written, so the cache fits its next start", () =>
    Effect.gen(function*() {
      // Runs past the time the cache is written and the flags are set, then exits.
      const { folder, cache } = program(`${PROGRAM}setTimeout(() => {}, 2500)\n`, { v8FlagsAfterStart: SERVER_V8_FLAGS })
      expect((yield* run(folder)).stdout).toBe("sibling program.cjs true 49\ncache absent\n")
      const written = NodeFs.readFileSync(cache)
      expect((yield* run(folder)).stdout).toBe("sibling program.cjs true 49\ncache accepted\n")
      expect(NodeFs.readFileSync(cache).equals(written)).toBe(true)
      // The same flags given to node from the start are other flags than the cache was made with.
      expect((yield* run(folder, SERVER_V8_FLAGS)).stdout).toBe("sibling program.cjs true 49\ncache rejected\n")
    }), 60_000)

  it.scopedLive("the server leaves its cache beside its bundle, made from that bundle, and starts from it the next time", () =>
    Effect.gen(function*() {
      // A copy of the build of its own: other suites' servers write the cache of dist/ meanwhile,
      // some under other V8 flags (coverage). Inside the checkout, so its packages are found.
      const copy = yield* Effect.acquireRelease(
        Effect.sync(() => {
          NodeFs.mkdirSync(ARTIFACTS, { recursive: true })
          const folder = NodeFs.mkdtempSync(NodePath.join(ARTIFACTS, "server-"))
          NodeFs.cpSync(NodePath.join(ROOT, "dist"), NodePath.join(folder, "dist"), { recursive: true, filter: (source) => !source.endsWith(".cache") })
          return NodePath.join(folder, "dist")
        }),
        (dist) => Effect.sync(() => NodeFs.rmSync(NodePath.dirname(dist), { recursive: true, force: true }))
      )
      const cachePath = NodePath.join(copy, "main.cjs.cache")
      /** Starts the copied server, keeps it running for a while, and stops it. */
      const startAndStop = (runFor: Duration.DurationInput) =>
        Effect.gen(function*() {
          const service = yield* Effect.acquireRelease(
            Effect.promise(() => startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: tempDataRoot() }, 60_000, NodePath.join(copy, "main.js"))),
            (started) => Effect.sync(() => started.child.kill("SIGKILL"))
          )
          yield* Effect.sleep(runFor)
          service.child.kill("SIGTERM")
          expect(yield* Effect.promise(() => service.exited)).toBe(0)
        })
      // Past the two seconds after which the cache is written and the server's flags are set.
      yield* startAndStop("2500 millis")
      const cache = NodeFs.readFileSync(cachePath)
      const digest = createHash("sha256").update(NodeFs.readFileSync(NodePath.join(copy, "main.cjs"))).digest()
      expect(cache.subarray(0, digest.length).equals(digest)).toBe(true)
      expect(cache.length).toBeGreaterThan(digest.length)

      // As long again: a rejected cache would have been written again; it was accepted, left as it was.
      yield* startAndStop("2500 millis")
      expect(NodeFs.readFileSync(cachePath).equals(cache)).toBe(true)
    }), 60_000)
})

// Keeps ~60 MiB alive while allocating ~1 GiB that lives just long enough to reach the old
// generation; prints the largest the old generation got and what a full collection then keeps.
const CHURN = `const { getHeapSpaceStatistics, setFlagsFromString } = require("node:v8")
const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === "old_space")
const live = []
for (let i = 0; i < 300000; i++) live.push({ id: i, text: "live " + i, pair: [i, i + 1] })
const recent = new Array(200000)
let largest = 0
for (let i = 0; i < 6000000; i++) {
  recent[i % recent.length] = { i, text: "x" + i, list: [i] }
  if (i % 20000 === 0) largest = Math.max(largest, oldSpace().space_size)
}
setFlagsFromString("--expose-gc")
require("node:vm").runInNewContext("gc")()
console.log(JSON.stringify({ largest, kept: oldSpace().space_used_size, alive: live.length + recent.length }))
`

/** The largest the old generation got over the churn, and what it kept, as a multiple of the latter. */
const churnGrowth = (runOptions: RunOptions, nodeArgs: ReadonlyArray<string> = []) =>
  // The churn starts once the start is over, when the program's flags are set.
  Effect.map(run(program(`setTimeout(() => {\n${CHURN}}, 2500)\n`, runOptions).folder, nodeArgs), (result) => {
    const { largest, kept } = JSON.parse(result.stdout.split("\n").find((line) => line.startsWith("{"))!) as { readonly largest: number; readonly kept: number }
    return largest / kept
  })

describe("the server's V8 flags", () => {
  it.effect("keep the old generation near twice what a full collection keeps once it has started, unless node was given its own factor", () =>
    Effect.gen(function*() {
      // Left alone, V8 lets the heap grow to several times what it keeps (~4.5 times here).
      expect(yield* churnGrowth({})).toBeGreaterThan(3.5)
      // Twice, plus what was allocated while a collection ran (~2.4 times here).
      expect(yield* churnGrowth({ v8FlagsAfterStart: SERVER_V8_FLAGS })).toBeLessThan(3)
      // 0 on node's command line gives V8 its own choice back (docs/performance.md).
      expect(yield* churnGrowth({ v8FlagsAfterStart: SERVER_V8_FLAGS }, ["--heap-growing-percent=0"])).toBeGreaterThan(3.5)
    }), 120_000)
})
