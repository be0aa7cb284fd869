import { HttpServerError, type HttpServerRequest } from "@effect/platform"
import { Data, Effect, Either, Option } from "effect"

/** What a route reads its body as: the media types it takes, and the one it asks for. */
export interface BodyMediaType {
  readonly pattern: RegExp
  readonly expected: string
  /** What the body is, as a refusal names it. */
  readonly reads: string
}

/** `application/json`, or a structured `+json` type (RFC 6839): merge-patch+json, vnd.api+json, … */
const JSON_BODY: BodyMediaType = { pattern: /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/, expected: "application/json", reads: "a JSON object" }

/** An export, one JSON record a line, under the names JSON lines go by (or as JSON). */
export const JSON_LINES_BODY: BodyMediaType = { pattern: /^application\/(?:x-ndjson|jsonl|x-jsonlines|json)$/, expected: "application/x-ndjson", reads: "JSON lines" }

/** A body whose declared media type its route does not read; `contentType` is none when none was declared. */
export class UnreadableMediaType extends Data.TaggedError("UnreadableMediaType")<{
  readonly contentType: string | null
  readonly message: string
  readonly accepted: BodyMediaType
}> {}

const unquoted = (value: string) => value.replace(/^"(.*)"$/, "$1")

/**
 * Why a body declared with this Content-Type is not read, if it is not. JSON is UTF-8 (RFC 8259),
 * so a charset other than UTF-8 is refused rather than misread. A missing type is refused too:
 * a browser sends a body without one (a Blob) to any origin without a CORS preflight, so reading
 * it would let any web page write to a service that runs without authentication.
 */
export const refusedMediaType = (declared: string | undefined, accepted: BodyMediaType = JSON_BODY): Option.Option<UnreadableMediaType> => {
  const refused = (message: string) => Option.some(new UnreadableMediaType({ contentType: declared ?? null, message, accepted }))
  if (declared === undefined || declared.trim() === "") return refused(`the body has no Content-Type; send it as ${accepted.expected}`)
  const [type = "", ...parameters] = declared.toLowerCase().split(";").map((part) => part.trim())
  if (!accepted.pattern.test(type)) return refused(`the body is ${type}; send it as ${accepted.expected}`)
  const charset = parameters.find((parameter) => parameter.startsWith("charset="))
  const encoding = charset === undefined ? "utf-8" : unquoted(charset.slice("charset=".length))
  return encoding === "utf-8" ? Option.none() : refused(`the body is declared in ${encoding}; JSON is read only in utf-8`)
}

/**
 * Makes the request read its body as the API decodes it: always shown as `application/json`, so
 * that the builder reads every body through `json`, which answers an empty body as none (the
 * field errors then say it is missing) and refuses a body of any other media type once it is read
 * (within the size limit), after authentication. Its text is the request's own, read and cached
 * once, and awaited once per read as JSON. Done on the request itself: a request put in its
 * place would copy the request's context, some 40 services, on every request. A request made so
 * already is left as it is: it shows its body as JSON now, which must not lift a refusal.
 */
export const readBodyAsJsonOnly = (
  request: HttpServerRequest.HttpServerRequest,
  /** How the text is read as JSON once its media type is accepted. */
  parse: (text: string) => Either.Either<unknown, SyntaxError>
): void => {
  if (Object.hasOwn(request, "json")) return
  const declared = request.headers["content-type"]
  const refusal = refusedMediaType(declared)
  const headers = { ...request.headers, "content-type": "application/json" }
  const undecodable = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  Object.defineProperties(request, {
    headers: { get: () => headers },
    json: {
      get: () =>
        // The platform makes the text's cached read on first use: a request without a body never does.
        Effect.flatMap(request.text, (body) => {
          if (body === "") return Effect.succeed(null)
          if (Option.isSome(refusal)) return Effect.fail(undecodable(refusal.value))
          return Either.match(parse(body), { onLeft: (cause) => Effect.fail(undecodable(cause)), onRight: Effect.succeed })
        })
    }
  })
}
