// The operation groups: an operation's `group` names one, and the OpenAPI document lists them as its tags (with
// descriptions, in this order). Declared here, apart from the document, so that Operation can type `group` by it.

/** The operation groups, in the order a reader meets them, each with what a client developer finds there. */
export const GROUPS = [
  {
    name: 'Credentials',
    description:
      'Obtaining and checking bearer tokens. Every call sends the `Api-Key` header of the calling application; most also send ' +
      "`Authorization: Bearer <token>`. An anonymous token (no secret, from the auction house's identifier) or an application " +
      "token (ClientId and ClientSecret) opens the catalogue; a member token (from sign-in) opens the member's own data as well.",
  },
  {
    name: 'Auctions',
    description:
      "The auction house's auctions: listing by status, one auction, its printed catalogue (PDF) and spreadsheet export, its texts in every language, its lot numbers and categories, and accepting its terms.",
  },
  {
    name: 'Lots',
    description:
      "Lots: filtered and sorted listings, free-text search, one lot, its documents and bid history, the latest bids, and the signed-in member's watchlist and consigned lots.",
  },
  {
    name: 'Lot attributes',
    description:
      'The descriptive attributes of lots (material, period, maker...) and the distinct values with lot counts, for building search filters.',
  },
  {
    name: 'Lot links',
    description: 'Everything a lot page links to: its auction, the other lots of its combination, its documents and its images.',
  },
  { name: 'Categories', description: "The auction house's category tree in the negotiated language, with lot counts." },
  { name: 'Live auctions', description: 'Whether a live sale is running now, which lot is up, and when a live sale starts.' },
  {
    name: 'Auction registration',
    description: 'Registering the signed-in member to bid in an auction, and the state of that registration.',
  },
  { name: 'Lot registration', description: 'Whether the signed-in member may bid on a lot, and why not.' },
  {
    name: 'Auction documents',
    description: "An auction's documents (terms of sale, conditions, catalogue supplements): the list and each file.",
  },
  {
    name: 'Sign-up and sign-in',
    description:
      'Creating a member account, confirming it, signing in for a member token, resetting a password and verifying a phone number.',
  },
  { name: 'Bidder profile', description: "The signed-in member's profile: reading it and replacing it." },
  { name: 'Identity documents', description: 'Identity documents the signed-in member uploads for verification.' },
  {
    name: 'Invoices',
    description: "The signed-in member's invoices: listing, one invoice with its lines, its PDF, raising one and choosing its shipping.",
  },
  {
    name: 'Notifications',
    description:
      'Reminders the signed-in member asks for before a lot ends, the one-click unsubscribe link (RFC 8058) of every notification mail, which needs no sign-in, ' +
      "and Web Push: the service's VAPID key and the push subscriptions of the member's browsers and phones.",
  },
  { name: 'Contact', description: 'Writing to the auction house through its contact form.' },
  { name: 'Languages', description: 'The languages the auction house publishes in, for a language menu.' },
  { name: 'Translations', description: 'The texts of a bidder front end (buttons, labels, messages) in the negotiated language.' },
  {
    name: 'Timed bidding',
    description:
      "Bidding in the auctions this service runs (`BiddingMode: timed`, beyond the seed): placing and raising maximum bids, the signed-in member's bids, the house's increment table, and an auction's live stream of bids, extensions and closes.",
  },
  {
    name: 'Back office',
    description:
      "The auction house's own systems (`/backoffice/v1`, a back-office key as the bearer): the house's event feed (pages, long-poll, Server-Sent Events), its webhooks and their deliveries, and intake over HTTP.",
  },
] as const satisfies ReadonlyArray<{ name: string; description: string }>;

/** The name of a declared group: the only values an operation's `group` takes. */
export type Group = (typeof GROUPS)[number]['name'];
