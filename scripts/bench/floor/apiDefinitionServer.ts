/**
 * The stack's floor (floorServer.ts) with the service's API definition evaluated before it serves:
 * every route's schemas and errors built, none of them routed and none of the service's other code
 * loaded. bench:startup sets it beside the server: what the stack and the API the service must
 * declare take before a single service, store or route of its own is built.
 */
import { MemoryApi } from "../../../src/api/Api.js"
import { serveFloor } from "./floorServer.js"

// Naming the groups keeps the definition in the bundle, and is what /health answers.
serveFloor(Object.keys(MemoryApi.groups).join(","))
