import type { Layer } from "effect"
import type { ControlStore } from "../../src/storage/ControlStore.js"
import type { UserStore } from "../../src/storage/UserStore.js"
import { controlContract } from "./controlContract.js"
import { forgettingContract } from "./forgettingContract.js"
import { graphContract } from "./graphContract.js"
import { outboxContract } from "./outboxContract.js"
import { portabilityContract } from "./portabilityContract.js"
import { recallContract } from "./recallContract.js"
import { reembedContract } from "./reembedContract.js"
import { writesContract } from "./writesContract.js"

/** A storage backend under test: a fresh, empty instance of both ports for each test. */
export interface StorageBackend {
  readonly name: string
  /** With `webhooks`, as a deployment with a webhook URL runs it: audit events fill users' outboxes. */
  readonly fresh: (options?: { readonly webhooks: boolean }) => Layer.Layer<UserStore | ControlStore, unknown>
  /**
   * Whether many processes share the backend: then a running job is another worker's until its
   * lease lapses. A backend one process holds knows any other worker is gone.
   */
  readonly shared: boolean
}

/**
 * What every storage backend must do for the services to behave the same on it: run this against
 * a new backend's layer, and it is done when every case passes.
 */
export const storageContract = (backend: StorageBackend) => {
  writesContract(backend)
  forgettingContract(backend)
  recallContract(backend)
  reembedContract(backend)
  graphContract(backend)
  controlContract(backend)
  outboxContract(backend)
  portabilityContract(backend)
}
