import { Args, Options } from "@effect/cli"
import { Config, ConfigError, Either, Option } from "effect"

const DEFAULT_API_URL = "http://127.0.0.1:8000"

/** A variable as set in the environment, a blank one read as unset (as the server reads its own). */
const setVariable = (name: string) =>
  Config.string(name).pipe(Config.mapOrFail((value) =>
    value.trim() === "" ? Either.left(ConfigError.MissingData([name], `${name} is blank`)) : Either.right(value)))

/** Where the service is and the key to use: flags first, then the environment. */
export const connection = {
  apiUrl: Options.text("api-url").pipe(
    Options.withFallbackConfig(setVariable("SERVICE_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))),
    Options.withDescription("Base URL of the service (env SERVICE_API_URL, default http://127.0.0.1:8000)")
  ),
  apiKey: Options.redacted("api-key").pipe(
    Options.withFallbackConfig(Config.redacted("SERVICE_API_KEY")),
    Options.optional,
    Options.withDescription("API key (env SERVICE_API_KEY)")
  )
}

export const json = Options.boolean("json").pipe(Options.withDescription("Print the JSON answer on one line"))

export const user = Options.text("user").pipe(Options.withAlias("u"), Options.withDescription("The user id"))

/** Data commands share the connection, --json and --user. */
export const dataOptions = { ...connection, json }
export const userOptions = { ...dataOptions, user }

const scopeKey = (name: string, what: string) =>
  Options.text(name).pipe(Options.optional, Options.withDescription(`Narrow to one ${what} (stamped on what is written)`))

/** The routes that take agent, run and project keys: --user plus those narrowing keys. */
export const scopedOptions = {
  ...userOptions,
  agentId: scopeKey("agent-id", "agent"),
  runId: scopeKey("run-id", "run"),
  projectId: scopeKey("project-id", "project")
}

/** The scope keys given, as request fields. */
export const scopeFields = (input: { readonly agentId: Option.Option<string>; readonly runId: Option.Option<string>; readonly projectId: Option.Option<string> }) => ({
  ...optionalField("agent_id", input.agentId),
  ...optionalField("run_id", input.runId),
  ...optionalField("project_id", input.projectId)
})

export const optionalInteger = (name: string, description: string) =>
  Options.integer(name).pipe(Options.optional, Options.withDescription(description))

export const memoryId = Args.text({ name: "memory_id" })

/** An Option as an optional property (exactOptionalPropertyTypes refuses `undefined`). */
export const optionalField = <K extends string, A>(key: K, value: Option.Option<A>): { readonly [P in K]?: A } =>
  Option.match(value, { onNone: () => ({}), onSome: (a) => ({ [key]: a }) as { readonly [P in K]?: A } })
