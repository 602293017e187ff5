/** The HTTP operations of members that run commands (none yet). */
export const membersCommandOperations = [];
