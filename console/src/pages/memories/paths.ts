/** A memory's page: ids and user ids go in the URL encoded, as they may hold any character. */
export const memoryPath = (id: string, user: string) => `/memories/${encodeURIComponent(id)}?user=${encodeURIComponent(user)}`

export const memoriesPath = (user: string) => `/memories?user=${encodeURIComponent(user)}`
