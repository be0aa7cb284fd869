import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Either } from "effect"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { BitIndex, quantize } from "../src/storage/vectors/bitIndex.js"
import { currentBitIndex, loadByScan, loadFromChunks } from "../src/storage/sqlite/user/bitIndexCache.js"
import { openMigrated } from "../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../src/storage/sqlite/user/migrations.js"
import { VectorQueries } from "../src/storage/sqlite/user/vectors.js"
import { STORE_SCHEMA_VERSION } from "../src/version.js"
import { tempDataRoot } from "./support/server.js"

/** A fixed-seed generator, so every run checks the same vectors. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const vectors = (count: number, dimensions: number, seed: number) => {
  const next = random(seed)
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, () => next() - 0.5))
}

const bytes = (vector: Float32Array) => new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)

const hamming = (a: Uint8Array, b: Uint8Array) => {
  let distance = 0
  for (let i = 0; i < a.length; i++) for (let x = a[i]! ^ b[i]!; x !== 0; x &= x - 1) distance++
  return distance
}

/** The rows of a vec0 bit table by Hamming distance to a query, read through vec0's own full scan. */
const bruteForce = (sql: SqlClient.SqlClient, table: string, query: Uint8Array) =>
  Effect.map(
    sql<{ readonly rowid: number; readonly embedding: Uint8Array }>`SELECT rowid, embedding FROM ${sql.literal(table)}`,
    (rows) => rows.map((row) => ({ seq: row.rowid, distance: hamming(row.embedding, query) }))
  )

/** Checks that the index holds exactly the rows of vec0's bit table, with the same bits. */
const expectMirrors = (sql: SqlClient.SqlClient, index: BitIndex, query: Float32Array) =>
  Effect.gen(function*() {
    const expected = (yield* bruteForce(sql, "fact_vectors", new Uint8Array(quantize(query).buffer))).sort((a, b) => a.distance - b.distance)
    const distanceOf = new Map(expected.map((row) => [row.seq, row.distance]))
    const nearest = index.nearest(quantize(query), expected.length + 1)
    expect(new Set(nearest)).toEqual(new Set(expected.map((row) => row.seq)))
    expect(nearest.map((seq) => distanceOf.get(seq))).toEqual(expected.map((row) => row.distance))
  })

const openStore = Effect.gen(function*() {
  const sql = yield* openMigrated({
    filename: NodePath.join(tempDataRoot(), "store.db"),
    migrations: userStoreMigrations,
    latest: STORE_SCHEMA_VERSION,
    extensions: [SqliteVec.getLoadablePath()]
  })
  return { sql, queries: VectorQueries(sql) }
}).pipe(Effect.provide(Reactivity.layer))

const SPACE = { model: "test-embed", dimensions: 64 }

describe("the in-memory bit index", () => {
  it("quantizes a query exactly as sqlite-vec's vec_quantize_binary does", () => {
    const db = new Database(":memory:")
    db.loadExtension(SqliteVec.getLoadablePath())
    const quantizeInSql = db.prepare("SELECT vec_quantize_binary(?) AS bits").pluck()
    for (const dimensions of [8, 64, 512, 1000]) {
      for (const vector of vectors(20, dimensions, dimensions)) {
        const expected = quantizeInSql.get(bytes(vector)) as Uint8Array
        const words = quantize(vector)
        expect(new Uint8Array(words.buffer, 0, dimensions / 8)).toEqual(new Uint8Array(expected))
      }
    }
    db.close()
  })

  for (const dimensions of [40, 512, 1000]) {
    it(`ranks rows by Hamming distance, ties in the order they were added (${dimensions} dimensions)`, () => {
      const rows = vectors(300, dimensions, 7).map((vector) => new Uint8Array(quantize(vector).buffer, 0, dimensions / 8))
      const index = new BitIndex(dimensions, 4)
      rows.forEach((bits, i) => index.append(i + 1, bits))
      expect(index.size).toBe(300)
      expect(index.maxSeq).toBe(300)
      const query = quantize(vectors(1, dimensions, 99)[0]!)
      const queryBytes = new Uint8Array(query.buffer, 0, dimensions / 8)
      const expected = rows.map((bits, i) => ({ seq: i + 1, distance: hamming(bits, queryBytes) }))
        .sort((a, b) => a.distance - b.distance || a.seq - b.seq)
        .map((row) => row.seq)
      expect(index.nearest(query, 25)).toEqual(expected.slice(0, 25))
      expect(index.nearest(query, 1000)).toEqual(expected)
      expect(new BitIndex(dimensions).nearest(query, 10)).toEqual([])
    })
  }

  it.scoped("loads every live vector of a store, the same as vec0's own scan, after removals", () =>
    Effect.gen(function*() {
      const { queries, sql } = yield* openStore
      const written = vectors(2500, SPACE.dimensions, 1)
      yield* sql.withTransaction(queries.insert("fact", SPACE, written.map((vector, i) => ({ seq: i + 1, vector }))))
      // Holes across chunks, the last slot of a chunk among them.
      for (const seq of [1, 2, 500, 1024, 1025, 2048, 2500]) yield* sql.withTransaction(queries.remove("fact", seq))
      const index = yield* currentBitIndex(sql, "fact", SPACE.dimensions)
      expect(index.size).toBe(2493)
      yield* expectMirrors(sql, index, vectors(1, SPACE.dimensions, 42)[0]!)
    }))

  it.scoped("vec0's own scan, the load for an unknown sqlite-vec layout, gives the same index", () =>
    Effect.gen(function*() {
      const { queries, sql } = yield* openStore
      const written = vectors(1500, SPACE.dimensions, 3)
      yield* sql.withTransaction(queries.insert("fact", SPACE, written.map((vector, i) => ({ seq: i + 1, vector }))))
      yield* sql.withTransaction(queries.remove("fact", 700))
      const query = vectors(1, SPACE.dimensions, 8)[0]!
      for (const load of [loadByScan, loadFromChunks]) {
        const index = yield* load(sql, "fact", SPACE.dimensions)
        expect(index.size).toBe(1499)
        yield* expectMirrors(sql, index, query)
      }
    }))

  it.scoped("follows committed appends in place and reloads after a removal", () =>
    Effect.gen(function*() {
      const { queries, sql } = yield* openStore
      const [a, b, c] = vectors(3, SPACE.dimensions, 5)
      yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 1, vector: a! }]))
      const first = yield* currentBitIndex(sql, "fact", SPACE.dimensions)
      yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 2, vector: b! }]))
      expect((yield* queries.nearest("fact", b!, SPACE.dimensions, 1)).map((row) => row.seq)).toEqual([2])
      expect(yield* currentBitIndex(sql, "fact", SPACE.dimensions)).toBe(first)
      expect(first.size).toBe(2)
      yield* sql.withTransaction(queries.remove("fact", 2))
      const reloaded = yield* currentBitIndex(sql, "fact", SPACE.dimensions)
      expect(reloaded).not.toBe(first)
      expect(reloaded.size).toBe(1)
      // A vector written below the highest seq is not an append: the count tells, and it reloads.
      yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 3, vector: c! }]))
      yield* currentBitIndex(sql, "fact", SPACE.dimensions)
      yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 2, vector: b! }]))
      expect((yield* queries.nearest("fact", b!, SPACE.dimensions, 1)).map((row) => row.seq)).toEqual([2])
      expect((yield* currentBitIndex(sql, "fact", SPACE.dimensions)).size).toBe(3)
    }))

  it.scoped("ranks many queries at once as each alone: exact cosine order, in and out of a transaction, past one statement's worth", () =>
    Effect.gen(function*() {
      const { queries, sql } = yield* openStore
      // Fewer rows than the candidates a query re-ranks, so every row is a candidate and the answer is exact.
      const stored = vectors(90, SPACE.dimensions, 21)
      yield* sql.withTransaction(queries.insert("fact", SPACE, stored.map((vector, i) => ({ seq: i + 1, vector }))))
      const cosine = (a: Float32Array, b: Float32Array) => {
        let dot = 0, na = 0, nb = 0
        for (let i = 0; i < a.length; i++) (dot += a[i]! * b[i]!), (na += a[i]! * a[i]!), (nb += b[i]! * b[i]!)
        return 1 - dot / Math.sqrt(na * nb)
      }
      // More queries than one re-rank statement takes; the first ones are stored rows themselves.
      const asked = [...stored.slice(0, 3), ...vectors(150, SPACE.dimensions, 22)]
      const exact = (query: Float32Array) =>
        stored.map((vector, i) => ({ seq: i + 1, distance: cosine(query, vector) })).sort((a, b) => a.distance - b.distance || a.seq - b.seq)
      const check = (lists: ReadonlyArray<ReadonlyArray<{ readonly seq: number; readonly distance: number }>>) => {
        expect(lists).toHaveLength(asked.length)
        lists.forEach((list, q) => {
          expect(list.map((row) => row.seq)).toEqual(exact(asked[q]!).slice(0, 5).map((row) => row.seq))
          list.forEach((row, i) => expect(row.distance).toBeCloseTo(exact(asked[q]!)[i]!.distance, 5))
        })
        expect(lists.slice(0, 3).map((list) => list[0]!.seq)).toEqual([1, 2, 3])
      }
      check(yield* queries.nearestEach("fact", asked, SPACE.dimensions, 5))
      check(yield* sql.withTransaction(queries.nearestEach("fact", asked, SPACE.dimensions, 5)))
      expect(yield* queries.nearest("fact", asked[4]!, SPACE.dimensions, 5)).toEqual((yield* queries.nearestEach("fact", asked, SPACE.dimensions, 5))[4])
      expect(yield* queries.nearestEach("fact", [], SPACE.dimensions, 5)).toEqual([])
    }))

  it.scoped("never keeps rows of a transaction that rolls back, even when it searched them", () =>
    Effect.gen(function*() {
      const { queries, sql } = yield* openStore
      const [kept, rolledBack, reused] = vectors(3, SPACE.dimensions, 11)
      yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 1, vector: kept! }]))
      yield* currentBitIndex(sql, "fact", SPACE.dimensions)
      let seenInside: ReadonlyArray<number> = []
      const outcome = yield* sql.withTransaction(Effect.gen(function*() {
        yield* queries.insert("fact", SPACE, [{ seq: 2, vector: rolledBack! }])
        seenInside = (yield* queries.nearest("fact", rolledBack!, SPACE.dimensions, 1)).map((row) => row.seq)
        return yield* Effect.fail("roll back" as const)
      })).pipe(Effect.either)
      // The transaction saw its own row; nothing of it outlives the rollback.
      expect(outcome).toEqual(Either.left("roll back"))
      expect(seenInside).toEqual([2])
      // The same seq and the same count of inserts again, with another vector.
      yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 2, vector: reused! }]))
      yield* expectMirrors(sql, yield* currentBitIndex(sql, "fact", SPACE.dimensions), reused!)
    }))
})

describe("a store's vector space", () => {
  it.scoped("is claimed with the first vectors; a claim rolled back is forgotten, even when read inside its transaction", () =>
    Effect.gen(function*() {
      const { queries, sql } = yield* openStore
      const [a] = vectors(1, SPACE.dimensions, 11)
      expect(yield* queries.space).toBeUndefined()
      const rolledBack = yield* Effect.gen(function*() {
        yield* queries.insert("fact", SPACE, [{ seq: 1, vector: a! }])
        expect(yield* queries.space).toEqual(SPACE)
        return yield* Effect.fail("abort" as const)
      }).pipe(sql.withTransaction, Effect.either)
      expect(Either.isLeft(rolledBack)).toBe(true)
      expect(yield* queries.space).toBeUndefined()
      // Another model may claim it then; once committed it is the store's, whichever VectorQueries asks.
      const other = { model: "other-embed", dimensions: 32 }
      expect(yield* sql.withTransaction(queries.insert("fact", other, [{ seq: 1, vector: vectors(1, 32, 12)[0]! }]))).toBe(true)
      expect(yield* VectorQueries(sql).space).toEqual(other)
      expect(yield* queries.space).toEqual(other)
      expect(yield* sql.withTransaction(queries.insert("fact", SPACE, [{ seq: 2, vector: a! }]))).toBe(false)
    }))
})
