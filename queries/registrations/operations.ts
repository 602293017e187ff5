/** The HTTP operations of registrations that answer from read models (none yet). */
export const registrationsQueryOperations = [];
