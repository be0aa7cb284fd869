import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { type HubFaults, startModelHub } from "../scripts/stubs/model-hub.js"
import { tinyModelFiles } from "../src/llm/local/tinyModel.js"
import { runCli } from "./support/cli.js"
import { authHeaders, freshDeployment, ingestTurn, rawFetch, sendJson, startServer } from "./support/server.js"

const ID = "acme/tiny-encoder"
const tiny = tinyModelFiles()
const HUB_FILES = [
  { path: "onnx/model.onnx", bytes: tiny["model.onnx"]!, large: true },
  { path: "tokenizer.json", bytes: tiny["tokenizer.json"]!, large: false },
  { path: "config.json", bytes: tiny["config.json"]!, large: false },
  { path: "README.md", bytes: new TextEncoder().encode("# tiny"), large: false }
]

const hub = (faults: HubFaults = {}) =>
  Effect.acquireRelease(Effect.promise(() => startModelHub(ID, HUB_FILES, faults)), (stub) => Effect.promise(() => stub.close()))

const pull = (hubUrl: string, dataRoot: string) =>
  runCli(["models", "pull", ID, "--hub-url", hubUrl, "--data-root", dataRoot], { timeoutMs: 120_000 })

const modelDir = (dataRoot: string) => NodePath.join(dataRoot, "models", "acme--tiny-encoder")

const sameBytes = (file: string, bytes: Uint8Array) => Buffer.compare(NodeFs.readFileSync(file), Buffer.from(bytes)) === 0

describe("memory-service models pull", () => {
  it.scoped("resumes an interrupted download from where it stopped, checks every file, and the service then embeds with it", () =>
    Effect.gen(function*() {
      const deployment = yield* freshDeployment
      const stub = yield* hub({ cutAfter: { "onnx/model.onnx": 40_000 } })
      const first = yield* pull(stub.url, deployment.dataRoot)
      expect(first.code).toBe(1)
      expect(first.stderr).toContain("download_failed")
      const part = NodePath.join(modelDir(deployment.dataRoot), "model.onnx.part")
      const kept = NodeFs.statSync(part).size
      expect(kept).toBeGreaterThan(0)
      expect(kept).toBeLessThan(tiny["model.onnx"]!.length)

      const second = yield* pull(stub.url, deployment.dataRoot)
      expect(second.code, second.stderr).toBe(0)
      expect(second.stdout.trim()).toBe(modelDir(deployment.dataRoot))
      expect(stub.requests.filter((r) => r.path === "onnx/model.onnx").map((r) => r.range)).toEqual([undefined, `bytes=${kept}-`])
      expect(sameBytes(NodePath.join(modelDir(deployment.dataRoot), "model.onnx"), tiny["model.onnx"]!)).toBe(true)
      expect(sameBytes(NodePath.join(modelDir(deployment.dataRoot), "tokenizer.json"), tiny["tokenizer.json"]!)).toBe(true)
      expect(NodeFs.existsSync(part)).toBe(false)
      expect(NodeFs.existsSync(NodePath.join(modelDir(deployment.dataRoot), "README.md"))).toBe(false)

      // A pulled model and no embedding provider configured: the service embeds with it.
      const server = yield* startServer({ SERVICE_DATA_ROOT: deployment.dataRoot, SERVICE_EMBED_THREADS: "1" })
      const config = yield* rawFetch(`${server.baseUrl}/v1/admin/config`, { headers: authHeaders() })
      expect(config.body).toMatchObject({ embed_provider: "local", embed_model: ID, embed_state: "ready", embed_unavailable: null })
      expect((yield* ingestTurn(server.baseUrl, "u", "I walked the dog")).status).toBe(200)
      const search = yield* sendJson(`${server.baseUrl}/v1/search`, { user_id: "u", query: "dog walk" })
      expect((search.body as { degraded: Array<unknown> }).degraded).toEqual([])
    }), { timeout: 300_000 })

  it.scoped("rejects a file that does not match the hub's checksum and leaves nothing of it", () =>
    Effect.gen(function*() {
      const deployment = yield* freshDeployment
      const stub = yield* hub({ corrupt: ["tokenizer.json"] })
      const run = yield* pull(stub.url, deployment.dataRoot)
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^checksum_mismatch: tokenizer\.json does not match the hub's checksum \(sha1 [0-9a-f]{40}, got [0-9a-f]{40}\)/m)
      expect(NodeFs.existsSync(NodePath.join(modelDir(deployment.dataRoot), "tokenizer.json"))).toBe(false)
      expect(NodeFs.existsSync(NodePath.join(modelDir(deployment.dataRoot), "tokenizer.json.part"))).toBe(false)
      // The model file before it was verified and kept.
      expect(sameBytes(NodePath.join(modelDir(deployment.dataRoot), "model.onnx"), tiny["model.onnx"]!)).toBe(true)
    }), { timeout: 300_000 })

  it.scoped("says plainly that the hub cannot be reached, and how to do without it", () =>
    Effect.gen(function*() {
      const deployment = yield* freshDeployment
      const stub = yield* hub()
      const url = stub.url
      yield* Effect.promise(() => stub.close())
      const run = yield* pull(url, deployment.dataRoot)
      expect(run.code).toBe(1)
      expect(run.stderr).toContain(`hub_unreachable: cannot reach the model hub at ${url}`)
      expect(run.stderr).toContain("SERVICE_EMBED_HUB_URL")
    }), { timeout: 300_000 })
})
