import type { TenantScope } from '../../src/ports/read-models.ts';
import { profiles } from '../../projections/profile/index.ts';

/*
 * Who an invoice is made out to and whether it is charged VAT, from the profile read model: raising an invoice
 * (its VAT) and printing one (its addressee) apply the same rule.
 */

/**
 * What invoices read of a member's profile (the profile feature's read model): whether they are charged VAT,
 * and the name and address an invoice is made out to. Any field may be empty; a member without a profile
 * document is charged VAT.
 */
export interface InvoiceProfile {
  vatFree: boolean;
  firstName: string | null;
  lastName: string | null;
  companyName: string | null;
  /** Address lines as written on an invoice. */
  addressLines: string[];
  /** Position of the profile's last change (0 without one): a printed invoice is remade when it moves. */
  version: number;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

export async function invoiceProfile(db: TenantScope, memberId: number): Promise<InvoiceProfile> {
  const doc = await profiles(db).findById(String(memberId));
  if (!doc) return { vatFree: false, firstName: null, lastName: null, companyName: null, addressLines: [], version: 0 };
  const street = [text(doc.Address), text(doc.HouseNumber)].filter(Boolean).join(' ');
  const town = [text(doc.ZipCode), text(doc.City)].filter(Boolean).join(' ');
  return {
    vatFree: doc.VatFree === true,
    firstName: text(doc.FirstName),
    lastName: text(doc.LastName),
    companyName: text(doc.CompanyName),
    addressLines: [street, text(doc.AddressSecond), town, text(doc.Country)].filter((l): l is string => !!l),
    version: typeof doc._pos === 'number' ? doc._pos : 0,
  };
}
