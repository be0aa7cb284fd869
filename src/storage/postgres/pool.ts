import Pg from "pg"
import { prepareStatementsOn } from "./preparedStatements.js"

/**
 * The pool's `connect` handing each caller's callback a stand-in that lets go of it once called.
 * The driver keeps the callback of the request that opened a connection (in a listener of that
 * connection, for as long as it lives), and with it that caller's fiber: the rows it read and the
 * HTTP request it served, a purged memory's words included.
 */
const releasingCallers = (pool: Pg.Pool) => {
  const connect = pool.connect
  Object.defineProperty(pool, "connect", {
    configurable: true,
    value: (...args: Array<unknown>) => {
      const [callback] = args
      if (typeof callback !== "function") return Reflect.apply(connect, pool, args)
      let caller: Function | undefined = callback
      return Reflect.apply(connect, pool, [(...results: Array<unknown>) => {
        const call = caller
        caller = undefined
        return call === undefined ? undefined : Reflect.apply(call, undefined, results)
      }])
    }
  })
}

/** A pool of `config`, each connection preparing its statements when `prepare` is on. */
export const makePool = (config: Pg.PoolConfig, prepare: boolean) => {
  const pool = new Pg.Pool(config)
  releasingCallers(pool)
  if (prepare) pool.on("connect", prepareStatementsOn)
  return pool
}
