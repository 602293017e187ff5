import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  logLevel: string;
  /** JWT signing secret; when unset, a random one is generated once and kept in DATA_DIR/secrets/. */
  jwtSecret: string | null;
  demoApiKey: string | null;
  demoMemberPassword: string | null;
  /** Seed the demo data into an empty DATA_DIR. */
  seedDemo: boolean;
  readYourWritesTimeoutMs: number;
  searchFlushIntervalMs: number;
  /** The EU's VIES service for VAT checks; null: format and checksum only (jsvat). */
  viesUrl: string | null;
  viesTimeoutMs: number;
  http: HttpConfig;
}

export interface HttpConfig {
  /** Origins allowed to call from browsers; ['*'] = any. */
  corsOrigins: string[];
  /** Behind a reverse proxy: the client address comes from X-Forwarded-For. */
  trustProxy: boolean;
  /** Reuse serialised catalogue answers while their projections stand still. */
  responseCache: boolean;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: int(env.PORT, 3000, 'PORT'),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    logLevel: env.LOG_LEVEL ?? 'info',
    jwtSecret: env.JWT_SECRET || null,
    demoApiKey: env.DEMO_API_KEY || null,
    demoMemberPassword: env.DEMO_MEMBER_PASSWORD || null,
    seedDemo: env.SEED_DEMO !== 'false',
    readYourWritesTimeoutMs: int(env.READ_YOUR_WRITES_TIMEOUT_MS, 5000, 'READ_YOUR_WRITES_TIMEOUT_MS'),
    searchFlushIntervalMs: int(env.SEARCH_FLUSH_INTERVAL_MS, 30000, 'SEARCH_FLUSH_INTERVAL_MS'),
    viesUrl: env.VIES_URL || null,
    viesTimeoutMs: int(env.VIES_TIMEOUT_MS, 10000, 'VIES_TIMEOUT_MS'),
    http: {
      corsOrigins: (env.CORS_ORIGINS ?? '*').split(',').map((o) => o.trim()).filter(Boolean),
      trustProxy: env.TRUST_PROXY === 'true',
      responseCache: env.RESPONSE_CACHE !== 'false',
    },
  };
}
