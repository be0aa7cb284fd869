// Generated ids are random hex: a digit string looked for in a response can occur inside one by chance.
const GENERATED_ID = /[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/gi

/** The text with every generated id replaced, so that looking for words in it never matches an id. */
export const withoutIds = (text: string): string => text.replace(GENERATED_ID, "<id>")
