/** The HTTP operations of members that answer from read models (none yet). */
export const membersQueryOperations = [];
