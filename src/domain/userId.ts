import { Effect } from "effect"
import { InvalidScope } from "../api/errors.js"

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** Whether a name passes the user_id allowlist: what a user's store directory may be called. */
export const isValidUserId = (userId: string) => USER_ID.test(userId)

/** A user_id may name a directory or a key prefix in any backend, so only the allowlist passes (no dots first, no separators). */
export const validateUserId = (userId: string) =>
  isValidUserId(userId)
    ? Effect.succeed(userId)
    : Effect.fail(new InvalidScope({
      message: `user_id '${userId}' is not a valid scope: use 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit`,
      details: {}
    }))
