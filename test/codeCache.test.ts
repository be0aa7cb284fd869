import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import { startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const BOOT = pathToFileURL(NodePath.join(ROOT, "dist/boot/codeCache.js")).href

/** A program of a few functions, a sibling module it requires, and a launcher that prints what became of the cache. */
const program = (body: string) => {
  const folder = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "code-cache-"))
  NodeFs.writeFileSync(NodePath.join(folder, "sibling.cjs"), "module.exports = { word: \"sibling\" }\n")
  NodeFs.writeFileSync(NodePath.join(folder, "program.cjs"), body)
  NodeFs.writeFileSync(NodePath.join(folder, "launch.mjs"), `import { runBundle } from ${JSON.stringify(BOOT)}\nconsole.log("cache " + runBundle(new URL("./program.cjs", import.meta.url)))\n`)
  return { folder, cache: NodePath.join(folder, "program.cjs.cache") }
}

const run = (folder: string) =>
  Effect.async<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [NodePath.join(folder, "launch.mjs")], { stdio: ["ignore", "pipe", "pipe"] })
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

  it.scoped("the server leaves its cache beside its bundle, made from that bundle", () =>
    Effect.gen(function*() {
      // Other suites' servers may be starting: a cache removed under them is one they find absent.
      NodeFs.rmSync(NodePath.join(ROOT, "dist/main.cjs.cache"), { force: true })
      const service = yield* Effect.acquireRelease(
        Effect.promise(() => startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: tempDataRoot() })),
        (started) => Effect.sync(() => started.child.kill("SIGKILL"))
      )
      service.child.kill("SIGTERM")
      expect(yield* Effect.promise(() => service.exited)).toBe(0)
      const cache = NodeFs.readFileSync(NodePath.join(ROOT, "dist/main.cjs.cache"))
      const digest = createHash("sha256").update(NodeFs.readFileSync(NodePath.join(ROOT, "dist/main.cjs"))).digest()
      expect(cache.subarray(0, digest.length).equals(digest)).toBe(true)
      expect(cache.length).toBeGreaterThan(digest.length)
    }), 60_000)
})
