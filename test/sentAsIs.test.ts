import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck, Schema } from "effect"
import { ContextResponse, SearchResponse } from "../src/api/RetrievalApi.js"

/**
 * The search and context routes send their responses without encoding them (src/http/handlers/
 * sentAsIs.ts). That is the same body only while encoding changes nothing: a field that transforms
 * (a number sent as a string, a renamed key) breaks this.
 */
const encodesToItself = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encodeSync(schema)
  FastCheck.assert(FastCheck.property(Arbitrary.make(schema), (value) => {
    expect(JSON.stringify(value)).toBe(JSON.stringify(encode(value)))
  }), { numRuns: 200 })
}

describe("responses sent as they are", () => {
  it("a search response's JSON is its encoding's", () => encodesToItself(SearchResponse))
  it("a context block's JSON is its encoding's", () => encodesToItself(ContextResponse))
  it("a schema with a transforming field is told apart", () => {
    class Counted extends Schema.Class<Counted>("Counted")({ count: Schema.NumberFromString }) {}
    expect(() => encodesToItself(Counted)).toThrow()
  })
})
