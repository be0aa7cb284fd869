/** Who caused a change and in which request: recorded with every audit event and job. */
export interface AuditContext {
  readonly actor: string
  readonly requestId: string | null
}
