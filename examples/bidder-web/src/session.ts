// Who is using the page: an anonymous token of the house, or a signed-in member's token (kept for the tab's life in
// sessionStorage, so a reload stays signed in), and the member stream that comes with a member.
import {
  ok,
  openMemberStream,
  ProblemError,
  signIn as signInThroughApi,
  StreamEndedError,
  useAnonymousToken,
  type BidderClient,
  type LiveStream,
  type MemberStreamEvents,
  type StreamHandlers,
} from '../../../clients/typescript/src/index.ts';

const KEY = 'bidder-web.session';

export interface Member {
  email: string;
}

export class Session {
  member: Member | null = null;
  private memberStream: LiveStream | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: BidderClient,
    private readonly tenant: string,
    /** The member stream's handlers (outbid, leading, won, lost), and what to re-read after a gap. */
    private readonly memberEvents: { on: StreamHandlers<MemberStreamEvents>; onResync: () => void },
  ) {}

  /** A kept member token when it is still a valid member token, else a new anonymous one. */
  async start(): Promise<void> {
    const kept = sessionStorage.getItem(KEY);
    if (kept) {
      const { token, email } = JSON.parse(kept) as { token: string; email: string };
      const status = ok(await this.client.GET('/v1/tokens/current', { headers: { Authorization: `Bearer ${token}` } }));
      if (status.Valid && status.Kind === 'member') {
        this.client.token = token;
        this.signedIn({ email });
        return;
      }
      sessionStorage.removeItem(KEY);
    }
    await useAnonymousToken(this.client, this.tenant);
  }

  async signIn(email: string, password: string): Promise<void> {
    const { Token } = await signInThroughApi(this.client, email, password);
    sessionStorage.setItem(KEY, JSON.stringify({ token: Token, email }));
    this.signedIn({ email });
  }

  async signOut(): Promise<void> {
    sessionStorage.removeItem(KEY);
    this.memberStream?.close();
    this.memberStream = null;
    this.member = null;
    await useAnonymousToken(this.client, this.tenant);
    this.changed();
  }

  /** Called whenever a member signs in or out. */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private signedIn(member: Member) {
    this.member = member;
    this.memberStream?.close();
    this.memberStream = openMemberStream(this.client, {
      on: this.memberEvents.on,
      onResync: this.memberEvents.onResync,
      onError: (error) => {
        // The member token no longer holds (expired, or a password reset ended it, which also ends the stream with
        // `end` credential-revoked): signed out, as the service sees it.
        if ((error instanceof ProblemError && error.status === 401) || error instanceof StreamEndedError) void this.signOut();
        else console.warn('member stream:', error);
      },
    });
    this.changed();
  }

  private changed() {
    for (const listener of this.listeners) listener();
  }
}
