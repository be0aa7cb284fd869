import { Effect } from "effect"
import type { ApiKeyRow } from "../../../domain/records.js"
import { ControlDb } from "./ControlDb.js"

const columns = "id, name, prefix, created_at, last_used_at, revoked_at"

/** SQL over the `api_keys` table; infrastructure failures are defects. */
export const ApiKeyQueries = Effect.gen(function*() {
  const sql = yield* ControlDb
  return {
    insert: (row: ApiKeyRow & { readonly key_hash: string }) =>
      sql`INSERT INTO api_keys ${sql.insert({ ...row })}`.pipe(Effect.asVoid, Effect.orDie),

    list: (includeRevoked: boolean) =>
      (includeRevoked
        ? sql<ApiKeyRow>`SELECT ${sql.literal(columns)} FROM api_keys ORDER BY created_at, rowid`
        : sql<ApiKeyRow>`SELECT ${sql.literal(columns)} FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, rowid`
      ).pipe(Effect.orDie),

    findActiveByHash: (keyHash: string) =>
      sql<ApiKeyRow>`SELECT ${sql.literal(columns)} FROM api_keys WHERE key_hash = ${keyHash} AND revoked_at IS NULL`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    /** Marks use at most once a minute per key, so authentication rarely writes. */
    touch: (id: string, at: string, staleBefore: string) =>
      sql`UPDATE api_keys SET last_used_at = ${at}
          WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${staleBefore})`.pipe(Effect.asVoid, Effect.orDie),

    /** Revokes once: a repeated revoke keeps the first revoked_at. */
    revoke: (id: string, at: string) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`
        const rows = yield* sql<ApiKeyRow>`SELECT ${sql.literal(columns)} FROM api_keys WHERE id = ${id}`
        return rows[0]
      })).pipe(Effect.orDie),

    countActive: sql<{ readonly n: number }>`SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )
  }
})
