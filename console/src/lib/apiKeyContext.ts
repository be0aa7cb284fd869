import { createContext } from "preact"
import { useContext } from "preact/hooks"

/** The key in use, so that views reload when it is entered or forgotten. */
export const ApiKeyContext = createContext<string | null>(null)

export const useApiKey = () => useContext(ApiKeyContext)
