import { Option, ParseResult, SchemaAST as AST } from "effect"
import { type ValidationTypeAnnotation, ValidationTypeId } from "./validation.js"

/** One item of `details.errors[]` of a 422 `validation_error`, in the reference service's shape. */
export interface FieldError {
  readonly type: string
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly input: unknown
  readonly ctx?: Record<string, unknown>
}

type Loc = ReadonlyArray<string | number>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const quoted = (value: unknown) => typeof value === "string" ? `'${value}'` : String(value)

const literalList = (literals: ReadonlyArray<unknown>) => {
  const parts = literals.map(quoted)
  return parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} or ${parts[parts.length - 1]}`
}

const annotatedType = (ast: AST.AST): Option.Option<ValidationTypeAnnotation> =>
  AST.getAnnotation<ValidationTypeAnnotation>(ast, ValidationTypeId)

/** A union's literals other than null, when literals are all it holds (a closed set of values, nullable or not). */
const literalMembers = (ast: AST.Union): ReadonlyArray<AST.Literal> | undefined => {
  const members = ast.types.filter((member) => !(member._tag === "Literal" && member.literal === null))
  return members.length > 0 && members.every((member) => member._tag === "Literal") ? members as ReadonlyArray<AST.Literal> : undefined
}

const literalError = (literals: ReadonlyArray<AST.Literal>, loc: Loc, input: unknown): FieldError => {
  const expected = literalList(literals.map((member) => member.literal))
  return { type: "literal_error", loc, msg: `Input should be ${expected}`, input, ctx: { expected } }
}

const typeError = (ast: AST.AST, loc: Loc, input: unknown): FieldError => {
  const annotated = annotatedType(ast)
  if (Option.isSome(annotated)) return { ...annotated.value, loc, input }
  switch (ast._tag) {
    case "StringKeyword":
      return { type: "string_type", loc, msg: "Input should be a valid string", input }
    case "NumberKeyword":
      return { type: "float_type", loc, msg: "Input should be a valid number", input }
    case "BooleanKeyword":
      return { type: "bool_type", loc, msg: "Input should be a valid boolean", input }
    case "TupleType":
      return { type: "list_type", loc, msg: "Input should be a valid list", input }
    case "TypeLiteral":
      return loc.length <= 1
        ? { type: "model_attributes_type", loc, msg: "Input should be a valid dictionary or object to extract fields from", input }
        : { type: "dict_type", loc, msg: "Input should be a valid dictionary", input }
    case "Literal":
      return literalError([ast], loc, input)
    case "Union": {
      const literals = literalMembers(ast)
      if (literals !== undefined) return literalError(literals, loc, input)
      const first = ast.types.find((member) => !(member._tag === "Literal" && member.literal === null))
      return first === undefined ? { type: "value_error", loc, msg: "Invalid value", input } : typeError(first, loc, input)
    }
    case "Refinement":
    case "Transformation":
      return typeError(ast.from, loc, input)
    case "Declaration":
      return typeError(ast.typeParameters[0] ?? ast, loc, input)
    default:
      return { type: "value_error", loc, msg: "Invalid value", input }
  }
}

const refinementError = (ast: AST.Refinement, loc: Loc, input: unknown, message: string): FieldError => {
  const schema = Option.getOrElse(AST.getJSONSchemaAnnotation(ast), () => ({})) as Record<string, unknown>
  const num = (key: string) => typeof schema[key] === "number" ? schema[key] as number : undefined
  const length = typeof input === "string" ? [...input].length : Array.isArray(input) ? input.length : undefined
  const minLength = num("minLength"), maxLength = num("maxLength"), minItems = num("minItems"), maxItems = num("maxItems")
  const minimum = num("minimum"), maximum = num("maximum")
  if (minLength !== undefined && length !== undefined && length < minLength) {
    return { type: "string_too_short", loc, msg: `String should have at least ${plural(minLength, "character")}`, input, ctx: { min_length: minLength } }
  }
  if (maxLength !== undefined && length !== undefined && length > maxLength) {
    return { type: "string_too_long", loc, msg: `String should have at most ${plural(maxLength, "character")}`, input, ctx: { max_length: maxLength } }
  }
  if (minItems !== undefined && length !== undefined && length < minItems) {
    return { type: "too_short", loc, msg: `List should have at least ${plural(minItems, "item")} after validation, not ${length}`, input, ctx: { field_type: "List", min_length: minItems, actual_length: length } }
  }
  if (maxItems !== undefined && length !== undefined && length > maxItems) {
    return { type: "too_long", loc, msg: `List should have at most ${plural(maxItems, "item")} after validation, not ${length}`, input, ctx: { field_type: "List", max_length: maxItems, actual_length: length } }
  }
  if (typeof input === "number" && minimum !== undefined && input < minimum) {
    return { type: "greater_than_equal", loc, msg: `Input should be greater than or equal to ${minimum}`, input, ctx: { ge: minimum } }
  }
  if (typeof input === "number" && maximum !== undefined && input > maximum) {
    return { type: "less_than_equal", loc, msg: `Input should be less than or equal to ${maximum}`, input, ctx: { le: maximum } }
  }
  if (schema.type === "integer" && typeof input === "number") {
    return { type: "int_from_float", loc, msg: "Input should be a valid integer, got a number with a fractional part", input }
  }
  return { type: "value_error", loc, msg: message, input }
}

const walk = (issue: ParseResult.ParseIssue, loc: Loc, parent: unknown, out: Array<FieldError>): void => {
  switch (issue._tag) {
    case "Pointer": {
      const path = Array.isArray(issue.path) ? issue.path : [issue.path]
      walk(issue.issue, [...loc, ...path.map((key) => typeof key === "number" ? key : String(key))], issue.actual, out)
      return
    }
    case "Composite": {
      // A value outside a closed set fails each of its literals: one error names them all.
      const literals = AST.isUnion(issue.ast) ? literalMembers(issue.ast) : undefined
      if (literals !== undefined) return void out.push(literalError(literals, loc, issue.actual))
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      for (const inner of issues) walk(inner, loc, parent, out)
      return
    }
    case "Refinement": {
      if (issue.kind === "From") return walk(issue.issue, loc, parent, out)
      const annotated = annotatedType(issue.ast)
      out.push(Option.isSome(annotated)
        ? { ...annotated.value, loc, input: issue.actual }
        : refinementError(issue.ast, loc, issue.actual, ParseResult.TreeFormatter.formatIssueSync(issue)))
      return
    }
    case "Transformation":
      return walk(issue.issue, loc, parent, out)
    case "Type":
      out.push(typeError(issue.ast, loc, issue.actual))
      return
    case "Missing":
      out.push({ type: "missing", loc, msg: "Field required", input: parent ?? null })
      return
    case "Unexpected":
      out.push({ type: "extra_forbidden", loc, msg: "Extra inputs are not permitted", input: issue.actual })
      return
    case "Forbidden":
      out.push({ type: "value_error", loc, msg: issue.message ?? "Invalid value", input: issue.actual })
      return
  }
}

/** Flattens a decode failure of one request part (`body`, `query`, `path`) into field errors. */
export const fieldErrors = (issue: ParseResult.ParseIssue, part: "body" | "query" | "path", input: unknown): Array<FieldError> => {
  const out: Array<FieldError> = []
  if (part === "body" && input === null) {
    return [{ type: "missing", loc: ["body"], msg: "Field required", input: null }]
  }
  walk(issue, [part], input, out)
  // A field with a default is reported twice (as the value and as the optional wrapper): keep the first.
  const seen = new Set<string>()
  return out.filter((error) => {
    const key = JSON.stringify(error.loc)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const pathOf = (root: string, keys: Loc) =>
  keys.reduce<string>((path, key) => typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`, root)

/**
 * A decode failure in one line, each field as `<path>: <message>` in the 422's words (the
 * schemas' descriptions document fields; they are not messages). `root` prefixes every path.
 */
export const fieldErrorLine = (issue: ParseResult.ParseIssue, input: unknown, root = ""): string =>
  fieldErrors(issue, "body", input)
    .map((field) => `${pathOf(root, field.loc.slice(1))}: ${field.msg}`)
    .join("; ")
