/** The HTTP operations of registrations that run commands (none yet). */
export const registrationsCommandOperations = [];
