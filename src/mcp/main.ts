import { NodeRuntime } from "@effect/platform-node"
import { runMcpStdio } from "./stdio.js"

// The runtime's own pretty logger writes to stdout, which here belongs to the protocol.
NodeRuntime.runMain(runMcpStdio, { disablePrettyLogger: true })
