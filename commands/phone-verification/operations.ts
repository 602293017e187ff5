/** The HTTP operations of phone verification that run commands (none yet). */
export const phoneVerificationCommandOperations = [];
