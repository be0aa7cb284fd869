import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { memoryWorld } from "./support/adapters.js"
import { baseEnv } from "./support/processes.js"
import { API_KEY } from "./support/server.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const DOC = NodePath.join(ROOT, "docs/integrations.md")
const WORK = NodePath.join(ROOT, "test-artifacts/docs-examples")

/** The doc's examples: each code block after an `<!-- example: name -->` line. */
const examples = () => {
  const found = new Map<string, string>()
  for (const match of NodeFs.readFileSync(DOC, "utf8").matchAll(/<!-- example: ([\w-]+) -->\n```ts\n([\s\S]*?)\n```/g)) {
    found.set(match[1]!, match[2]!)
  }
  return found
}

/** An example as a reader runs it, the package's subpaths pointing at the sources (the tests run unbuilt). */
const runExample = (name: string, code: string, env: Record<string, string>) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    NodeFs.mkdirSync(WORK, { recursive: true })
    const file = NodePath.join(WORK, `${name}.ts`)
    NodeFs.writeFileSync(file, code.replace(/"memory-service\/([\w-]+)"/g, (_, subpath: string) => JSON.stringify(NodePath.join(ROOT, "src/adapters", subpath, "index.ts"))))
    const child = execFile(process.execPath, ["--import", "tsx", file], {
      cwd: ROOT,
      env: { ...baseEnv(), ...env },
      timeout: 180_000
    }, (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : child.exitCode, stdout, stderr })))
  })

const EXPECTED: Record<string, ReadonlyArray<string>> = {
  "ai-sdk": ["Porto", "4471"],
  langchain: ["Porto", "4471"],
  "openai-agents": ["B12"]
}

describe("docs/integrations.md", () => {
  it("has one example per framework", () => {
    expect([...examples().keys()].sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it.scopedLive(`its ${name} example runs against a real server and the OpenAI stub, and recalls what it was told`, () =>
      Effect.gen(function*() {
        const { stub, server } = yield* memoryWorld()
        const run = yield* runExample(name, examples().get(name)!, {
          MEMORY_SERVICE_URL: server.baseUrl,
          MEMORY_SERVICE_API_KEY: API_KEY,
          OPENAI_BASE_URL: stub.url,
          OPENAI_API_KEY: "stub-key-docs",
          // Tracing would export to OpenAI's servers.
          OPENAI_AGENTS_DISABLE_TRACING: "1"
        })
        expect(run.stderr).toBe("")
        expect(run.code).toBe(0)
        for (const text of expected) expect(run.stdout).toContain(text)
      }), 240_000)
  }
})
