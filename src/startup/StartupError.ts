import { Data } from "effect"
import type { ModuleLoadFailed } from "../util/lazyModule.js"

/**
 * A failure that stops the process before it serves: printed as one JSON line
 * `{code, message, details}` on stderr, then a non-zero exit.
 */
export class StartupError extends Data.TaggedError("StartupError")<{
  readonly code:
    | "config_invalid"
    | "data_root_locked"
    | "data_root_not_writable"
    | "control_schema_newer"
    | "control_plane_unavailable"
    | "store_unavailable"
    | "store_schema_newer"
    | "port_unavailable"
    | "store_schema_older"
    | "module_unavailable"
  readonly message: string
  readonly details: Record<string, unknown>
}> {}

export const configInvalid = (variable: string, message: string, extra: Record<string, unknown> = {}) =>
  new StartupError({ code: "config_invalid", message: `${variable}: ${message}`, details: { variable, ...extra } })

export const moduleUnavailable = (failure: ModuleLoadFailed) =>
  new StartupError({ code: "module_unavailable", message: `${failure.module} could not be loaded: ${failure.message}`, details: { module: failure.module } })
