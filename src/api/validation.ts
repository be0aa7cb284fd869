import { Option, ParseResult, Schema } from "effect"
import { parseBool } from "../config/variables.js"

/**
 * Annotation naming the validation-error `type` and `msg` (and `ctx`) a schema reports when it
 * rejects input, for parsers and filters whose failure cannot be read off their AST (query-string
 * numbers, booleans, the text rule).
 */
export const ValidationTypeId: unique symbol = Symbol.for("memory-service/ValidationType")

export interface ValidationTypeAnnotation {
  readonly type: string
  readonly msg: string
  readonly ctx?: Record<string, unknown>
}

/** A query-string boolean: true/1/yes/on/t/y and false/0/no/off/f/n, any case. */
export const QueryBoolean = Schema.transformOrFail(Schema.String, Schema.Boolean, {
  strict: true,
  decode: (value, _, ast) =>
    Option.match(parseBool(value), {
      onNone: () => ParseResult.fail(new ParseResult.Type(ast, value)),
      onSome: ParseResult.succeed
    }),
  encode: (value) => ParseResult.succeed(String(value))
}).annotations({
  [ValidationTypeId]: { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input" }
})

/** A query-string integer within bounds. */
export const queryInt = (bounds: { readonly min: number; readonly max?: number }) =>
  Schema.transformOrFail(
    Schema.String,
    bounds.max === undefined
      ? Schema.Int.pipe(Schema.greaterThanOrEqualTo(bounds.min))
      : Schema.Int.pipe(Schema.between(bounds.min, bounds.max)),
    {
      strict: true,
      decode: (value, _, ast) =>
        /^\s*[+-]?\d+\s*$/.test(value)
          ? ParseResult.succeed(Number(value))
          : ParseResult.fail(new ParseResult.Type(ast, value)),
      encode: (value) => ParseResult.succeed(String(value))
    }
  ).annotations({
    [ValidationTypeId]: { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" }
  })

/** Refuses unknown keys, as every request model of the reference service does (unless said otherwise). */
export const forbidExtra = { parseOptions: { onExcessProperty: "error" } } as const

