/** The stack's floor (floorServer.ts) alone: what Node, effect and @effect/platform take. */
import { serveFloor } from "./floorServer.js"

serveFloor("ok")
