/** The HTTP operations of notifications that run commands (none yet). */
export const notificationsCommandOperations = [];
