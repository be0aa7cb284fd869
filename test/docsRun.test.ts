import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { startProviderStub, STUB_PROVIDERS, type StubProviderName } from "../scripts/stubs/llm-providers.js"
import { type DocBlock, docBlocks, section, serverSettings } from "./support/docBlocks.js"
import { compareOutput } from "./support/docOutputs.js"
import { startDocShell } from "./support/docShell.js"
import { baseEnv, startProcess } from "./support/processes.js"
import { freshDeployment, serviceEnv } from "./support/server.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")

/** The addresses the documents use; each run puts its own servers' in their place. */
const SERVICE_URL = "http://127.0.0.1:8000"
const STUB_URL = "http://127.0.0.1:8100"

/** Settings of a documented start that the tests choose themselves: where the data goes, and the port. */
const OWN_SETTINGS = ["SERVICE_DATA_ROOT", "SERVICE_DATABASE_URL", "SERVICE_PORT", "SERVICE_HOST"]

const readDoc = (path: string) => NodeFs.readFileSync(NodePath.join(ROOT, path), "utf8")

const stubProvider = (code: string): StubProviderName => {
  const named = /llm-providers\.ts (\w+)/.exec(code)?.[1]
  const provider = STUB_PROVIDERS.find((name) => name === named)
  if (provider === undefined) throw new Error(`a stub block names no provider: ${code}`)
  return provider
}

/**
 * Runs a document's blocks in order in one shell, in a fresh directory, against a real service
 * process on a fresh deployment of the tests' backend (and the provider stub where the document
 * starts one), comparing every shown output with what its block printed.
 */
const runDocument = (blocks: ReadonlyArray<DocBlock>) =>
  Effect.gen(function*() {
    expect(blocks.filter((block) => block.role === "server")).toHaveLength(1)
    const deployment = yield* freshDeployment
    const workDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-docs-"))
    const shell = yield* Effect.acquireRelease(
      Effect.sync(() => startDocShell(workDir, { ...baseEnv(), HOME: workDir, LANG: "C.UTF-8" })),
      (started) => Effect.sync(() => started.close())
    )
    let stubUrl = STUB_URL
    let serviceUrl = SERVICE_URL
    const local = (code: string) => code.replaceAll(SERVICE_URL, serviceUrl).replaceAll(STUB_URL, stubUrl)
    for (const block of blocks) {
      if (block.role === "skip") continue
      if (block.role === "stub") {
        const stub = yield* Effect.acquireRelease(
          Effect.promise(() => startProviderStub({ provider: stubProvider(block.code) })),
          (started) => Effect.promise(() => started.close())
        )
        stubUrl = new URL(stub.url).origin
        continue
      }
      if (block.role === "server") {
        const documented = Object.entries(serverSettings(local(block.code))).filter(([name]) => !OWN_SETTINGS.includes(name))
        const service = yield* Effect.acquireRelease(
          Effect.promise(() => startProcess(serviceEnv(deployment, Object.fromEntries(documented)), 120_000)),
          (started) => Effect.promise(() => (started.child.kill("SIGTERM"), started.exited))
        )
        serviceUrl = `http://127.0.0.1:${service.port}`
        continue
      }
      const ran = yield* Effect.promise(() => shell.run(local(block.code), 120_000))
      expect.soft({ line: block.line, status: ran.status, stderr: ran.stderr }).toEqual({ line: block.line, status: 0, stderr: "" })
      if (block.output !== null) {
        const printed = ran.stdout.replaceAll(serviceUrl, SERVICE_URL).replaceAll(stubUrl, STUB_URL)
        const compared = compareOutput(block.output, printed)
        expect.soft({ line: block.line, output: compared.printed }).toEqual({ line: block.line, output: compared.shown })
      }
    }
  })

describe("the documentation's commands, run as a reader would", () => {
  it.scoped("the README's quick start prints what it shows", () => runDocument(docBlocks(section(readDoc("README.md"), "Quick start"))), {
    timeout: 300_000
  })

  it.scoped("docs/getting-started.md, every block in order, prints what it shows", () => runDocument(docBlocks(readDoc("docs/getting-started.md"))), {
    timeout: 600_000
  })
})
