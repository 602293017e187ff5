/** The HTTP operations of invoices that answer from read models (none yet). */
export const invoicesQueryOperations = [];
