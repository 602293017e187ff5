/** The HTTP operations of invoices that run commands (none yet). */
export const invoicesCommandOperations = [];
