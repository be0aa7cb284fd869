import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { formatFailure, formatReport } from "../scripts/reliability/fuzzReport.js"
import { type FuzzReport, runFuzz } from "../scripts/reliability/fuzzRunner.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { API_KEY, startServer } from "./support/server.js"

/** The short, fixed-seed variant of `scripts/reliability/fuzz.ts`; a failure prints its request. */
const MAX_BODY_BYTES = 262_144

const fuzz = (baseUrl: string, seed: number, count: number) =>
  Effect.promise(() => runFuzz({ baseUrl, apiKey: API_KEY, seed, count, maxBodyBytes: MAX_BODY_BYTES }))

const expectClean = (report: FuzzReport, label: string, count: number) => {
  if (report.failures.length > 0 || report.checks.some((check) => !check.ok)) console.log(formatReport(report, label))
  expect(report.failures.map(formatFailure)).toEqual([])
  expect(report.checks.filter((check) => !check.ok)).toEqual([])
  expect(report.requests).toBe(count)
  // Every documented operation was reached.
  expect([...report.operations.values()].filter((figures) => figures.requests === 0)).toEqual([])
}

describe("fuzzing the HTTP API from its OpenAPI document", () => {
  it.scoped("with an LLM configured, generated requests to every route get only documented answers", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub()
      const { baseUrl } = yield* startServer({ ...llmEnv(stub), SERVICE_MAX_BODY_BYTES: String(MAX_BODY_BYTES) })
      expectClean(yield* fuzz(baseUrl, 20_260_101, 1200), "with-llm", 1200)
    }), 90_000)

  it.scoped("without an LLM (and with purge allowed), likewise", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_MAX_BODY_BYTES: String(MAX_BODY_BYTES), SERVICE_ALLOW_PURGE: "true" })
      expectClean(yield* fuzz(baseUrl, 20_260_102, 300), "no-llm", 300)
    }), 60_000)
})
