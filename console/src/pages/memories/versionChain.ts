import type { ExploreResult, FactCard } from "../../lib/types.js"

export interface Version {
  readonly id: string
  /** Absent when the version lies beyond what the graph walk returned. */
  readonly card: FactCard | undefined
}

/**
 * A memory's versions, newest first. A correction writes a new memory and a SUPERSEDES edge
 * from it to the one it replaces, and marks the old one `superseded_by` the new: both are read,
 * so the chain holds even when the walk's edge limit cut some edges off.
 */
export const versionChain = (startId: string, graph: ExploreResult): ReadonlyArray<Version> => {
  const older = new Map<string, string>()
  const newer = new Map<string, string>()
  const link = (newId: string, oldId: string) => {
    older.set(newId, oldId)
    newer.set(oldId, newId)
  }
  for (const edge of graph.edges) if (edge.edge_type === "SUPERSEDES") link(edge.src_fact_id, edge.dst_id)
  for (const node of graph.nodes) if (node.superseded_by !== null) link(node.superseded_by, node.fact_id)

  // Walk up to the newest version, then down to the oldest; `seen` guards against a cycle.
  const seen = new Set([startId])
  let newest = startId
  for (let next = newer.get(newest); next !== undefined && !seen.has(next); next = newer.get(newest)) {
    seen.add(next)
    newest = next
  }
  const chain = [newest]
  const listed = new Set(chain)
  for (let next = older.get(newest); next !== undefined && !listed.has(next); next = older.get(next)) {
    chain.push(next)
    listed.add(next)
  }
  const cards = new Map(graph.nodes.map((node) => [node.fact_id, node]))
  return chain.map((id) => ({ id, card: cards.get(id) }))
}
