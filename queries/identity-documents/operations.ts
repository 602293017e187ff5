/** The HTTP operations of identity documents that answer from read models (none yet). */
export const identityDocumentsQueryOperations = [];
