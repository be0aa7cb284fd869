import { HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readBodyAsJsonOnly } from "../src/http/contentType.js"
import { parseJsonWithinDepth } from "../src/http/jsonDepth.js"

const request = (body: string, contentType: string) =>
  HttpServerRequest.fromWeb(new Request("http://127.0.0.1/v1/search", { method: "POST", body, headers: { "content-type": contentType } }))

/** Why the request's body was not read as JSON, or what it read as. */
const readAsJson = (served: HttpServerRequest.HttpServerRequest) =>
  Effect.either(served.json).pipe(Effect.map(Either.mapLeft((error) => error.reason)))

describe("a body read as JSON only", () => {
  it.effect("a JSON body reads as its value, shown as application/json", () =>
    Effect.gen(function*() {
      const served = request("{\"query\":\"tea\"}", "application/merge-patch+json")
      readBodyAsJsonOnly(served, parseJsonWithinDepth)
      expect(served.headers["content-type"]).toBe("application/json")
      expect(yield* readAsJson(served)).toEqual(Either.right({ query: "tea" }))
    }))

  it.effect("a body of another media type is refused once read, and an empty one is none", () =>
    Effect.gen(function*() {
      const refused = request("{\"query\":\"tea\"}", "text/plain")
      readBodyAsJsonOnly(refused, parseJsonWithinDepth)
      expect(yield* readAsJson(refused)).toEqual(Either.left("Decode"))
      const empty = request("", "text/plain")
      readBodyAsJsonOnly(empty, parseJsonWithinDepth)
      expect(yield* readAsJson(empty)).toEqual(Either.right(null))
    }))

  it.effect("made so twice, a request keeps the first refusal and nothing throws", () =>
    Effect.gen(function*() {
      const served = request("{\"query\":\"tea\"}", "text/plain")
      readBodyAsJsonOnly(served, parseJsonWithinDepth)
      // The headers now say application/json: a second pass must not take that for the client's word.
      readBodyAsJsonOnly(served, parseJsonWithinDepth)
      expect(yield* readAsJson(served)).toEqual(Either.left("Decode"))
    }))
})
