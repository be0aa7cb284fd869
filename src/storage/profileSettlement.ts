import { sameScope } from "../domain/profileScopes.js"
import type { FactRow, NewFact } from "../domain/records.js"
import type { ProfileSettled, ProfileToWrite } from "./UserStore.js"

// How a stale entity's profiles are settled, the same on every backend: a backend reads the
// entity's current profiles and whether the facts the new ones were built from are still current,
// and writes what this decides, in one unit of work.

/** What settling writes: the new profiles, each superseding the current one of its scope, and the current profiles no new one replaces. */
export interface ProfilePlan {
  readonly written: ReadonlyArray<ProfileToWrite>
  readonly supersedes: ReadonlyArray<{ readonly old: FactRow; readonly fact: NewFact }>
  /** Profiles of a scope that has no current facts any more: archived, since nothing replaces them. */
  readonly retired: ReadonlyArray<FactRow>
}

export const profilePlan = (current: ReadonlyArray<FactRow>, profiles: ReadonlyArray<ProfileToWrite>): ProfilePlan => {
  const supersedes: Array<{ old: FactRow; fact: NewFact }> = []
  const retired: Array<FactRow> = []
  for (const old of current) {
    const replacement = profiles.find((profile) => sameScope(profile.fact.scope, old))
    if (replacement === undefined) retired.push(old)
    else supersedes.push({ old, fact: replacement.fact })
  }
  return { written: profiles, supersedes, retired }
}

/** What a settlement that found its entity or a source gone did: nothing. */
export const NOTHING_SETTLED: ProfileSettled = { settled: false, written: 0, superseded: 0 }

/** Whether the facts a settlement was built from are all still current: otherwise it waits for the next run, the entity still stale. */
export const sourcesCurrent = (sources: ReadonlyArray<string>, active: ReadonlyArray<{ readonly fact_id: string }>) => {
  const found = new Set(active.map((row) => row.fact_id))
  return sources.every((id) => found.has(id))
}
