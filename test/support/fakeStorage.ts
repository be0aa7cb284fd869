import { Effect, Layer } from "effect"
import { UserStore, type UserStoreOperations } from "../../src/storage/UserStore.js"

const missing = (name: string) => Effect.dieMessage(`UserStore.${name} is not implemented by this test's store`)
const unimplemented = (name: string) => () => missing(name)

/** A user store that answers what a test implements and dies loudly on anything else. */
export const fakeUserStore = (implemented: Partial<UserStoreOperations>) =>
  Layer.succeed(UserStore, {
    provision: unimplemented("provision"),
    erase: unimplemented("erase"),
    writeSession: unimplemented("writeSession"),
    correct: unimplemented("correct"),
    archive: unimplemented("archive"),
    purge: unimplemented("purge"),
    purgeWords: unimplemented("purgeWords"),
    archiveAll: unimplemented("archiveAll"),
    embedTurns: unimplemented("embedTurns"),
    settleProfile: unimplemented("settleProfile"),
    appliedJob: unimplemented("appliedJob"),
    fact: unimplemented("fact"),
    factWithEntities: unimplemented("factWithEntities"),
    currentFacts: unimplemented("currentFacts"),
    events: unimplemented("events"),
    recall: unimplemented("recall"),
    provenance: unimplemented("provenance"),
    similarFacts: unimplemented("similarFacts"),
    nearestFacts: unimplemented("nearestFacts"),
    entityTimeline: unimplemented("entityTimeline"),
    explore: unimplemented("explore"),
    staleEntities: unimplemented("staleEntities"),
    staleCount: unimplemented("staleCount"),
    profileFacts: unimplemented("profileFacts"),
    maintenanceLock: unimplemented("maintenanceLock"),
    outbox: {
      head: unimplemented("outbox.head"),
      removeThrough: unimplemented("outbox.removeThrough"),
      postpone: unimplemented("outbox.postpone"),
      trim: unimplemented("outbox.trim"),
      users: missing("outbox.users"),
      claim: unimplemented("outbox.claim"),
      pending: unimplemented("outbox.pending"),
      written: missing("outbox.written")
    },
    reembed: {
      backlog: unimplemented("reembed.backlog"),
      remaining: unimplemented("reembed.remaining"),
      store: unimplemented("reembed.store")
    },
    portability: {
      holds: unimplemented("portability.holds"),
      space: unimplemented("portability.space"),
      page: unimplemented("portability.page"),
      load: unimplemented("portability.load")
    },
    inventory: missing("inventory"),
    openStores: missing("openStores"),
    ...implemented
  })
