/** The HTTP operations of profile that run commands (none yet). */
export const profileCommandOperations = [];
