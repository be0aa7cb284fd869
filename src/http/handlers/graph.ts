import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { Graph } from "../../services/graph/Graph.js"

export const GraphLive = HttpApiBuilder.group(MemoryApi, "graph", (handlers) =>
  Effect.map(Graph, (graph) =>
    handlers
      .handle("entityTimeline", ({ urlParams }) => graph.timeline(urlParams))
      .handle("explore", ({ urlParams }) => graph.explore(urlParams))
      .handle("refine", ({ payload }) => graph.refine(payload))))
