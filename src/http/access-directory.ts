/**
 * What the HTTP shell needs to know about callers, and nothing more: an Api-Key, a tenant, a member, an
 * application (client credentials). The feature that keeps them implements AccessDirectory (today the access
 * feature, over its read models) and the composition root passes it to buildApp, so the shell imports no
 * feature.
 *
 * The records name only the fields the shell reads. Handlers see the whole record the directory returns:
 * the implementing feature widens these interfaces by declaration merging (`declare module` on this file),
 * the way a framework's request type is widened by an application.
 */

/** An Api-Key as the shell checks it: which tenants it may act for. */
export interface ApiKeyInfo {
  keyId: string;
  tenants: string[];
}

/** A served tenant: whether anonymous tokens work, and the languages answers are negotiated among. */
export interface Tenant {
  Tenant: string;
  PublicAccess: boolean;
  /** Published languages; answers are only ever in one of these. */
  Languages: string[];
  DefaultLanguage: string;
}

/** A member of a tenant: a member token works while the member exists and its sessions were not ended since. */
export interface Member {
  /** RFC 3339: when the member's sessions were last ended (a password reset); null or absent when never. */
  SessionsValidFrom?: string | null;
}

/** A registered application (POST /v1/tokens with ClientId and ClientSecret). */
export interface Application {
  ClientId: string;
  Tenant: string;
  /** SHA-256 (hex) of the client secret. */
  SecretHash: string;
}

/** A back-office key as the shell checks it: the one tenant it reaches. */
export interface BackOfficeKeyInfo {
  tenant: string;
  keyId: string;
  /**
   * Whether the key's own stream has taken no event since this check (the key then holds as it was checked): a
   * cheap check again for a reader that asks at every page. Absent: the caller checks in full.
   */
  unchanged?(): Promise<boolean>;
}

/** Whom an open stream acts for, as the directory's records name them (src/http/credential-watch.ts). */
export interface CredentialHolder {
  keyId: string;
  tenant: string;
  /** The member of a stream that checks its member (the member stream); null otherwise. */
  memberId: string | null;
}

/** Where a caller's credential may change: log streams, and the event types on them that may revoke it. */
export interface CredentialSources {
  streams: string[];
  /**
   * Each event type that may revoke, with the projections whose read models `apiKey`, `tenant` or `member` answer it
   * from (a check waits for those alone: another projection may store its checkpoint past an event it ignores late).
   */
  types: Record<string, string[]>;
}

export interface AccessDirectory {
  /** The Api-Key whose value has this SHA-256 (hex), or null. */
  apiKey(hash: string): Promise<ApiKeyInfo | null>;
  tenant(id: string): Promise<Tenant | null>;
  /** The member `memberId` (a token's subject) of the tenant, or null when it does not exist (any more). */
  member(tenant: string, memberId: string): Promise<Member | null>;
  /**
   * A version of what `member` answers from (where it stands in the log), or null when unknown: a member
   * read at one version is still current while the version has not moved. Without it, every check reads.
   */
  membersVersion?(): string | null;
  application(clientId: string): Promise<Application | null>;
  /**
   * The back-office key whose value has this SHA-256 (hex), or null when unknown, revoked or replaced; checked
   * at every request (never cached): a revocation holds at once. Without it, /backoffice/v1 refuses every key.
   */
  backOfficeKey?(hash: string): Promise<BackOfficeKeyInfo | null>;
  /**
   * A version of what `apiKey` and `tenant` answer from, or null when unknown: a record read at one version
   * is still current while the version has not moved (a revoked key or a changed tenant is then seen at once).
   */
  accessVersion?(): string | null;
  /**
   * Where what `apiKey`, `tenant` and `member` answer of this caller is written: its Api-Key's, tenant's and
   * member's log streams, the event types that may revoke it there and the projections that read them. An open
   * stream checks its caller again when one of them takes such an event (on every process), once those projections
   * include it; without it, streams end at their expiry only.
   */
  credentialSources?(holder: CredentialHolder): CredentialSources;
}
