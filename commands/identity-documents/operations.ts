/** The HTTP operations of identity documents that run commands (none yet). */
export const identityDocumentsCommandOperations = [];
