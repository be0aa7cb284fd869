/**
 * The API key the user entered, kept in this tab's sessionStorage only: it is gone when the tab
 * closes, and never written to localStorage or a cookie. Where the browser refuses storage, the
 * key lives in this page's memory until it reloads.
 */
const STORAGE_KEY = "memory-console.api-key"

let unstored: string | null = null

export const readApiKey = (): string | null => {
  try {
    return sessionStorage.getItem(STORAGE_KEY)
  } catch {
    return unstored
  }
}

export const saveApiKey = (key: string) => {
  unstored = key
  try {
    sessionStorage.setItem(STORAGE_KEY, key)
  } catch {
    // Storage refused: the in-memory copy above is used instead.
  }
}

export const forgetApiKey = () => {
  unstored = null
  try {
    sessionStorage.removeItem(STORAGE_KEY)
  } catch {
    // Nothing was stored.
  }
}
