import type { FactRow, ScopeFilter } from "./records.js"

const SCOPE_KEYS = ["agent_id", "run_id", "project_id"] as const

/** A scope's stamps, as they compare: null and a value never match. */
export const sameScope = (a: ScopeFilter, b: ScopeFilter) => SCOPE_KEYS.every((key) => a[key] === b[key])

const scopeOf = (row: ScopeFilter): ScopeFilter => ({ agent_id: row.agent_id, run_id: row.run_id, project_id: row.project_id })

/** Whether every reader that may see a row stamped `scope` may also see `fact`: each of its stamps is unset or the same. */
const visibleWherever = (fact: ScopeFilter, scope: ScopeFilter) => SCOPE_KEYS.every((key) => fact[key] === null || fact[key] === scope[key])

/**
 * The profiles an entity's facts make, one per scope its facts are stamped with: each from the
 * facts every reader of that scope may see (its own and the more widely visible ones), in the
 * order given. A profile stamped with its scope then tells no reader a fact kept from them.
 */
export const profileScopes = (facts: ReadonlyArray<FactRow>): ReadonlyArray<{ readonly scope: ScopeFilter; readonly facts: ReadonlyArray<FactRow> }> => {
  const scopes: Array<ScopeFilter> = []
  for (const fact of facts) if (!scopes.some((scope) => sameScope(scope, fact))) scopes.push(scopeOf(fact))
  return scopes.map((scope) => ({ scope, facts: facts.filter((fact) => visibleWherever(fact, scope)) }))
}
