import {
  HttpApiBuilder,
  HttpIncomingMessage,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  Multipart,
  UrlParams
} from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Cause, Effect, Either, Layer, Option, Predicate, Schema } from "effect"
import { type ParseError, parse as parseJson } from "jsonc-parser"
import { MemoryApi } from "../api/Api.js"
import {
  type ApiError,
  errorEnvelope,
  ERROR_CATALOGUE,
  InternalError,
  isApiError,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  ValidationError
} from "../api/errors.js"
import { bodyContentType, plusJsonAsJson } from "./contentType.js"
import type { CorsPolicy } from "./cors.js"
import { limitJsonDepth, tooDeepAt } from "./jsonDepth.js"
import { allowedMethods, matchRoute, type RouteInputs } from "./routes.js"
import { type FieldError, fieldErrors } from "./validationErrors.js"

/**
 * The error envelope with the catalogue's status. A body refused as too large may still be
 * arriving: its answer closes the connection, rather than keeping it open while the rest is
 * read (a chunked body may never end).
 */
export const errorResponse = (error: ApiError, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(errorEnvelope(error), {
    status: ERROR_CATALOGUE[error._tag].status,
    headers: error._tag === "PayloadTooLarge" ? { ...headers, connection: "close" } : headers
  })

export const validationFailed = (errors: ReadonlyArray<FieldError>) =>
  new ValidationError({ message: "request failed schema validation", details: { errors } })

/**
 * The body as the builder decoded it (HttpApiBuilder's `requestPayload`), read again from the
 * request's cached text: JSON, text and form bodies. Any other body (multipart, binary) was read
 * as a stream, which cannot be read twice (waiting for it would never end): none.
 */
const decodedBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Option.Option<unknown>> => {
  const contentType = bodyContentType(request)
  if (contentType.includes("application/json")) return Effect.asSome(Effect.orElseSucceed(request.json, () => null))
  if (contentType.includes("multipart/form-data")) return Effect.succeedNone
  if (contentType.includes("x-www-form-urlencoded")) {
    return Effect.asSome(Effect.orElseSucceed(Effect.map(request.urlParamsBody, UrlParams.toRecord), () => ({})))
  }
  if (contentType.startsWith("text/")) return Effect.asSome(Effect.orElseSucceed(request.text, () => ""))
  return Effect.succeedNone
}

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
    const body = Option.isSome(inputs.body) ? yield* decodedBody(request) : Option.none()
    const parts: Array<[Option.Option<Schema.Schema.Any>, "path" | "query" | "body", unknown]> = [
      [inputs.path, "path", params],
      [inputs.query, "query", queryRecord(request.url)],
      // A body that cannot be read again is left to the builder's own issues (below).
      [Option.isSome(body) ? inputs.body : Option.none(), "body", Option.getOrUndefined(body)]
    ]
    const errors: Array<FieldError> = []
    for (const [schema, part, input] of parts) {
      if (Option.isNone(schema)) continue
      const decoded = Schema.decodeUnknownEither(schema.value as Schema.Schema<unknown, unknown>, { errors: "all" })(input)
      if (Either.isLeft(decoded)) errors.push(...fieldErrors(decoded.left.issue, part, input))
    }
    return errors
  })

const fromDecodeError = (decodeError: HttpApiDecodeError) =>
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

/** The body is over the size limit: whether it said so up front or ran past it while streaming. */
const payloadTooLarge = (maxBodyBytes: number) =>
  new PayloadTooLarge({ message: `request body exceeds ${maxBodyBytes} bytes`, details: { max_bytes: maxBodyBytes } })

/**
 * Where a body stops being JSON, as a character offset (V8's messages no longer carry one). A
 * body nested too deep stops where it goes too deep (the parser here would recurse past the stack).
 */
const jsonErrorOffset = (text: string) => {
  const tooDeep = tooDeepAt(text)
  if (tooDeep !== undefined) return tooDeep
  const errors: Array<ParseError> = []
  parseJson(text, errors, { disallowComments: true, allowTrailingComma: false })
  return errors[0]?.offset ?? 0
}

/** The body could not be read: over the size limit, or not JSON. */
const fromRequestError = (error: HttpServerError.RequestError, maxBodyBytes: number) =>
  Effect.gen(function*() {
    const cause = String(error.cause ?? error.description ?? "")
    if (cause.includes("maxBytes exceeded")) return payloadTooLarge(maxBodyBytes)
    const text = yield* Effect.orElseSucceed(error.request.text, () => "")
    return validationFailed([{
      type: "json_invalid",
      loc: ["body", jsonErrorOffset(text)],
      msg: "JSON decode error",
      input: {},
      ctx: { error: cause.replace(/^SyntaxError: /, "") }
    }])
  })

const MULTIPART_SIZE_REASONS = new Set(["BodyTooLarge", "FileTooLarge", "FieldTooLarge"])

/**
 * A multipart body that could not be read: over the size limit (413), or not multipart (422).
 * A limit reached while a file part streams to disk arrives as an InternalError whose cause is
 * the parser's own `ReachedLimit`.
 */
const fromMultipartError = (error: Multipart.MultipartError, maxBodyBytes: number) => {
  const { cause } = error
  const reachedLimit = Predicate.hasProperty(cause, "_tag") && cause._tag === "ReachedLimit" &&
    !(Predicate.hasProperty(cause, "limit") && cause.limit === "MaxParts")
  return MULTIPART_SIZE_REASONS.has(error.reason) || reachedLimit
    ? payloadTooLarge(maxBodyBytes)
    : validationFailed([{ type: "value_error", loc: ["body"], msg: "Unreadable multipart/form-data body", input: null, ctx: { error: error.reason } }])
}

const routingError = (request: HttpServerRequest.HttpServerRequest) => {
  const path = new URL(request.url, "http://localhost").pathname
  const method = request.method === "HEAD" ? "GET" : request.method
  const matched = matchRoute(method, path)
  // The route serves this method, yet the router refused the path: it could not decode a parameter.
  if (matched !== undefined && matched.undecodable.length > 0) {
    return Effect.succeed(errorResponse(validationFailed(matched.undecodable.map((name) => ({
      type: "value_error",
      loc: ["path", name],
      msg: "Input should be valid percent-encoded UTF-8",
      input: matched.params[name] ?? null
    })))))
  }
  const allowed = allowedMethods(path)
  return Effect.succeed(
    allowed.length > 0 && matched === undefined
      ? errorResponse(new MethodNotAllowed({ message: "Method Not Allowed", details: {} }), { allow: allowed.join(", ") })
      : errorResponse(new NotFound({ message: "Not Found", details: {} }))
  )
}

const unexpected = (cause: Cause.Cause<unknown>) =>
  Effect.logError("unhandled failure", cause).pipe(
    Effect.as(errorResponse(new InternalError({ message: "internal error; the request id identifies it in the logs", details: {} })))
  )

/**
 * Every failure the contract does not declare becomes an envelope here: routing misses (404,
 * 405, 422 for an undecodable path parameter), schema failures (422), unreadable bodies
 * (413/422, multipart ones too) and defects (500).
 * Declared errors pass through to the builder, which encodes them with their status.
 */
export const handleFailure = (maxBodyBytes: number) => (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    // The app is typed as failing with nothing, yet declared errors do arrive here; handing the
    // cause back lets the builder encode them with their declared status.
    const passThrough = Effect.failCause(cause as Cause.Cause<never>)
    if (Cause.isInterruptedOnly(cause)) return yield* passThrough
    const squashed = Cause.squash(cause)
    if (isApiError(squashed)) return yield* passThrough
    const request = yield* HttpServerRequest.HttpServerRequest
    if (HttpServerError.isServerError(squashed)) {
      if (squashed._tag === "RouteNotFound") return yield* routingError(request)
      if (squashed._tag === "RequestError" && squashed.reason === "Decode") {
        return errorResponse(yield* fromRequestError(squashed, maxBodyBytes))
      }
    }
    if (squashed instanceof HttpApiDecodeError) return errorResponse(yield* fromDecodeError(squashed))
    if (squashed instanceof Multipart.MultipartError) return errorResponse(fromMultipartError(squashed, maxBodyBytes))
    return yield* unexpected(cause)
  })


/**
 * The router's parameters as long as the ids in them: an evidence id carries its session id,
 * which the caller chose, so the router's default cap (100 characters, past which it matches
 * no route) would make such memories unreachable. Node's header limit bounds a path anyway.
 */
const unboundedParameters = HttpRouter.setRouterConfig({ maxParamLength: Number.MAX_SAFE_INTEGER })

/**
 * The API's edge, inside routing's reach but before any handler: CORS preflights answered,
 * declared oversize bodies refused before a byte is read (undeclared ones are cut off while
 * streaming), JSON bodies nested too deep refused when read, and every failure rendered as above.
 */
export const edgeLayer = (options: { readonly maxBodyBytes: number; readonly cors: CorsPolicy }) =>
  Layer.merge(unboundedParameters, HttpApiBuilder.middleware(MemoryApi, (app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const preflight = options.cors.preflight(request)
      if (Option.isSome(preflight)) return preflight.value
      const declared = request.headers["content-length"]
      if (declared !== undefined && Number(declared) > options.maxBodyBytes) return errorResponse(payloadTooLarge(options.maxBodyBytes))
      return yield* app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, limitJsonDepth(plusJsonAsJson(request))),
        HttpIncomingMessage.withMaxBodySize(Option.some(options.maxBodyBytes)),
        Effect.catchAllCause(handleFailure(options.maxBodyBytes))
      )
    })))
