import { useLayoutEffect, useState } from "preact/hooks"

/** Where the service mounts the console; the app's own paths are relative to it. */
export const BASE_PATH = "/console"

/** Fired on pushState, which (unlike going back) raises no event of its own. */
const NAVIGATED = "console:navigated"

export interface Location {
  /** The path below /console, "/" for the overview, without a trailing slash otherwise. */
  readonly path: string
  readonly params: URLSearchParams
}

const currentLocation = (): Location => {
  const below = window.location.pathname.startsWith(BASE_PATH) ? window.location.pathname.slice(BASE_PATH.length) : "/"
  const path = below.replace(/\/+$/, "") || "/"
  return { path, params: new URLSearchParams(window.location.search) }
}

export const href = (to: string) => `${BASE_PATH}${to}`

export const navigate = (to: string, options: { readonly replace?: boolean } = {}) => {
  if (options.replace === true) window.history.replaceState(null, "", href(to))
  else window.history.pushState(null, "", href(to))
  window.dispatchEvent(new Event(NAVIGATED))
}

/** The current location, following links, back and forward. */
export const useLocation = (): Location => {
  const [location, setLocation] = useState(currentLocation)
  // Subscribed synchronously with the first render, so a link followed at once is not missed.
  useLayoutEffect(() => {
    const update = () => setLocation(currentLocation())
    window.addEventListener("popstate", update)
    window.addEventListener(NAVIGATED, update)
    return () => {
      window.removeEventListener("popstate", update)
      window.removeEventListener(NAVIGATED, update)
    }
  }, [])
  return location
}
