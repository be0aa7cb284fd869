import { FiberRef, Layer } from "effect"
import { freshPostgresStorage } from "../support/postgres.js"
import { storageContract } from "./contract.js"

// As requests use the stores while no trace is exported (http/untraced.ts): each statement runs
// straight on its connection (storage/postgres/directStatements.ts).
storageContract({
  name: "PostgreSQL",
  shared: true,
  fresh: (options) => Layer.merge(freshPostgresStorage(options), Layer.locallyScoped(FiberRef.currentTracerEnabled, false))
})
