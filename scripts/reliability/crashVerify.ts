/**
 * What a crash run checks against the store: every acknowledged write there exactly once (its
 * turn; for an extracted session one current version of its fact, with the acknowledged correction
 * or archive applied), and no write of unknown outcome there twice.
 */
import { Array as Arr } from "effect"
import type { SentSession } from "./crashClients.js"
import type { StoreCheck } from "./crashStores.js"

export interface Verified {
  readonly lost: number
  readonly duplicated: number
  readonly problems: ReadonlyArray<string>
}

export const verifySessions = async (sessions: ReadonlyArray<SentSession>, stores: StoreCheck): Promise<Verified> => {
  let lost = 0
  let duplicated = 0
  const problems: Array<string> = []
  for (const [userId, sent] of Object.entries(Arr.groupBy(sessions, (session) => session.userId))) {
    const rows = await stores.read(userId)
    const turnCounts = countBy(rows.turns.map((turn) => turn.content))
    for (const session of sent) {
      const turns = turnCounts.get(session.turn) ?? 0
      if (turns > 1) {
        duplicated++
        problems.push(`${session.token}: ${turns} copies of its turn`)
      }
      if (session.outcome !== "acknowledged") continue
      if (turns === 0) {
        lost++
        problems.push(`${session.token}: acknowledged turn missing`)
      }
      if (!session.extracted) continue
      const facts = rows.facts.filter((fact) => fact.content.includes(session.token))
      const current = facts.filter((fact) => fact.status !== "superseded")
      if (current.length !== 1) {
        if (current.length === 0) lost++
        else duplicated++
        problems.push(`${session.token}: ${current.length} current versions of its fact (${facts.map((f) => f.status).join(",")})`)
        continue
      }
      if (session.change?.outcome !== "acknowledged") continue
      const changed = facts.find((fact) => fact.fact_id === session.factId)
      const expected = session.change.kind === "archive" ? "archived" : "superseded"
      const replaced = session.change.kind === "archive" || current[0]!.content.includes("since spring")
      if (changed?.status !== expected || !replaced) {
        lost++
        problems.push(`${session.token}: acknowledged ${session.change.kind} not stored (${changed?.status})`)
      }
    }
  }
  return { lost, duplicated, problems }
}

const countBy = (values: ReadonlyArray<string>) => {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return counts
}
