import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { authHeaders, rawFetch, startServer } from "./support/server.js"

/** A GET with the path sent exactly as written: fetch would resolve `..` before sending. */
const rawGet = (baseUrl: string, path: string) =>
  Effect.async<{ readonly status: number; readonly contentType: string; readonly body: string }>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    NodeHttp.get({ host: hostname, port, path }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        body += chunk
      })
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, contentType: response.headers["content-type"] ?? "", body })))
    }).on("error", (error) => resume(Effect.die(error)))
  })

/** The asset URLs index.html loads: Vite names them by content hash. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!)

const TRAVERSALS = [
  "/console/../../etc/passwd",
  "/console/%2e%2e/%2e%2e/etc/passwd",
  "/console/%2E%2E/%2E%2E/package.json",
  "/console/assets/..%2f..%2f..%2fpackage.json",
  "/console/..%5c..%5cpackage.json",
  "/console/.%2e/.%2e/package.json"
]

describe("the console at /console", () => {
  it.scoped("serves index.html at /console and /console/ without a key", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const path of ["/console", "/console/"]) {
        const response = yield* rawFetch(`${baseUrl}${path}`)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(response.headers.get("cache-control")).toBe("no-cache")
        expect(response.text).toContain(`<div id="app"></div>`)
        expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f]{16}$/)
      }
    }))

  it.scoped("serves the built assets with their content types, cached for good", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const index = yield* rawFetch(`${baseUrl}/console/`)
      const assets = assetsOf(index.text)
      expect(assets.some((path) => path.endsWith(".js"))).toBe(true)
      expect(assets.some((path) => path.endsWith(".css"))).toBe(true)
      for (const path of assets) {
        const response = yield* rawFetch(`${baseUrl}${path}`)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe(path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8")
        expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
        expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      }
    }))

  it.scoped("answers any other path under /console with index.html, for the app to route", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const index = yield* rawFetch(`${baseUrl}/console/`)
      for (const path of ["/console/memories", "/console/memories/fact_1?user=alice", "/console/no/such/page.js"]) {
        const response = yield* rawFetch(`${baseUrl}${path}`)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(response.text).toBe(index.text)
      }
    }))

  it.scoped("refuses paths that climb out of the build, plain or encoded", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const path of TRAVERSALS) {
        const response = yield* rawGet(baseUrl, path)
        expect(response.status, path).toBe(404)
        expect(JSON.parse(response.body), path).toEqual({ code: "not_found", message: "Not Found", details: {} })
      }
    }))

  it.scoped("is left out of the request log when it succeeds, like /health", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* rawFetch(`${baseUrl}/console/`)
      yield* rawFetch(`${baseUrl}/console/memories`)
      yield* rawGet(baseUrl, "/console/%2e%2e/package.json")
      yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders() })
      const log = yield* rawFetch(`${baseUrl}/v1/admin/requests`, { headers: authHeaders() })
      const rows = (log.body as { requests: Array<{ route: string; status_code: number }> }).requests
      expect(rows.some((row) => row.route === "/v1/admin/config")).toBe(true)
      expect(rows.filter((row) => row.route.startsWith("/console"))).toEqual([])
      // The refused traversal is a 404 like any other, and logged as one.
      expect(rows.some((row) => row.status_code === 404)).toBe(true)
    }))

  it.scoped("is not part of the API document", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const document = yield* rawFetch(`${baseUrl}/openapi.json`)
      expect(Object.keys((document.body as { paths: Record<string, unknown> }).paths).filter((path) => path.startsWith("/console"))).toEqual([])
    }))

  it.scoped("is the ordinary 404 when no build is present", () =>
    Effect.gen(function*() {
      const empty = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "console-missing-"))
      const { baseUrl } = yield* startServer({}, { consoleDirectory: NodePath.join(empty, "dist") })
      for (const path of ["/console", "/console/", "/console/memories"]) {
        const response = yield* rawFetch(`${baseUrl}${path}`)
        expect(response.status).toBe(404)
        expect(response.body).toEqual({ code: "not_found", message: "Not Found", details: {} })
      }
    }))
})
