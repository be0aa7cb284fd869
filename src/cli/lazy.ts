import { Effect } from "effect"
import { lazyModule } from "../util/lazyModule.js"
import { CliFailure } from "./errors.js"

/**
 * A command's implementation, loaded when that command runs: `--version`, `--help` and every
 * other command start without it (storage engines, the PostgreSQL driver, the MCP server).
 */
export const commandModule = <M>(module: string, load: () => Promise<M>): Effect.Effect<M, CliFailure> =>
  lazyModule(module, load).pipe(
    Effect.mapError((failure) => new CliFailure({ code: "module_unavailable", message: `${failure.module} could not be loaded: ${failure.message}` }))
  )
