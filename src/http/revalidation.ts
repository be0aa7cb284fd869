import { HttpServerRequest } from "@effect/platform"
import type { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Effect, Either, Option, Schema } from "effect"
import { validationFailed } from "./errorResponse.js"
import { matchRoute, type RouteInputs } from "./routes.js"
import { type FieldError, fieldErrors } from "../api/fieldErrors.js"

/** The body as the builder decoded it, read again from the request's cached text (none when empty). */
const decodedBody = (request: HttpServerRequest.HttpServerRequest) => Effect.orElseSucceed(request.json, () => null)

const queryRecord = (url: string) => {
  const record: Record<string, string | Array<string>> = {}
  for (const [key, value] of new URL(url, "http://localhost").searchParams) {
    const previous = record[key]
    record[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]
  }
  return record
}

/**
 * The builder reports only flattened messages for a schema failure; decoding the request again
 * against the matched endpoint's schemas yields the typed issues the 422 details are built from.
 */
const revalidate = (request: HttpServerRequest.HttpServerRequest, inputs: RouteInputs, params: Record<string, string>) =>
  Effect.gen(function*() {
    const body = Option.isSome(inputs.body) ? yield* decodedBody(request) : undefined
    const parts: Array<[Option.Option<Schema.Schema.All>, "path" | "query" | "body", unknown]> = [
      [inputs.path, "path", params],
      [inputs.query, "query", queryRecord(request.url)],
      [inputs.body, "body", body]
    ]
    const errors: Array<FieldError> = []
    for (const [schema, part, input] of parts) {
      if (Option.isNone(schema)) continue
      const decoded = Schema.decodeUnknownEither(schema.value as Schema.Schema<unknown, unknown>, { errors: "all" })(input)
      if (Either.isLeft(decoded)) errors.push(...fieldErrors(decoded.left.issue, part, input))
    }
    return errors
  })

/** A schema failure as a 422 whose details name each field that failed, as the contract lists them. */
export const fromDecodeError = (decodeError: HttpApiDecodeError) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, "http://localhost").pathname
    const matched = matchRoute(request.method, path)
    const errors = matched === undefined ? [] : yield* revalidate(request, matched.route.inputs, matched.params)
    return validationFailed(errors.length > 0 ? errors : decodeError.issues.map((issue) => ({
      type: "value_error",
      loc: ["body", ...issue.path.map((key) => typeof key === "number" ? key : String(key))],
      msg: issue.message,
      input: null
    })))
  })
