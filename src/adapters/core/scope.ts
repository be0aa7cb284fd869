/** Narrows every call to an agent, run or project of the user (the service's scope keys). */
export interface MemoryScope {
  readonly agent_id?: string
  readonly run_id?: string
  readonly project_id?: string
}

/** The user and scope keys of a request; a key left out is not sent. */
export const scoped = (userId: string, scope: MemoryScope | undefined) => ({
  user_id: userId,
  ...(scope?.agent_id === undefined ? {} : { agent_id: scope.agent_id }),
  ...(scope?.run_id === undefined ? {} : { run_id: scope.run_id }),
  ...(scope?.project_id === undefined ? {} : { project_id: scope.project_id })
})
